// Doctor's checks and the metrics text render the facts of the run and read nothing else: a run
// gathers the machine once (facts::gather), and what it says cannot drift from what it gathered,
// nor cost a second read of anything.

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "core/command_runner.h"
#include "core/root_fs.h"
#include "doctor/doctor.h"
#include "facts/gather.h"
#include "metrics/metrics.h"
#include "probe/machine_probe.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"

using namespace rgpu;
using namespace rgpu::test;

namespace {

std::string said(const doctor::Check& c) {
  std::ostringstream out;
  out << c.id << " " << doctor::layer_number(c.layer) << " " << doctor::status_name(c.status) << " [" << c.subject
      << "] " << c.observed << " | " << c.meaning << " | " << c.decision << " | " << c.evidence;
  return out.str();
}

// The checks that say something else now, each as it was and as it is: empty when none does.
std::string changed(const std::vector<doctor::Check>& before, const std::vector<doctor::Check>& after) {
  std::string out;
  if (before.size() != after.size()) out += "the run made another number of checks\n";
  for (size_t i = 0; i < std::min(before.size(), after.size()); ++i) {
    if (said(before[i]) != said(after[i])) out += "was: " + said(before[i]) + "\nnow: " + said(after[i]) + "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("doctor and metrics render the run's facts: the machine emptied after the gather changes nothing they say") {
  auto machines = named_machines();
  machines.push_back({"rediacc two repositories", rediacc_two_repositories});
  for (const auto& m : machines) {
    SECTION(m.name) {
      FixtureRoot root;
      m.build(root);
      const RootFs fs(root.path());
      ProcessRunner runner;
      auto probed = probe::probe_machine(fs);
      REQUIRE(probed);
      const auto now = std::chrono::system_clock::now();
      const auto facts = facts::gather({.fs = fs, .runner = runner, .probe = std::move(*probed), .now = now});
      const auto before = doctor::run_doctor(facts);
      const auto text_before = metrics::text(facts, before, now);
      REQUIRE_FALSE(before.empty());

      // Everything the gather read is gone: a check that still read the machine would now say so.
      for (const auto& entry : std::filesystem::directory_iterator(root.path())) std::filesystem::remove_all(entry);
      const auto after = doctor::run_doctor(facts);
      CHECK(changed(before, after) == "");
      CHECK(metrics::text(facts, after, now) == text_before);
    }
  }
}
