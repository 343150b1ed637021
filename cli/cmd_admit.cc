// rediacc-gpu admit: the admission decision on Docker's authorization-plugin request shape.

#include <iostream>
#include <string>

#include "admission/decide.h"
#include "admission/grants_cache.h"
#include "cli/command.h"
#include "probe/probe.h"

namespace rgpu::cli {
namespace {

struct AdmitFlags {
  std::string repo;
  bool jsonl = false;
  bool allow_buildkit = false;
};

// Fails closed: a request that cannot be read, or grants that cannot be read, are refused.
admission::Decision decide_text(admission::GrantsCache& cache, const std::string& repo, const std::string& text,
                                const admission::DecideOptions& options) {
  auto request = admission::parse_authz_request(text);
  if (!request) return {false, "refused: " + request.error().message + "."};
  auto grants = cache.current();
  if (!grants) return {false, "refused: " + grants.error().message};
  return admission::decide(**grants, repo, *request, options);
}

int run_admit(const GlobalOptions& global, const AdmitFlags& f) {
  RootFs fs(global.root);
  auto repo = admission::parse_repo(f.repo, probe::machine_hostname(fs).value_or(""));
  if (!repo) {
    std::cerr << "rediacc-gpu: " << repo.error().message << "\n";
    return kExitUsage;
  }
  admission::GrantsCache cache(fs);
  const admission::DecideOptions options{f.allow_buildkit};
  if (f.jsonl) {
    std::ios::sync_with_stdio(false);
    std::string line;
    while (std::getline(std::cin, line)) {
      if (line.empty()) continue;
      std::cout << admission::authz_response(decide_text(cache, *repo, line, options)) << '\n';
    }
    std::cout.flush();
    return kExitOk;
  }
  const std::string text{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
  const auto decision = decide_text(cache, *repo, text, options);
  std::cout << admission::authz_response(decision) << "\n";
  return decision.allow ? kExitOk : kExitFailure;
}

}  // namespace

Runner attach_admit(CLI::App& sub, GlobalOptions& global) {
  add_root_option(sub, global);
  auto f = std::make_shared<AdmitFlags>();
  sub.add_option("--repo", f->repo, "Repository whose daemon received the request")->required();
  sub.add_flag("--jsonl", f->jsonl, "Read one AuthZReq per line, answer one per line");
  sub.add_flag("--allow-buildkit", f->allow_buildkit,
               "Allow BuildKit /session and /grpc (only for builders with device entitlements off)");
  return [&global, f] { return run_admit(global, *f); };
}

}  // namespace rgpu::cli
