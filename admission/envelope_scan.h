#pragma once
// The plugin envelope read in one pass without a parse tree, for the shape dockerd writes: an
// object whose keys and values are plain ASCII strings (no escapes), null, true, false, or an
// object of those (RequestHeaders), the base64 body kept as the text it is. Anything else is left
// to the parse tree (parse_authz_request falls back), so this reader only has to be right on what
// it accepts, and a test holds it to the tree's answer there.

#include <optional>
#include <string_view>

namespace rgpu::admission {

struct EnvelopeFields {
  std::string_view method;        ///< RequestMethod's text, when it is a string
  std::string_view uri;           ///< RequestUri's text
  std::string_view body64;        ///< RequestBody's text, not yet checked as base64
  std::string_view content_type;  ///< RequestHeaders' Content-Type (name in any case), when a string
  /// RequestHeaders' Content-Length, when a string: dockerd hands it on as the client sent it, and
  /// drops it for a chunked body (Go's server reads the framing and forgets it).
  std::optional<std::string_view> content_length = std::nullopt;
};

/// The envelope's fields when `json` is in that shape (the last of repeated keys wins, as in the
/// tree); nothing when it is not, including when it is not JSON at all.
std::optional<EnvelopeFields> scan_envelope(std::string_view json);

}  // namespace rgpu::admission
