#include <catch2/catch.hpp>
#include <chrono>

#include "core/command_runner.h"

using namespace rgpu;
using namespace std::chrono_literals;

TEST_CASE("commands: output and exit code are captured, a failure exit is a result") {
  ProcessRunner runner;
  auto ok = runner.run({"sh", "-c", "echo out; echo err >&2"}, 30s);
  REQUIRE(ok);
  CHECK(ok->exit_code == 0);
  CHECK(ok->output == "out\nerr\n");
  auto bad = runner.run({"sh", "-c", "exit 3"}, 30s);
  REQUIRE(bad);
  CHECK(bad->exit_code == 3);
}

TEST_CASE("commands: extra environment reaches the program") {
  ProcessRunner runner;
  auto r = runner.run({"sh", "-c", "echo $RGPU_TEST_VALUE"}, 30s, {{"RGPU_TEST_VALUE", "seen"}});
  REQUIRE(r);
  CHECK(r->output == "seen\n");
}

TEST_CASE("commands: a program not on PATH is an error naming it") {
  ProcessRunner runner;
  auto r = runner.run({"rgpu-no-such-program"}, 30s);
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error().message, Catch::Contains("rgpu-no-such-program was not found on PATH"));
}

TEST_CASE("commands: a program past its timeout is stopped, with its output in the error") {
  ProcessRunner runner;
  auto r = runner.run({"sh", "-c", "echo started; exec sleep 30"}, 1s);
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error().message, Catch::Contains("did not finish within 1s") && Catch::Contains("started"));
}

// Boost 1.74's wait_for could miss a quick child's exit and sleep its whole timeout.
TEST_CASE("commands: quick programs return when they exit, not at their timeout") {
  ProcessRunner runner;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 40; ++i) REQUIRE(runner.run({"true"}, 60s));
  CHECK(std::chrono::steady_clock::now() - start < 50s);  // one missed exit alone would take 60 s
}

TEST_CASE("commands: a dry run records and runs nothing") {
  DryRunRunner runner;
  REQUIRE(runner.run({"rm", "-rf", "/"}, 1s)->exit_code == 0);
  CHECK(runner.commands() == std::vector<Argv>{{"rm", "-rf", "/"}});
}

TEST_CASE("commands: command lines are quoted where the shell needs it") {
  CHECK(command_line({"apt-get", "install", "-y", "pkg=1.0-1"}) == "apt-get install -y pkg=1.0-1");
  CHECK(command_line({"rpm", "-q", "--qf", "%{VERSION} x", "it's"}) == "rpm -q --qf '%{VERSION} x' 'it'\\''s'");
  CHECK(command_line({"echo", ""}) == "echo ''");
}
