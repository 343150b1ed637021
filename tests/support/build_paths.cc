#include "tests/support/build_paths.h"

namespace rgpu::test {

std::string source_path(std::string_view relative) { return RGPU_SOURCE_DIR + std::string(relative); }

std::string fixture_path(std::string_view relative) {
  return RGPU_SOURCE_DIR "/tests/fixtures/" + std::string(relative);
}

std::string built_tool() { return RGPU_BINARY; }
std::string fake_nvml_library() { return RGPU_FAKE_NVML_PATH; }
std::string docker26_root_setting() { return RGPU_DOCKER26_ROOT; }
std::string docker28_root_setting() { return RGPU_DOCKER28_ROOT; }
std::string dockerfile_labs_frontend() {
  return RGPU_DOCKER28_ROOT "/usr/local/libexec/rgpu-tests/dockerfile-frontend";
}
std::string cdi_oracle_program(std::string_view library) {
  return RGPU_CDI_ORACLE + (library == "0.5" ? std::string() : "-" + std::string(library));
}
std::string api_fields_oracle_program() { return RGPU_API_FIELDS_ORACLE; }
std::string api_fields_oracle_28_program() { return RGPU_API_FIELDS_ORACLE_28; }
std::string mount_oracle_28_program() { return RGPU_MOUNT_ORACLE_28; }

}  // namespace rgpu::test
