#pragma once
// Where each bind of a container may come from, judged and opened at runc's moment: the names the
// repository was granted mount what their specs say; the daemon's own files of the container
// (hosts, hostname, resolv.conf, its /dev/shm), its named volumes, and a build step's snapshots
// come from the daemon's data root; the rest from the directories the host policy lets the
// repository bind from, judged as the gate judges a bind. Every source but a granted name's and
// dockerd's init is opened beneath its place without following a link and staged (bind_staging.h).

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "admission/container_judge.h"
#include "admission/host_paths.h"
#include "runtime/bind_staging.h"
#include "runtime/container_daemon.h"

namespace rgpu::runtime {

struct BindPlaces {
  const ContainerDaemon& daemon;
  const admission::ContainerAllowance& allowance;
  /// The gate's judgement of a bind of a host path (absolute refusals and the policy's roots).
  std::function<admission::Refusal(const admission::HostBind&)> judge;
  /// The policy's roots for the repository, filled in; asked only for a bind of a host directory.
  std::function<std::vector<admission::FilledRoot>()> roots;
};

/// The bind mounts of `model` judged and opened: a refusal naming the first that may not be
/// mounted; else, by index in model.mounts, the staged source runc is to bind instead.
struct PlacedBinds {
  admission::Refusal refusal;
  std::map<size_t, std::string> staged;
};
PlacedBinds place_binds(const admission::ContainerModel& model, const BindPlaces& places, Staging& staging);

}  // namespace rgpu::runtime
