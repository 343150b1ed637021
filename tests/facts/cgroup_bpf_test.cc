// A repository daemon's loopback isolation as the kernel holds it: the eBPF socket programs in
// effect on a process's cgroup, read as doctor's host-network check reads them.

#include <fcntl.h>
#include <linux/bpf.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "core/root_fs.h"
#include "facts/policy/cgroup_bpf.h"

TEST_CASE("facts: the kernel says which socket eBPF programs are in effect on a process's cgroup") {
  const auto dir = rgpu::facts::cgroup_dir(rgpu::RootFs("/"), std::to_string(::getpid()));
  REQUIRE(dir);
  INFO(*dir);
  // This process's cgroup: read from the kernel as doctor reads a repository daemon's (none are
  // attached here; Rediacc's hooks would count).
  const auto before = rgpu::facts::socket_programs(*dir);
  REQUIRE(before);
  CHECK_FALSE(rgpu::facts::socket_programs("/proc"));
  // A cgroup of the test's own with a connect hook attached, as Rediacc attaches its own: the
  // smallest program there is (return 1: allow), removed with the cgroup when the test ends.
  const std::string cgroup = *dir + "/rgpu-test-" + std::to_string(::getpid());
  REQUIRE(::mkdir(cgroup.c_str(), 0755) == 0);
  const struct bpf_insn allow[] = {{BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 1}, {BPF_JMP | BPF_EXIT, 0, 0, 0, 0}};
  union bpf_attr load {};
  load.prog_type = BPF_PROG_TYPE_CGROUP_SOCK_ADDR;
  load.expected_attach_type = BPF_CGROUP_INET4_CONNECT;
  load.insns = reinterpret_cast<__u64>(allow);
  load.insn_cnt = 2;
  load.license = reinterpret_cast<__u64>("GPL");
  const int program = static_cast<int>(::syscall(__NR_bpf, BPF_PROG_LOAD, &load, sizeof load));
  const int group = ::open(cgroup.c_str(), O_RDONLY | O_DIRECTORY);
  union bpf_attr attach {};
  attach.target_fd = static_cast<__u32>(group);
  attach.attach_bpf_fd = static_cast<__u32>(program);
  attach.attach_type = BPF_CGROUP_INET4_CONNECT;
  const bool attached = program >= 0 && group >= 0 && ::syscall(__NR_bpf, BPF_PROG_ATTACH, &attach, sizeof attach) == 0;
  const auto with_hook = rgpu::facts::socket_programs(cgroup);
  if (attached) ::syscall(__NR_bpf, BPF_PROG_DETACH, &attach, sizeof attach);
  if (group >= 0) ::close(group);
  if (program >= 0) ::close(program);
  ::rmdir(cgroup.c_str());
  REQUIRE(attached);
  CHECK(with_hook == *before + 1);
}
