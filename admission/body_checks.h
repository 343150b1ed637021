#pragma once
// Checks of the fields that can attach hardware, in a create body's HostConfig (and, for
// engines up to 26.1, at its top level), an update body, an exec body and a volume body.

#include <optional>
#include <string>

#include "admission/go_json.h"
#include "admission/grants.h"

namespace rgpu::admission {

/// The grants for one decision: read from the source at most once, and only if asked.
class LazyGrants {
 public:
  explicit LazyGrants(const GrantsSource& source) : source_(source) {}
  const Result<std::shared_ptr<const GrantSet>>& get();

 private:
  const GrantsSource& source_;
  std::optional<Result<std::shared_ptr<const GrantSet>>> got_;
};

/// A refusal message, or nothing when the object attaches no hardware beyond granted CDI names.
std::optional<std::string> check_host_config(const GoValue& host_config, LazyGrants& grants, const std::string& repo);

/// Volume driver and options (volumes/create, Mounts[].VolumeOptions).
std::optional<std::string> check_volume(const std::optional<GoValue>& driver, const std::optional<GoValue>& options);

/// Go's path.Clean, for bind sources.
std::string clean_path(const std::string& path);

}  // namespace rgpu::admission
