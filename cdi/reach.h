#pragma once
// Which CDI names reach the same GPU: the one rule every caller uses (grant's exclusivity, the
// `grants` overlaps, doctor's policy checks, `list`). A name reaches the GPUs and partitions the
// inventory attaches it to (attach_cdi_names: each GPU's own nodes, as the probe grouped them), so
// a spec that maps only a GPU's card node and another that maps only its render node reach the
// same GPU. Names the inventory cannot place fall back to the nodes they share (reach_same).

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cdi/spec_index.h"
#include "probe/inventory.h"

namespace rgpu::cdi {

class ReachMap {
 public:
  /// `inventory`: the machine's GPUs (recorded or probed now); absent: nodes alone decide.
  ReachMap(const SpecIndex& index, const std::optional<probe::Inventory>& inventory);

  /// The two names reach the same GPU (whole, or a partition both reach) or a same host network
  /// interface. A name the index does not define reaches only itself.
  bool reach_same(const std::string& a, const std::string& b) const;

  /// Every other grantable name the index defines that reaches the same as `name`, sorted.
  std::vector<std::string> aliases_of(const std::string& name) const;

 private:
  struct Target {
    size_t gpu;
    std::optional<size_t> partition;  ///< absent: the GPU whole
  };
  const SpecIndex& index_;
  std::map<std::string, std::vector<Target>> targets_;
};

}  // namespace rgpu::cdi
