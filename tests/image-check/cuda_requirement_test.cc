// The image's CUDA requirement against the host driver, with the strings real CUDA images carry
// (research/partitions-and-topology.md section 4).

#include <catch2/catch.hpp>

#include "image-check/cuda_requirement.h"

using namespace rgpu::image_check;
using CudaKind = CudaVerdict::Kind;

namespace {

// nvidia/cuda:12.4.1 (ubuntu22.04 runtime) and vllm/vllm-openai:v0.23.0 (CUDA 13.0.2), abridged
// to a few of their brand/driver alternatives but in their form.
const std::string kCuda124 =
    "NVIDIA_REQUIRE_CUDA=cuda>=12.4 brand=tesla,driver>=470,driver<471 brand=unknown,driver>=470,driver<471 "
    "brand=tesla,driver>=525,driver<526 brand=tesla,driver>=535,driver<536 brand=titanrtx,driver>=535,driver<536";
const std::string kCuda130 =
    "NVIDIA_REQUIRE_CUDA=cuda>=13.0 brand=unknown,driver>=535,driver<536 brand=grid,driver>=535,driver<536 "
    "brand=tesla,driver>=570,driver<571 brand=unknown,driver>=575,driver<576";

CudaVerdict verdict_on(const std::vector<std::string>& env, const char* driver, std::optional<std::string> nvml_cuda) {
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
  auto v = verdict_on({kCuda130}, "550.54.15", "12.4");
  CHECK(v.kind == CudaKind::too_new);
  CHECK(v.text ==
        "img needs CUDA >= 13.0, but the host driver 550.54.15 supports CUDA 12.4 (NVML): install a newer NVIDIA "
        "driver (580.65.06 or later for CUDA 13.0), or use an older tag of the image built for CUDA 12.4 or earlier");
  CHECK(verdict_on({kCuda130}, "590.48.01", "13.1").kind == CudaKind::ok);
  CHECK(verdict_on({kCuda124}, "550.54.15", "12.4").kind == CudaKind::ok);
  CHECK(verdict_on({"CUDA_VERSION=12.6.3"}, "550.54.15", "12.4").kind == CudaKind::too_new);
}

TEST_CASE("cuda: without NVML's answer the driver branch table stands in") {
  auto host = host_cuda(std::string("535.104.05"), std::nullopt);
  REQUIRE(host.cuda);
  CHECK(host.cuda->text == "12.2");
  CHECK(host.cuda_source == "the driver branch table");
  CHECK(host_cuda(std::string("580.65.06"), std::nullopt).cuda->text == "13.0");
  CHECK_FALSE(host_cuda(std::string("440.33"), std::nullopt).cuda);
  CHECK(verdict_on({"CUDA_VERSION=12.2.2"}, "535.104.05", std::nullopt).kind == CudaKind::ok);
}

TEST_CASE("cuda: a driver branch the image ships compat libraries for is forward compatibility, not a plain yes") {
  // A 12.4 image on a 535 driver (CUDA 12.2): only the brand=…,driver>=535,driver<536 alternatives hold.
  auto v = verdict_on({kCuda124}, "535.104.05", "12.2");
  CHECK(v.kind == CudaKind::forward_compat);
  CHECK_THAT(v.text, Catch::Contains("forward compatibility") && Catch::Contains("tesla, unknown, titanrtx"));
}

TEST_CASE("cuda: no requirement, or no NVIDIA driver at all") {
  CHECK(verdict_on({"PATH=/bin"}, "550.54.15", "12.4").kind == CudaKind::not_stated);
  auto none = judge("img", requirement_from_env({kCuda124}), host_cuda(std::nullopt, std::nullopt));
  CHECK(none.kind == CudaKind::no_driver);
  CHECK_THAT(none.text, Catch::Contains("no NVIDIA driver"));
}

// Every row of the table, both ways: a driver at a row's floor supports that CUDA (and the advice
// for that CUDA names that floor); one just below it supports only the row before.
TEST_CASE("cuda: every row of the driver table, at its floor and just below it") {
  const auto rows = cuda_driver_floors();
  REQUIRE(rows.size() >= 22);
  CHECK(std::string(rows.front().cuda) == "13.3");
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    INFO(row.cuda << " " << row.driver);
    auto at = host_cuda(std::string(row.driver), std::nullopt);
    REQUIRE(at.cuda);
    CHECK(at.cuda->text == row.cuda);
    CHECK(minimum_driver_for(*parse_dotted(row.cuda)) == std::string(row.driver));
    auto floor = *parse_dotted(row.driver);
    floor.version.numbers.back() -= 1;
    std::string below;
    for (size_t p = 0; p < floor.version.numbers.size(); ++p) {
      if (p) below.append(".");
      below.append(std::to_string(floor.version.numbers[p]));
    }
    auto under = host_cuda(below, std::nullopt);
    if (i + 1 < rows.size()) {
      REQUIRE(under.cuda);
      CHECK(under.cuda->text == rows[i + 1].cuda);
    } else {
      CHECK_FALSE(under.cuda);
    }
    if (i + 1 < rows.size()) CHECK(compare(*parse_dotted(rows[i + 1].cuda), *parse_dotted(row.cuda)) < 0);
  }
}

TEST_CASE("cuda: 12.8 and 12.9 are in the table: a 575 driver runs CUDA 12.9 images, 12.8 needs 570.26") {
  CHECK(host_cuda(std::string("575.57.08"), std::nullopt).cuda->text == "12.9");
  CHECK(host_cuda(std::string("570.86.10"), std::nullopt).cuda->text == "12.8");
  CHECK(verdict_on({"NVIDIA_REQUIRE_CUDA=cuda>=12.9"}, "575.51.03", std::nullopt).kind == CudaKind::ok);
  CHECK(verdict_on({"NVIDIA_REQUIRE_CUDA=cuda>=12.8"}, "570.26", std::nullopt).kind == CudaKind::ok);
  auto v = verdict_on({"NVIDIA_REQUIRE_CUDA=cuda>=12.8"}, "560.35.05", std::nullopt);
  CHECK(v.kind == CudaKind::too_new);
  CHECK_THAT(v.text, Catch::Contains("570.26 or later for CUDA 12.8"));
  // With NVML's answer the advice still comes from the table.
  auto nvml = verdict_on({"NVIDIA_REQUIRE_CUDA=cuda>=12.9"}, "560.35.05", "12.6");
  CHECK_THAT(nvml.text, Catch::Contains("(NVML)") && Catch::Contains("575.51.03 or later for CUDA 12.9"));
}

TEST_CASE("cuda: a driver branch newer than the table cannot be said to miss a CUDA the table lacks") {
  auto host = host_cuda(std::string("620.10.01"), std::nullopt);
  CHECK(host.cuda_at_least);
  auto v = verdict_on({"NVIDIA_REQUIRE_CUDA=cuda>=13.5"}, "620.10.01", std::nullopt);
  CHECK(v.kind == CudaKind::unknown);
  CHECK_THAT(v.text, Catch::Contains("not known without NVML"));
  CHECK(verdict_on({"NVIDIA_REQUIRE_CUDA=cuda>=13.3"}, "620.10.01", std::nullopt).kind == CudaKind::ok);
  // Within the table's last branch a newer CUDA is a plain no.
  CHECK(verdict_on({"NVIDIA_REQUIRE_CUDA=cuda>=13.5"}, "610.50.01", std::nullopt).kind == CudaKind::too_new);
  CHECK_FALSE(minimum_driver_for(*parse_dotted("13.5")));
}
