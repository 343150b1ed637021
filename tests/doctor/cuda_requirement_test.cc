// The image's CUDA requirement against the host driver, with the strings real CUDA images carry
// (research/partitions-and-topology.md section 4).

#include <catch2/catch.hpp>

#include "doctor/cuda_requirement.h"

using namespace rgpu::doctor;
using Kind = CudaVerdict::Kind;

namespace {

// nvidia/cuda:12.4.1 (ubuntu22.04 runtime) and vllm/vllm-openai:v0.23.0 (CUDA 13.0.2), abridged
// to a few of their brand/driver alternatives but in their form.
const std::string kCuda124 =
    "NVIDIA_REQUIRE_CUDA=cuda>=12.4 brand=tesla,driver>=470,driver<471 brand=unknown,driver>=470,driver<471 "
    "brand=tesla,driver>=525,driver<526 brand=tesla,driver>=535,driver<536 brand=titanrtx,driver>=535,driver<536";
const std::string kCuda130 =
    "NVIDIA_REQUIRE_CUDA=cuda>=13.0 brand=unknown,driver>=535,driver<536 brand=grid,driver>=535,driver<536 "
    "brand=tesla,driver>=570,driver<571 brand=unknown,driver>=575,driver<576";

CudaVerdict on(const std::vector<std::string>& env, const char* driver, std::optional<std::string> nvml_cuda) {
  return judge("img", requirement_from_env(env), host_cuda(std::string(driver), nvml_cuda));
}

}  // namespace

TEST_CASE("cuda: versions compare part by part, missing parts as zero") {
  CHECK(compare(*parse_dotted("12.4"), *parse_dotted("12.4.0")) == 0);
  CHECK(compare(*parse_dotted("12.10"), *parse_dotted("12.9")) > 0);
  CHECK(compare(*parse_dotted("550.54.15"), *parse_dotted("550.54.9")) > 0);
  for (const char* bad : {"", "12.", ".4", "12..4", "v12", "12.4-1"}) CHECK_FALSE(parse_dotted(bad));
}

TEST_CASE("cuda: what images state, by the toolkit's rules") {
  auto legacy = requirement_from_env({"PATH=/usr/bin", "CUDA_VERSION=11.8.0"});
  REQUIRE(legacy.stated);
  REQUIRE(legacy.alternatives.size() == 1);
  CHECK(legacy.alternatives[0][0].value == "11.8");
  // NVIDIA_REQUIRE_CUDA wins over CUDA_VERSION; space is OR, comma is AND.
  auto modern = requirement_from_env({"CUDA_VERSION=12.4.1", kCuda124});
  CHECK(modern.alternatives.size() == 6);
  CHECK(modern.alternatives[1].size() == 3);
  // Several NVIDIA_REQUIRE_* are ANDed; NVIDIA_DISABLE_REQUIRE drops them all.
  auto both = requirement_from_env({"NVIDIA_REQUIRE_CUDA=cuda>=12.0", "NVIDIA_REQUIRE_DRIVER=driver>=535"});
  REQUIRE(both.alternatives.size() == 1);
  CHECK(both.alternatives[0].size() == 2);
  CHECK_FALSE(requirement_from_env({kCuda124, "NVIDIA_DISABLE_REQUIRE=true"}).stated);
  CHECK_FALSE(requirement_from_env({"PATH=/bin"}).stated);
}

TEST_CASE("cuda: a CUDA 13 image on a 12.4 driver fails naming both versions and the two ways out") {
  auto v = on({kCuda130}, "550.54.15", "12.4");
  CHECK(v.kind == Kind::too_new);
  CHECK(v.text ==
        "img needs CUDA >= 13.0, but the host driver 550.54.15 supports CUDA 12.4 (NVML): install a newer NVIDIA "
        "driver (580.65.06 or later for CUDA 13.0), or use an older tag of the image built for CUDA 12.4 or earlier");
  CHECK(on({kCuda130}, "590.48.01", "13.1").kind == Kind::ok);
  CHECK(on({kCuda124}, "550.54.15", "12.4").kind == Kind::ok);
  CHECK(on({"CUDA_VERSION=12.6.3"}, "550.54.15", "12.4").kind == Kind::too_new);
}

TEST_CASE("cuda: without NVML's answer the driver branch table stands in") {
  auto host = host_cuda(std::string("535.104.05"), std::nullopt);
  REQUIRE(host.cuda);
  CHECK(host.cuda->text == "12.2");
  CHECK(host.cuda_source == "the driver branch table");
  CHECK(host_cuda(std::string("580.65.06"), std::nullopt).cuda->text == "13.0");
  CHECK_FALSE(host_cuda(std::string("440.33"), std::nullopt).cuda);
  CHECK(on({"CUDA_VERSION=12.2.2"}, "535.104.05", std::nullopt).kind == Kind::ok);
}

TEST_CASE("cuda: a driver branch the image ships compat libraries for is forward compatibility, not a plain yes") {
  // A 12.4 image on a 535 driver (CUDA 12.2): only the brand=…,driver>=535,driver<536 alternatives hold.
  auto v = on({kCuda124}, "535.104.05", "12.2");
  CHECK(v.kind == Kind::forward_compat);
  CHECK_THAT(v.text, Catch::Contains("forward compatibility") && Catch::Contains("tesla, unknown, titanrtx"));
}

TEST_CASE("cuda: no requirement, or no NVIDIA driver at all") {
  CHECK(on({"PATH=/bin"}, "550.54.15", "12.4").kind == Kind::not_stated);
  auto none = judge("img", requirement_from_env({kCuda124}), host_cuda(std::nullopt, std::nullopt));
  CHECK(none.kind == Kind::no_driver);
  CHECK_THAT(none.text, Catch::Contains("no NVIDIA driver"));
}
