#pragma once
// The rediacc-gpu binary on a fixture machine: any command with --root, and the one create
// request through `admit` that most gate tests start from.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/fixture_root.h"
#include "tests/support/run_binary.h"

namespace rgpu::test {

/// `rediacc-gpu ARGS --root ROOT`.
RunResult tool_on(const FixtureRoot& root, std::vector<std::string> args);

/// One create through `admit --repo REPO` that asks for the CDI name `name`, as the docker CLI 28
/// sends it; exit 0 when allowed, 1 when refused (the reply on stdout).
RunResult admit_create(const FixtureRoot& root, const std::string& repo, const std::string& name);

/// The checks `doctor -o json` on ROOT reports with id `id`.
std::vector<nlohmann::json> doctor_checks(const FixtureRoot& root, const std::string& id);

}  // namespace rgpu::test
