#include "runtime/exec_bounds.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdlib>

#include "core/split.h"

namespace rgpu::runtime {
namespace {

constexpr int kNetRaw = 13;  // CAP_NET_RAW's number (linux/capability.h)

// Field 22 of /proc/PID/stat (after the command's parenthesised name): when the process started.
std::optional<std::string> start_time(const std::string& stat) {
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  const auto fields = split(stat.substr(close + 2), ' ', EmptyFields::drop);
  if (fields.size() < 20) return std::nullopt;
  return fields[19];
}

bool names_net_raw(const std::string& cap) { return cap == "CAP_NET_RAW" || cap == "NET_RAW"; }

}  // namespace

Result<unsigned long long> container_bounding_set(const RootFs& fs, const RuncCommand& exec) {
  const std::string state = (exec.root.empty() ? std::string("/run/runc") : exec.root) + "/" + exec.id + "/state.json";
  const auto text = fs.read_file(state);
  const auto doc = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
  if (!doc.is_object() || !doc.contains("init_process_pid") || !doc["init_process_pid"].is_number_unsigned())
    return fail("cannot read container " + exec.id + "'s runc state " + state +
                ", so the verifier cannot bound "
                "what the process may hold; start the container again");
  const std::string pid = std::to_string(doc["init_process_pid"].get<unsigned long long>());
  const auto stat = fs.read_file("/proc/" + pid + "/stat");
  const auto status = fs.read_file("/proc/" + pid + "/status");
  const auto started = stat ? start_time(*stat) : std::nullopt;
  if (!started || !status || !doc.contains("init_process_start") || doc["init_process_start"].dump() != *started)
    return fail("container " + exec.id + "'s process " + pid + " is gone; start the container again");
  for (const auto& line : split(*status, '\n', EmptyFields::drop)) {
    if (!line.starts_with("CapBnd:")) continue;
    errno = 0;
    char* end = nullptr;
    const auto set = std::strtoull(line.c_str() + 7, &end, 16);
    if (errno == 0 && end != line.c_str() + 7) return set;
  }
  return fail("cannot read the capabilities of container " + exec.id + "'s process " + pid);
}

Result<std::optional<std::string>> bounded_process(const RootFs& fs, const RuncCommand& exec,
                                                   unsigned long long bounding) {
  if (bounding & (1ULL << kNetRaw)) return std::optional<std::string>{};
  for (const auto& cap : exec.added_caps) {
    if (names_net_raw(cap))
      return fail("runc exec adds CAP_NET_RAW to container " + exec.id + ", which was made without it");
  }
  if (exec.process.empty()) return std::optional<std::string>{};  // the container's own process spec
  const auto text = fs.read_file(exec.process);
  auto spec = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
  if (!spec.is_object()) return fail("cannot read the process spec " + exec.process + " runc exec was given");
  bool dropped = false;
  if (auto caps = spec.find("capabilities"); caps != spec.end() && caps->is_object()) {
    for (auto& [set, list] : caps->items()) {
      if (!list.is_array()) continue;
      nlohmann::json kept = nlohmann::json::array();
      for (const auto& cap : list) {
        if (cap.is_string() && names_net_raw(cap.get<std::string>())) {
          dropped = true;
        } else {
          kept.push_back(cap);
        }
      }
      list = std::move(kept);
    }
  }
  if (!dropped) return std::optional<std::string>{};
  return std::optional<std::string>(spec.dump());
}

}  // namespace rgpu::runtime
