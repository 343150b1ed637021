#pragma once
// Every field of the request bodies the gate judges, as Docker's API defines them from dockerd
// 20.10 (API 1.41) to the newest source read (API 1.56), each marked judged or harmless. A field
// outside the table may be a new way to a device (DeviceRequests was one, in API 1.40): it is
// refused while it carries a value, until someone reads it and adds it here.

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "admission/refusal.h"
#include "docker/go_json.h"

namespace rgpu::admission {

/// The newest Docker API version whose fields the table holds.
inline constexpr std::string_view kNewestApiKnown = "1.56";

/// The JSON objects whose fields the table lists.
enum class ApiObject {
  create,          ///< POST /containers/create: container.Config, HostConfig, NetworkingConfig
  host_config,     ///< HostConfig (and its embedded Resources)
  update,          ///< POST /containers/{id}/update: Resources and RestartPolicy
  exec,            ///< POST /containers/{id}/exec
  mount,           ///< HostConfig.Mounts[]
  bind_options,    ///< Mounts[].BindOptions
  volume_options,  ///< Mounts[].VolumeOptions
  volume_driver,   ///< Mounts[].VolumeOptions.DriverConfig
  tmpfs_options,   ///< Mounts[].TmpfsOptions
  image_options,   ///< Mounts[].ImageOptions
  device_request,  ///< HostConfig.DeviceRequests[]
  volume_create,   ///< POST /volumes/create
};

enum class FieldRole {
  judged,    ///< a check of the gate reads it
  harmless,  ///< read and found unable to attach hardware or loosen the container's confinement
};

struct ApiField {
  ApiObject object;
  std::string_view name;  ///< the JSON name dockerd's decoder matches (Go folds its case)
  FieldRole role;
};

/// The whole table, for documentation and for the test that compares it with dockerd's types.
std::span<const ApiField> api_fields();

/// "HostConfig", "Mounts[]", ...: how a refusal names the object.
std::string_view api_object_name(ApiObject object);

/// A refusal naming the first member of `value` that no field of `object` matches and that
/// carries a value; nothing when every such member is empty (null, false, 0, "", [], {}), as
/// the CLI sends every field it knows. A create body is matched against its own fields and
/// HostConfig's, which engines up to 26.1 read at its top level too.
Refusal check_known_fields(const docker::GoValue& value, ApiObject object);

}  // namespace rgpu::admission
