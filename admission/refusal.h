#pragma once
// The judges' common answer: the refusal's sentence, or nothing when the request may go on.

#include <optional>
#include <string>

namespace rgpu::admission {

/// A refusal ("refused: …; what to do.") when set; absent when the judged part is allowed.
using Refusal = std::optional<std::string>;

}  // namespace rgpu::admission
