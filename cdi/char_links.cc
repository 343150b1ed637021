#include "cdi/char_links.h"

#include <map>

namespace rgpu::cdi {

std::vector<CharLink> char_links(const RootFs& fs, const SpecIndex& index) {
  std::map<std::string, CharLink> by_link;
  for (const auto& device : index.devices) {
    for (const auto& node : device.device_nodes) {
      const auto numbers = fs.char_device(node);
      if (!numbers) continue;
      auto real = fs.resolve(node);
      if (!real) continue;
      CharLink l;
      l.node = *real;
      l.link = "/dev/char/" + std::to_string(numbers->major) + ":" + std::to_string(numbers->minor);
      // Relative, as udev writes them: read from /dev/char, on the machine and under any root.
      l.target = l.node.starts_with("/dev/") ? "../" + l.node.substr(5) : l.node;
      const auto linked = fs.char_device(l.link);
      l.present = linked && linked->major == numbers->major && linked->minor == numbers->minor;
      by_link.emplace(l.link, std::move(l));
    }
  }
  std::vector<CharLink> out;
  for (auto& [link, l] : by_link) out.push_back(std::move(l));
  return out;
}

Result<Changes> write_char_links(const RootFs& fs, FileSink& sink, const SpecIndex& index) {
  Changes changes;
  for (const auto& l : char_links(fs, index)) {
    if (l.present) continue;
    RGPU_TRY_ASSIGN(auto change, sink.link(l.link, l.target));
    changes.push_back(std::move(change));
  }
  return changes;
}

}  // namespace rgpu::cdi
