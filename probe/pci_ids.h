#pragma once
// Device names from a pci.ids file, looked up only for the ids asked: libpci parses the whole
// 1.3 MB database into a hash at its first lookup, which cost a probe of an AMD machine more
// than all its sysfs reads. The names are libpci's (a test holds every id of the file to it).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace rgpu::probe {

class PciIds {
 public:
  /// `host_path` is the file; it is read at the first lookup. A missing file names nothing.
  explicit PciIds(std::string host_path) : path_(std::move(host_path)) {}
  ~PciIds();
  PciIds(const PciIds&) = delete;
  PciIds& operator=(const PciIds&) = delete;

  /// The vendor's name ("NVIDIA Corporation"); absent when the file lacks the vendor.
  std::optional<std::string> vendor_name(std::uint16_t vendor);
  /// The device's name ("GH100 [H100 SXM5 80GB]"); absent when the file lacks it.
  std::optional<std::string> device_name(std::uint16_t vendor, std::uint16_t device);

 private:
  /// The vendor's block: its own line, then its device lines, up to the next vendor's line.
  std::optional<std::string_view> vendor_block(std::uint16_t vendor);

  std::string path_;
  bool mapped_ = false;
  std::string_view text_;  // the file, mapped: a lookup touches only the pages up to its vendor
  std::map<std::uint16_t, std::optional<std::string_view>> blocks_;
};

}  // namespace rgpu::probe
