#include "tests/support/image_archive.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/support/run_binary.h"

namespace rgpu::test {
namespace {

std::string sha256_of(const std::string& bytes) {
  const auto sum = run_program("/usr/bin/sha256sum", {}, bytes);
  REQUIRE(sum.exit_code == 0);
  return sum.out.substr(0, 64);
}

const char* architecture() {
#if defined(__aarch64__)
  return "arm64";
#else
  return "amd64";
#endif
}

}  // namespace

std::string image_archive(const FixtureRoot& rootfs, const std::string& name, const ImageConfig& config) {
  const auto layer = run_program("/usr/bin/tar", {"-C", rootfs.str(), "-c", "."});
  REQUIRE(layer.exit_code == 0);
  const std::string diff_id = "sha256:" + sha256_of(layer.out);
  nlohmann::json image_config = {{"architecture", architecture()},
                                 {"os", "linux"},
                                 {"config", nlohmann::json::object()},
                                 {"rootfs", {{"type", "layers"}, {"diff_ids", {diff_id}}}}};
  if (!config.entrypoint.empty()) image_config["config"]["Entrypoint"] = config.entrypoint;
  if (!config.labels.empty()) image_config["config"]["Labels"] = config.labels;
  const std::string config_text = image_config.dump();
  const std::string config_file = sha256_of(config_text) + ".json";
  const std::string tag = name.find(':') == std::string::npos ? name + ":latest" : name;
  const nlohmann::json manifest =
      nlohmann::json::array({{{"Config", config_file}, {"RepoTags", {tag}}, {"Layers", {"layer/layer.tar"}}}});
  FixtureRoot archive;
  archive.write("/layer/layer.tar", layer.out);
  archive.write("/" + config_file, config_text);
  archive.write("/manifest.json", manifest.dump());
  const auto tar = run_program("/usr/bin/tar", {"-C", archive.str(), "-c", "."});
  REQUIRE(tar.exit_code == 0);
  return tar.out;
}

}  // namespace rgpu::test
