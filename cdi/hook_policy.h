#pragma once
// Which of the things a CDI name carries need an operator's review before a grant: hooks, which
// the runtime runs on the host as root for every container that asks for the name (CVE-2025-23266
// ran the toolkit's enable-cuda-compat hook with LD_PRELOAD from the image), outside an allow-list,
// and host network interfaces moved into the container. What was reviewed is recorded with the
// grant; the gate refuses the name once its spec carries anything else.

#include <string>
#include <vector>

#include "cdi/spec_index.h"
#include "core/root_fs.h"
#include "core/state_paths.h"

namespace rgpu::cdi {

/// The toolkit's own hook programs, always allowed (when root owns them and nobody else may write them).
inline constexpr const char* kToolkitHooks[] = {"/usr/bin/nvidia-cdi-hook", "/usr/bin/nvidia-ctk"};

/// The allowed hook paths: the toolkit's and those of state::kAllowedHooksPath. A file that cannot be
/// read adds nothing (the toolkit's stay allowed).
std::vector<std::string> allowed_hooks(const RootFs& fs);

/// What `device` carries that needs review, one canonical line each, sorted: "hook
/// createContainer /opt/x/hook a b (not in the allow-list)", "net device eth1 (as eth0)".
/// `net` picks the net devices (true) or the hooks (false).
std::vector<std::string> needs_review(const RootFs& fs, const IndexedDevice& device,
                                      const std::vector<std::string>& allowed, bool net);

/// "createContainer /usr/bin/nvidia-cdi-hook update-ldcache --folder /usr/lib64", for listings.
std::string hook_text(const CdiHook& hook);

}  // namespace rgpu::cdi
