#include "image-check/cuda_requirement.h"

#include <algorithm>

#include "core/joined.h"
#include "core/split.h"
#include "docker/images.h"

namespace rgpu::image_check {
namespace {

// The Linux x86_64 driver each CUDA minor's GA release needs: NVIDIA's CUDA Toolkit release notes,
// "CUDA Toolkit and Corresponding Driver Versions" (docs.nvidia.com/cuda/cuda-toolkit-release-notes,
// and its archive per release), GA rows. A driver reports the CUDA of the newest row it reaches
// (570.26 reports 12.8). 13.2 and 13.3 are the drivers NVIDIA's own 13.2.0 and 13.3.0 runfile
// installers ship (cuda_13.2.0_595.45.04_linux.run, cuda_13.3.0_610.43.02_linux.run); from 13.4 the
// runfile no longer names its driver and no row is written without a source. There was no 12.7.
// Highest first.
constexpr CudaFloor kFloors[] = {
    {"13.3", "610.43.02"}, {"13.2", "595.45.04"}, {"13.1", "590.44.01"}, {"13.0", "580.65.06"}, {"12.9", "575.51.03"},
    {"12.8", "570.26"},    {"12.6", "560.28.03"}, {"12.5", "555.42.02"}, {"12.4", "550.54.14"}, {"12.3", "545.23.06"},
    {"12.2", "535.54.03"}, {"12.1", "530.30.02"}, {"12.0", "525.60.13"}, {"11.8", "520.61.05"}, {"11.7", "515.43.04"},
    {"11.6", "510.39.01"}, {"11.5", "495.29.05"}, {"11.4", "470.42.01"}, {"11.3", "465.19.01"}, {"11.2", "460.27.03"},
    {"11.1", "455.23"},    {"11.0", "450.51.05"},
};

std::optional<Constraint> parse_constraint(const std::string& text) {
  for (const char* op : {">=", "<=", "!=", "==", ">", "<", "="}) {
    const auto at = text.find(op);
    if (at == std::string::npos || at == 0) continue;
    Constraint c{text.substr(0, at), op, text.substr(at + std::string_view(op).size())};
    std::transform(c.key.begin(), c.key.end(), c.key.begin(), [](unsigned char ch) { return std::tolower(ch); });
    if (c.value.empty()) return std::nullopt;
    return c;
  }
  return std::nullopt;
}

bool holds(int cmp, const std::string& op) {
  if (op == ">=") return cmp >= 0;
  if (op == ">") return cmp > 0;
  if (op == "<=") return cmp <= 0;
  if (op == "<") return cmp < 0;
  if (op == "!=") return cmp != 0;
  return cmp == 0;
}

// True/false when the host's version decides it; absent when the version is unknown or the
// constraint names something we cannot see (brand, arch).
std::optional<bool> check(const Constraint& c, const HostCuda& host) {
  const std::optional<DottedVersion>* have = c.key == "cuda" ? &host.cuda : c.key == "driver" ? &host.driver : nullptr;
  if (!have || !*have) return std::nullopt;
  auto want = parse_dotted(c.value);
  if (!want) return std::nullopt;
  return holds(compare(**have, *want), c.op);
}

std::string needed_cuda(const ImageRequirement& req) {
  for (const auto& alt : req.alternatives) {
    for (const auto& c : alt) {
      if (c.key == "cuda") return "CUDA " + c.op + " " + c.value;
    }
  }
  return "CUDA";
}

std::string brands(const ImageRequirement& req) {
  std::vector<std::string> out;
  for (const auto& alt : req.alternatives) {
    for (const auto& c : alt) {
      if (c.key == "brand" && std::find(out.begin(), out.end(), c.value) == out.end()) out.push_back(c.value);
    }
  }
  return joined(out);
}

// Whether the image asks for a CUDA above `known` in every alternative (so the answer hinges on it).
bool requires_beyond(const ImageRequirement& req, const DottedVersion& known) {
  for (const auto& alt : req.alternatives) {
    bool beyond = false;
    for (const auto& c : alt) {
      auto want = parse_dotted(c.value);
      if (c.key == "cuda" && want && compare(*want, known) > 0) beyond = true;
    }
    if (!beyond) return false;
  }
  return !req.alternatives.empty();
}

}  // namespace

std::optional<DottedVersion> parse_dotted(std::string_view text) {
  auto v = dotted_version(text);
  if (!v) return std::nullopt;
  return DottedVersion{std::move(*v), std::string(text)};
}

int compare(const DottedVersion& a, const DottedVersion& b) { return rgpu::compare(a.version, b.version); }

ImageRequirement requirement_from_env(const std::vector<std::string>& env) {
  ImageRequirement req;
  std::vector<std::string> requires_;
  std::optional<std::string> cuda_version;
  bool disabled = false;
  for (const auto& e : env) {
    const auto eq = e.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = e.substr(0, eq), value = e.substr(eq + 1);
    if (key.starts_with("NVIDIA_REQUIRE_")) requires_.push_back(e);
    if (key == "CUDA_VERSION") cuda_version = value;
    if (key == "NVIDIA_DISABLE_REQUIRE") {
      std::string v = value;
      std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
      disabled = v == "1" || v == "true" || v == "yes";
    }
  }
  if (disabled) {
    req.source = "NVIDIA_DISABLE_REQUIRE is set";
    return req;
  }
  if (requires_.empty() && cuda_version) {
    // A "legacy" image: CUDA_VERSION alone means cuda>=<major.minor>.
    auto v = parse_dotted(*cuda_version);
    if (!v) return req;
    req.alternatives = {{{"cuda", ">=",
                          std::to_string(v->version.numbers[0]) + "." +
                              std::to_string(v->version.numbers.size() > 1 ? v->version.numbers[1] : 0)}}};
    req.source = "CUDA_VERSION=" + *cuda_version;
    req.stated = true;
    return req;
  }
  // Several NVIDIA_REQUIRE_* are ANDed: the product of their alternatives.
  std::vector<std::vector<Constraint>> product = {{}};
  for (const auto& r : requires_) {
    std::vector<std::vector<Constraint>> alts;
    for (const auto& alt : split(r.substr(r.find('=') + 1), ' ', EmptyFields::drop)) {
      std::vector<Constraint> all;
      for (const auto& c : split(alt, ',', EmptyFields::drop)) {
        if (auto parsed = parse_constraint(c)) all.push_back(*parsed);
      }
      if (!all.empty()) alts.push_back(all);
    }
    if (alts.empty()) continue;
    std::vector<std::vector<Constraint>> next;
    for (const auto& p : product) {
      for (const auto& a : alts) {
        auto both = p;
        both.insert(both.end(), a.begin(), a.end());
        next.push_back(both);
      }
    }
    product = std::move(next);
    req.source += (req.source.empty() ? "" : " ") + r;
    req.stated = true;
  }
  if (req.stated) req.alternatives = std::move(product);
  return req;
}

HostCuda host_cuda(const std::optional<std::string>& driver_version, const std::optional<std::string>& nvml_cuda) {
  HostCuda host;
  if (driver_version) host.driver = parse_dotted(*driver_version);
  if (nvml_cuda) host.cuda = parse_dotted(*nvml_cuda);
  if (host.cuda) {
    host.cuda_source = "NVML";
    return host;
  }
  if (!host.driver) return host;
  for (const auto& f : kFloors) {
    if (compare(*host.driver, *parse_dotted(f.driver)) >= 0) {
      host.cuda = parse_dotted(f.cuda);
      host.cuda_source = "the driver branch table";
      // A driver branch newer than the table's last row may support a CUDA the table lacks.
      host.cuda_at_least =
          &f == &kFloors[0] && parse_dotted(f.driver)->version.numbers[0] < host.driver->version.numbers[0];
      if (host.cuda_at_least) host.cuda_source = "the driver branch table, which ends there";
      break;
    }
  }
  return host;
}

HostCuda host_cuda(const probe::Inventory& inventory) {
  std::optional<std::string> driver;
  for (const auto& g : inventory.gpus) {
    if (g.vendor == probe::Vendor::nvidia && g.driver_version) {
      driver = g.driver_version;
      break;
    }
  }
  return host_cuda(driver, inventory.cuda_driver_version);
}

Result<CudaVerdict> check_image_cuda(const probe::Inventory& inventory, const std::string& socket,
                                     const std::string& image) {
  RGPU_TRY_ASSIGN(auto env, docker::image_env(socket, image));
  return judge(image, requirement_from_env(env), host_cuda(inventory));
}

std::span<const CudaFloor> cuda_driver_floors() { return kFloors; }

std::optional<std::string> minimum_driver_for(const DottedVersion& cuda) {
  for (auto it = std::rbegin(kFloors); it != std::rend(kFloors); ++it) {
    if (compare(*parse_dotted(it->cuda), cuda) >= 0) return std::string(it->driver);
  }
  return std::nullopt;
}

CudaVerdict judge(const std::string& image, const ImageRequirement& req, const HostCuda& host) {
  using Kind = CudaVerdict::Kind;
  if (!req.stated) {
    return {Kind::not_stated,
            image + " states no CUDA requirement" +
                (req.source.empty() ? " (no NVIDIA_REQUIRE_CUDA or CUDA_VERSION)" : " (" + req.source + ")")};
  }
  const std::string needs = image + " needs " + needed_cuda(req);
  if (!host.driver) {
    return {Kind::no_driver, needs + ", and this host has no NVIDIA driver; run it on a host with one"};
  }
  const std::string has = "the host driver " + host.driver->text +
                          (host.cuda ? " supports CUDA " + host.cuda->text + " (" + host.cuda_source + ")"
                                     : " supports an unknown CUDA version");
  bool compat = false;
  for (const auto& alt : req.alternatives) {
    bool all = true, assumed = false;
    for (const auto& c : alt) {
      auto r = check(c, host);
      if (!r && (c.key == "brand" || c.key == "arch")) {
        assumed = true;
      } else if (!r || !*r) {
        all = false;
      }
    }
    if (all && !assumed) return {Kind::ok, needs + "; " + has};
    compat = compat || all;
  }
  if (host.cuda_at_least && requires_beyond(req, *host.cuda)) {
    return {Kind::unknown, needs + "; " + has + " at least: whether it reaches " + needed_cuda(req) +
                               " is not known without NVML (its library, libnvidia-ml.so.1, did not answer)"};
  }
  if (compat) {
    return {Kind::forward_compat, needs + "; " + has +
                                      ": it runs only through forward compatibility (the image's "
                                      "cuda-compat libraries), on GPUs of brand " +
                                      brands(req) + " only"};
  }
  std::string way = "install a newer NVIDIA driver";
  for (const auto& alt : req.alternatives) {
    for (const auto& c : alt) {
      auto want = parse_dotted(c.value);
      if (c.key != "cuda" || !want) continue;
      if (auto floor = minimum_driver_for(*want)) way += " (" + *floor + " or later for CUDA " + c.value + ")";
      break;
    }
    break;
  }
  return {Kind::too_new, needs + ", but " + has + ": " + way + ", or use an older tag of the image" +
                             (host.cuda ? " built for CUDA " + host.cuda->text + " or earlier" : "")};
}

}  // namespace rgpu::image_check
