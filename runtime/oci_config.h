#pragma once
// The OCI runtime configuration runc reads (a bundle's config.json), as a container model
// (admission/container_model.h), and the document itself, which the verifier hands runc again with
// the sources it opened. Pure: text in, model out.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "admission/container_model.h"
#include "core/result.h"

namespace rgpu::runtime {

struct OciConfig {
  nlohmann::json document;
  admission::ContainerModel model;
};

/// `text` (a config.json) for the container runc names `id`. A field no judge reads that carries a
/// value, at any level the gate knows (and every key spelled otherwise than OCI spells it, which Go's
/// decoder would still read), is listed in model.unknown_fields. Fails when the text is not a JSON
/// object or a known field has the wrong type.
Result<OciConfig> read_oci_config(std::string_view text, const std::string& id);

}  // namespace rgpu::runtime
