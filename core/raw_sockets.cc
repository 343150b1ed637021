#include "core/raw_sockets.h"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

namespace rgpu {
namespace {

// Syscall numbers by architecture (the kernel's unistd tables), not this build's: a 32-bit program
// in a container runs the compat table.
constexpr unsigned kX86_64Socket = 41;
constexpr unsigned kX32Bit = 0x40000000;
constexpr unsigned kI386Socket = 359;
constexpr unsigned kI386Socketcall = 102;
constexpr unsigned kSysSocket = 1;  // socketcall's first argument for socket()
constexpr unsigned kAarch64Socket = 198;
constexpr unsigned kArmSocket = 281;
constexpr unsigned kSockTypeMask = 0xf;  // SOCK_NONBLOCK and SOCK_CLOEXEC sit above
#ifndef AF_XDP
constexpr unsigned kAfXdp = 44;
#else
constexpr unsigned kAfXdp = AF_XDP;
#endif

constexpr unsigned kAllow = SECCOMP_RET_ALLOW;
constexpr unsigned kRefuse = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);

// Offsets in struct seccomp_data of the low 32 bits of an argument (little-endian, as every
// architecture the filter names).
constexpr unsigned arg_low(unsigned i) { return offsetof(seccomp_data, args) + 8 * i; }

// A BPF program written with labels: a jump names where it goes, resolved at the end (a filter
// jumps forward only).
class Program {
 public:
  void label(std::string_view name) { labels_.emplace_back(name, code_.size()); }
  void load(unsigned offset) { code_.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset)); }
  void mask(unsigned bits) { code_.push_back(BPF_STMT(BPF_ALU | BPF_AND | BPF_K, bits)); }
  void ret(unsigned value) { code_.push_back(BPF_STMT(BPF_RET | BPF_K, value)); }
  // If the accumulator equals `value`, go to `target`; else on to the next instruction.
  void jump_if(unsigned value, std::string_view target) {
    jumps_.emplace_back(code_.size(), target);
    code_.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, value, 0, 0));
  }
  std::vector<sock_filter> finish() {
    for (const auto& [at, target] : jumps_) {
      for (const auto& [name, index] : labels_) {
        if (name == target) code_[at].jt = static_cast<unsigned char>(index - at - 1);
      }
    }
    return code_;
  }

 private:
  std::vector<sock_filter> code_;
  std::vector<std::pair<std::string_view, size_t>> labels_;
  std::vector<std::pair<size_t, std::string_view>> jumps_;
};

// Each architecture's socket() (and i386's socketcall) goes on to one check of its arguments.
std::vector<sock_filter> filter() {
  Program p;
  p.load(offsetof(seccomp_data, arch));
  p.jump_if(AUDIT_ARCH_X86_64, "x86_64");
  p.jump_if(AUDIT_ARCH_I386, "i386");
  p.jump_if(AUDIT_ARCH_AARCH64, "aarch64");
  p.jump_if(AUDIT_ARCH_ARM, "arm");
  p.ret(kAllow);
  p.label("x86_64");  // and x32, whose numbers carry a bit of their own
  p.load(offsetof(seccomp_data, nr));
  p.jump_if(kX86_64Socket, "socket");
  p.jump_if(kX86_64Socket | kX32Bit, "socket");
  p.ret(kAllow);
  p.label("i386");
  p.load(offsetof(seccomp_data, nr));
  p.jump_if(kI386Socket, "socket");
  p.jump_if(kI386Socketcall, "socketcall");
  p.ret(kAllow);
  p.label("socketcall");  // socketcall(call, args*): the arguments are in memory, out of sight
  p.load(arg_low(0));
  p.jump_if(kSysSocket, "refuse");
  p.ret(kAllow);
  p.label("aarch64");
  p.load(offsetof(seccomp_data, nr));
  p.jump_if(kAarch64Socket, "socket");
  p.ret(kAllow);
  p.label("arm");
  p.load(offsetof(seccomp_data, nr));
  p.jump_if(kArmSocket, "socket");
  p.ret(kAllow);
  p.label("socket");  // socket(domain, type, protocol)
  p.load(arg_low(0));
  p.jump_if(AF_PACKET, "refuse");
  p.jump_if(kAfXdp, "refuse");
  p.jump_if(AF_INET, "type");
  p.jump_if(AF_INET6, "type");
  p.ret(kAllow);
  p.label("type");
  p.load(arg_low(1));
  p.mask(kSockTypeMask);
  p.jump_if(SOCK_RAW, "refuse");
  p.jump_if(SOCK_PACKET, "refuse");
  p.ret(kAllow);
  p.label("refuse");
  p.ret(kRefuse);
  return p.finish();
}

}  // namespace

Result<void> refuse_raw_sockets() {
  auto code = filter();
  sock_fprog program{.len = static_cast<unsigned short>(code.size()), .filter = code.data()};
  // As root with CAP_SYS_ADMIN the filter needs no no_new_privs, which would stop setuid programs
  // in every container the daemon starts.
  if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0)
    return fail(std::string("the kernel refused the raw-socket filter: ") + std::strerror(errno) +
                " (seccomp needs CAP_SYS_ADMIN, and a kernel built with CONFIG_SECCOMP_FILTER)");
  return {};
}

}  // namespace rgpu
