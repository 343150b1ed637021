#include "probe/pci_ids.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "core/hex_digit.h"

namespace rgpu::probe {
namespace {

// "10de  NVIDIA Corporation": four hex digits, a blank, then the name after any more blanks. As
// libpci reads a line: it ends at the first CR or LF, and loses one trailing blank.
std::optional<std::pair<std::uint16_t, std::string_view>> id_line(std::string_view line) {
  line = line.substr(0, line.find('\r'));
  if (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
  if (line.size() < 5) return std::nullopt;
  unsigned id = 0;
  for (int i = 0; i < 4; ++i) {
    const int d = hex_digit(line[static_cast<size_t>(i)]);
    if (d < 0) return std::nullopt;
    id = id * 16 + static_cast<unsigned>(d);
  }
  if (line[4] != ' ' && line[4] != '\t') return std::nullopt;
  std::string_view name = line.substr(5);
  while (!name.empty() && (name.front() == ' ' || name.front() == '\t')) name.remove_prefix(1);
  if (name.empty()) return std::nullopt;
  return std::make_pair(static_cast<std::uint16_t>(id), name);
}

// Calls `visit(line)` for each line of `text` from `pos`; stops when it returns false.
template <class Visit>
void each_line(std::string_view text, size_t pos, Visit visit) {
  while (pos < text.size()) {
    const char* start = text.data() + pos;
    const void* nl = std::memchr(start, '\n', text.size() - pos);
    const size_t end = nl ? static_cast<size_t>(static_cast<const char*>(nl) - text.data()) : text.size();
    if (!visit(text.substr(pos, end - pos), pos)) return;
    pos = end + 1;
  }
}

}  // namespace

PciIds::~PciIds() {
  if (!text_.empty()) ::munmap(const_cast<char*>(text_.data()), text_.size());
}

std::optional<std::string_view> PciIds::vendor_block(std::uint16_t vendor) {
  if (!mapped_) {
    mapped_ = true;
    const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (fd >= 0 && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      void* at = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (at != MAP_FAILED) text_ = std::string_view(static_cast<const char*>(at), static_cast<size_t>(st.st_size));
    }
    if (fd >= 0) ::close(fd);
  }
  if (auto cached = blocks_.find(vendor); cached != blocks_.end()) return cached->second;
  const std::string_view text = text_;
  std::optional<size_t> begin;
  size_t end = text.size();
  each_line(text, 0, [&](std::string_view line, size_t at) {
    if (line.empty() || line[0] == '\t' || line[0] == '#') return true;
    if (begin) {  // the next vendor (or the class list) ends the block
      end = at;
      return false;
    }
    if (auto id = id_line(line); id && id->first == vendor) begin = at;
    return true;
  });
  std::optional<std::string_view> block;
  if (begin) block = text.substr(*begin, end - *begin);
  blocks_.emplace(vendor, block);
  return block;
}

std::optional<std::string> PciIds::vendor_name(std::uint16_t vendor) {
  auto block = vendor_block(vendor);
  if (!block) return std::nullopt;
  auto line = block->substr(0, block->find('\n'));
  return std::string(id_line(line)->second);
}

std::optional<std::string> PciIds::device_name(std::uint16_t vendor, std::uint16_t device) {
  auto block = vendor_block(vendor);
  if (!block) return std::nullopt;
  std::optional<std::string> found;
  each_line(*block, 0, [&](std::string_view line, size_t) {
    // One tab: a device; two: a subsystem of the device above, never a match here.
    if (line.size() < 2 || line[0] != '\t' || line[1] == '\t') return true;
    if (auto id = id_line(line.substr(1)); id && id->first == device) {
      found = std::string(id->second);
      return false;
    }
    return true;
  });
  return found;
}

}  // namespace rgpu::probe
