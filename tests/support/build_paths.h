#pragma once
// Where the checkout and this build's programs are. Only build_paths.cc is compiled with these
// absolute paths: every other test source is the same text from any clone, so the compiler cache
// the README's test command keeps serves a clone at another path.

#include <string>
#include <string_view>

namespace rgpu::test {

/// `relative` ("/docs/capabilities.md") under the checkout.
std::string source_path(std::string_view relative);

/// `relative` ("docker-cli/corpus.jsonl") under tests/fixtures.
std::string fixture_path(std::string_view relative);

/// The rediacc-gpu binary built with the tests.
std::string built_tool();

/// The fake libnvidia-ml.so.1 that fixture roots carry.
std::string fake_nvml_library();

/// The build's RGPU_DOCKER26_ROOT and RGPU_DOCKER28_ROOT (empty when configured without them).
std::string docker26_root_setting();
std::string docker28_root_setting();

/// BuildKit's Dockerfile frontend with its labs features (RUN --device), which scripts/docker-root.sh
/// builds in the Docker 28.5 root from the BuildKit source dockerd 28.5 vendors.
std::string dockerfile_labs_frontend();

/// The Go oracles built from Debian's source: the CDI library's of `library` ("0.5", Debian 12's;
/// "0.7", Docker 26's; "1.0", Docker 28.5's) and dockerd's request fields.
std::string cdi_oracle_program(std::string_view library);
std::string api_fields_oracle_program();
std::string api_fields_oracle_28_program();
/// dockerd 28.5's mount parser (tests/oracle/mount_oracle.go).
std::string mount_oracle_28_program();

}  // namespace rgpu::test
