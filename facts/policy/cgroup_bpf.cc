#include "facts/policy/cgroup_bpf.h"

#include <fcntl.h>
#include <linux/bpf.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <sstream>

namespace rgpu::facts {

std::optional<unsigned> socket_programs(const std::string& host_dir) {
  const int fd = ::open(host_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  unsigned total = 0;
  bool answered = false;
  for (const auto type :
       {BPF_CGROUP_INET4_BIND, BPF_CGROUP_INET6_BIND, BPF_CGROUP_INET4_CONNECT, BPF_CGROUP_INET6_CONNECT}) {
    union bpf_attr attr {};
    attr.query.target_fd = static_cast<__u32>(fd);
    attr.query.attach_type = type;
    attr.query.query_flags = BPF_F_QUERY_EFFECTIVE;
    if (::syscall(__NR_bpf, BPF_PROG_QUERY, &attr, sizeof attr) != 0) continue;
    answered = true;
    total += attr.query.prog_cnt;
  }
  ::close(fd);
  if (!answered) return std::nullopt;
  return total;
}

std::optional<std::string> cgroup_dir(const RootFs& host, const std::string& pid) {
  const auto mounts = host.read_file("/proc/mounts");
  const auto groups = host.read_file("/proc/" + pid + "/cgroup");
  if (!mounts || !groups) return std::nullopt;
  std::string unified;
  std::istringstream lines(*mounts);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string device, point, type;
    if (fields >> device >> point >> type && type == "cgroup2") unified = point;
  }
  const auto at = groups->find("0::");
  if (unified.empty() || (at != 0 && (at == std::string::npos || (*groups)[at - 1] != '\n'))) return std::nullopt;
  const auto end = groups->find('\n', at);
  const std::string path = groups->substr(at + 3, end == std::string::npos ? std::string::npos : end - at - 3);
  return unified + (path == "/" ? "" : path);
}

}  // namespace rgpu::facts
