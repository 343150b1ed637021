#include "facts/kernel_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <regex>

#include "core/machine_program.h"
#include "core/split.h"

namespace rgpu::facts {
namespace {

// "6,1234,5678,-;NVRM: …" -> "NVRM: …"; continuation lines (" KEY=value") are dropped. The first
// record's sequence number says whether the buffer still holds the boot's first message (0).
KernelLog kmsg_messages(const std::vector<std::string>& records) {
  KernelLog out{"/dev/kmsg", {}};
  bool first = true;
  for (const auto& r : records) {
    const auto semi = r.find(';');
    if (r.empty() || r[0] == ' ' || semi == std::string::npos) continue;
    if (first) {
      first = false;
      unsigned long long seq = 0, usec = 0;
      if (std::sscanf(r.c_str(), "%*u,%llu,%llu", &seq, &usec) == 2 && seq > 0)
        out.coverage = "since " + std::to_string(usec / 1000000) + " s after boot (the kernel's buffer dropped the " +
                       std::to_string(seq) + " messages before)";
    }
    out.lines.push_back(r.substr(semi + 1));
  }
  return out;
}

// /dev/kmsg hands one record per read and EAGAIN at the end when opened non-blocking; a fixture's
// is a plain file of records.
std::optional<KernelLog> read_kmsg(const RootFs& fs) {
  auto fd = fs.open_read("/dev/kmsg");
  if (!fd) return std::nullopt;
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) return std::nullopt;
  if (!S_ISCHR(st.st_mode)) {
    auto text = fs.read_file("/dev/kmsg");
    if (!text) return std::nullopt;
    return kmsg_messages(split(*text, '\n', EmptyFields::drop));
  }
  ::fcntl(fd->get(), F_SETFL, ::fcntl(fd->get(), F_GETFL) | O_NONBLOCK);
  std::vector<std::string> records;
  std::string buf(8192, '\0');
  for (size_t i = 0; i < 1000000; ++i) {
    const auto n = ::read(fd->get(), buf.data(), buf.size());
    if (n < 0 && errno == EPIPE) continue;  // overwritten while reading: the next record follows
    if (n <= 0) break;
    records.emplace_back(buf.data(), static_cast<size_t>(n) - (buf[static_cast<size_t>(n) - 1] == '\n'));
  }
  return kmsg_messages(records);
}

std::optional<std::vector<std::string>> read_journal(const RootFs& fs, CommandRunner* runner) {
  if (!runner) return std::nullopt;
  auto program = machine_program(fs, "journalctl");
  if (!program) return std::nullopt;
  // Under --root, the root's own journalctl, reading the root's journal.
  const std::string path = fs.is_host_root() ? *program : fs.host_path(*program).string();
  Argv argv = {path, "-k", "-b", "-o", "cat", "--no-pager", "-q"};
  if (!fs.is_host_root()) argv.push_back("--root=" + fs.root().string());
  auto ran = runner->run(argv, std::chrono::seconds(10));
  if (!ran || ran->exit_code != 0) return std::nullopt;
  return split(ran->output, '\n', EmptyFields::drop);
}

// kern.log keeps earlier boots until it is rotated: this boot begins at its last "Linux version"
// line, the kernel's first message. Without one, the file's start may be a rotation's cut.
KernelLog kern_log_of_this_boot(const std::string& text) {
  KernelLog out{"/var/log/kern.log", split(text, '\n', EmptyFields::drop)};
  for (auto it = out.lines.rbegin(); it != out.lines.rend(); ++it) {
    if (it->find("kernel: Linux version ") == std::string::npos && !it->starts_with("Linux version ")) continue;
    out.lines.erase(out.lines.begin(), std::prev(it.base()));
    return out;
  }
  out.coverage = "in what the file keeps (it names no boot: earlier lines of this boot may be rotated away)";
  return out;
}

// "0000:3b:00" (Xid lines leave out the function) -> "0000:3b:00.0".
std::string xid_address(std::string a) {
  for (auto& c : a) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (a.find('.') == std::string::npos) a += ".0";
  return a;
}

}  // namespace

KernelLog read_kernel_log(const RootFs& fs, CommandRunner* runner) {
  if (auto kmsg = read_kmsg(fs)) return std::move(*kmsg);
  if (auto journal = read_journal(fs, runner)) return {"the journal", std::move(*journal)};
  if (auto text = fs.read_optional("/var/log/kern.log"); text && *text) return kern_log_of_this_boot(**text);
  return {};
}

std::map<std::pair<std::string, int>, unsigned> xid_counts(const std::vector<std::string>& lines) {
  static const std::regex kXid(
      R"(NVRM: Xid \(PCI:([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}(?:\.[0-7])?)\): (\d+))");
  std::map<std::pair<std::string, int>, unsigned> out;
  std::smatch m;
  for (const auto& line : lines) {
    if (line.find("NVRM: Xid") == std::string::npos || !std::regex_search(line, m, kXid)) continue;
    ++out[{xid_address(m[1]), std::stoi(m[2])}];
  }
  static const std::regex kFallen(R"(GPU ([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]).*fallen off the bus)");
  for (const auto& line : lines) {
    if (line.find("fallen off the bus") == std::string::npos || !std::regex_search(line, m, kFallen)) continue;
    const auto key = std::make_pair(xid_address(m[1]), 79);
    if (!out.count(key)) out[key] = 1;
  }
  return out;
}

std::map<std::pair<std::string, std::string>, unsigned> amdgpu_events(const std::vector<std::string>& lines) {
  static const std::regex kAmd(R"(amdgpu ([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]): )");
  std::map<std::pair<std::string, std::string>, unsigned> out;
  std::smatch m;
  for (const auto& line : lines) {
    if (line.find("amdgpu") == std::string::npos || !std::regex_search(line, m, kAmd)) continue;
    if (line.find("GPU reset begin") != std::string::npos) {
      ++out[{m[1], "reset"}];
    } else if (line.find("uncorrectable") != std::string::npos || line.find("RAS: ") != std::string::npos) {
      ++out[{m[1], "ras"}];
    }
  }
  return out;
}

bool xid_application_fault(int xid) {
  for (int x : {13, 31, 43, 45, 68, 109}) {
    if (x == xid) return true;
  }
  return false;
}

}  // namespace rgpu::facts
