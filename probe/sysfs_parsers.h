#pragma once
// Pure parsers over the text of sysfs and procfs files: tested from strings, no machine needed.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace rgpu::probe {

/// A sysfs hex attribute such as "0x10de\n"; absent when the text is not one hex number.
std::optional<std::uint32_t> parse_hex_attribute(std::string_view text);

/// A decimal attribute such as "34342961152\n"; absent when the text is not one number.
std::optional<std::uint64_t> parse_decimal_attribute(std::string_view text);

/// "key value" lines (KFD `properties`); a line without a value (a truncated file) is dropped.
std::map<std::string, std::string> parse_space_pairs(std::string_view text);

/// "Key: \t value" lines (/proc/driver/nvidia/gpus/*/information): split on the first colon,
/// both sides trimmed.
std::map<std::string, std::string> parse_colon_pairs(std::string_view text);

/// Driver version from /proc/driver/nvidia/version, for both the proprietary
/// ("Kernel Module  550.54.15  ...") and the open module ("Open Kernel Module for x86_64  570.86.15 ...").
std::optional<std::string> parse_nvidia_version(std::string_view text);

/// Canonical PCI address "dddd:bb:dd.f" (lower case, at least 4 domain digits) from sysfs
/// ("0000:41:00.0") or NVML/nvidia-smi ("00000000:41:00.0") spellings; absent when malformed.
std::optional<std::string> canonical_pci_address(std::string_view text);

/// PCI address of a KFD topology node: `domain` and `location_id` = bus << 8 | devfn.
std::string kfd_pci_address(std::uint32_t domain, std::uint32_t location_id);

/// A PCIe link speed in GT/s from sysfs, in the format of kernels up to 5.6 ("8 GT/s") and after
/// ("8.0 GT/s PCIe"); absent for "Unknown", "Unknown speed" or anything else.
std::optional<double> parse_link_speed_gts(std::string_view text);

/// A PCIe link width ("16"); absent when not a number or 0 (an integrated GPU has no link).
std::optional<unsigned> parse_link_width(std::string_view text);

/// A device's numa_node; absent for -1 (the firmware names none) and anything not a number.
std::optional<int> parse_numa_node(std::string_view text);

/// /proc/driver/nvidia-caps/mig-minors: "<capability> <minor>" lines ("gpu0/gi2/ci0/access 22",
/// "config 1"); lines that are not one name and one number are dropped.
std::map<std::string, unsigned> parse_mig_minors(std::string_view text);

/// True when a kernel release names WSL2 ("5.15.153.1-microsoft-standard-WSL2").
bool is_wsl_kernel_release(std::string_view osrelease);

std::string trim(std::string_view s);

}  // namespace rgpu::probe
