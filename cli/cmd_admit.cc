// rediacc-gpu admit: the admission decision on Docker's authorization-plugin request shape.

#include <unistd.h>

#include <chrono>
#include <iostream>
#include <string>
#include <string_view>

#include "admission/decide.h"
#include "cli/command.h"
#include "cli/jsonl_stream.h"
#include "cli/repo_arg.h"
#include "core/state_paths.h"
#include "core/structured_text.h"
#include "docker/repo_plugin.h"
#include "gate/live_gate.h"

namespace rgpu::cli {
namespace {

struct AdmitFlags {
  std::string repo;
  std::string docker_host;
  bool jsonl = false;
  bool allow_buildkit = false;
  std::string host_policy;  ///< empty: the one setup recorded
};

// Fails closed: a request that cannot be read, or grants that cannot be read when the request
// needs them, are refused; so is a request the gate fails on.
admission::Decision decide_text(gate::LiveGate& gate, std::string_view text) {
  auto request = admission::parse_authz_request(text);
  if (!request) return {false, "refused: " + request.error().message + "."};
  return gate.decide(*request);
}

int run_admit(const GlobalOptions& global, const AdmitFlags& f) {
  RootFs fs(global.root);
  auto repo = repo_of(fs, f.repo);
  if (!repo) return report_usage(repo.error());
  auto gate = gate::LiveGate::open(
      fs, {.repo = *repo,
           .docker_host = f.docker_host.empty() ? docker::configured_docker_host(fs, *repo) : f.docker_host,
           .no_daemon_why = "admit was run without --docker-host, so it cannot see what the container attaches; pass "
                            "the repository daemon's socket",
           .allow_buildkit = f.allow_buildkit,
           .policy = f.host_policy.empty() ? std::nullopt : parse_host_policy(f.host_policy)});
  if (!gate) return report_usage(gate.error());
  if (f.jsonl) {
    JsonlStream stream(STDIN_FILENO, STDOUT_FILENO);
    while (auto line = stream.next()) {
      if (line->empty()) continue;
      const auto decision = decide_text(**gate, *line);
      stream.answer_with([&](std::string& out) { admission::append_authz_response(decision, out); });
    }
    return stream.flush() ? kExitOk : kExitFailure;
  }
  const std::string text{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
  const auto decision = decide_text(**gate, text);
  std::cout << admission::authz_response(decision) << "\n";
  return decision.allow ? kExitOk : kExitFailure;
}

}  // namespace

Runner attach_admit(CLI::App& sub, GlobalOptions& global) {
  add_root_option(sub, global);
  auto f = std::make_shared<AdmitFlags>();
  sub.add_option("--repo", f->repo, "Repository whose daemon received the request")->required();
  sub.add_flag("--jsonl", f->jsonl, "Read one AuthZReq per line, answer one per line");
  add_docker_host_option(sub, f->docker_host,
                         "the repository's own, where a start, restart, unpause or exec reads the stored container it "
                         "judges; without it those requests are refused")
      ->envname(state::kDockerHostVariable);
  sub.add_flag(
      "--allow-buildkit", f->allow_buildkit,
      "Allow BuildKit builds (/session, /grpc, /build?version=2), only for builders with device entitlements off");
  sub.add_option("--host-policy", f->host_policy,
                 "Judge with this policy instead of the one setup recorded: strict, or rediacc (host networking, the "
                 "checkpoint capabilities, /dev/net/tun and checkpoints allowed, as Rediacc runs its services)")
      ->check(CLI::IsMember({"strict", "rediacc"}));
  return [&global, f] { return run_admit(global, *f); };
}

}  // namespace rgpu::cli
