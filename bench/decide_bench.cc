// The latency of one decision, in-process, over the corpus captured from the real docker CLI
// repeated to 100,000 requests: parse_authz_request + decide, as the plugin and admit run them.
// The peer, measured in the same run on the same requests: the floor's work (the envelope and
// the base64-decoded body parsed with simdjson's DOM, one field read), see admit_floor.cc.
// Target: p99 under 5 us. The in-process ratio to the floor has none (admit --jsonl is held to
// 1.3): it tells the decision's own cost from the pipe's.

#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "admission/decide.h"
#include "admission/null_world.h"

using Clock = std::chrono::steady_clock;

namespace {

size_t floor_pass(const std::vector<std::string>& corpus, size_t total) {
  simdjson::dom::parser envelope_parser, body_parser;
  size_t privileged = 0;
  for (size_t i = 0; i < total; ++i) {
    simdjson::dom::element envelope;
    std::string_view body64;
    if (envelope_parser.parse(corpus[i % corpus.size()]).get(envelope) != simdjson::SUCCESS) continue;
    if (envelope["RequestBody"].get(body64) != simdjson::SUCCESS) continue;
    auto body = rgpu::admission::base64_decode_scalar(body64);  // the floor is scalar, as specified
    simdjson::dom::element root;
    bool p = false;
    if (body && body_parser.parse(*body).get(root) == simdjson::SUCCESS &&
        root["HostConfig"]["Privileged"].get(p) == simdjson::SUCCESS && p)
      ++privileged;
  }
  return privileged;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : std::string(RGPU_FIXTURES_DIR) + "/docker-cli/corpus.jsonl";
  std::ifstream in(path);
  std::vector<std::string> corpus;
  for (std::string line; std::getline(in, line);) corpus.push_back(line);
  if (corpus.empty()) {
    std::fprintf(stderr, "decide_bench: no requests in %s\n", path.c_str());
    return 1;
  }
  const size_t total = 100000;
  rgpu::grants::GrantSet grants;
  grants.grants = {{"web", "nvidia.com/gpu=all", false, ""}, {"web", "rediacc.io/dri=renderD128", false, ""}};

  // The decision's own cost: a world that knows nothing of the machine, so nothing is read there.
  const rgpu::admission::DecideOptions options{.world = rgpu::admission::null_world()};

  std::vector<double> latencies;
  latencies.reserve(total);
  size_t allowed = 0;
  const auto start = Clock::now();
  for (size_t i = 0; i < total; ++i) {
    const auto t0 = Clock::now();
    auto request = rgpu::admission::parse_authz_request(corpus[i % corpus.size()]);
    if (request && rgpu::admission::decide(grants, "web", *request, options).allow) ++allowed;
    latencies.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  const double ours = std::chrono::duration<double>(Clock::now() - start).count();

  const auto floor_start = Clock::now();
  const size_t privileged = floor_pass(corpus, total);
  const double floor = std::chrono::duration<double>(Clock::now() - floor_start).count();

  std::sort(latencies.begin(), latencies.end());
  std::printf("in-process decide/floor time %.2f   (no target)   decide %.0f/s, floor %.0f/s (%zu privileged)\n",
              ours / floor, total / ours, total / floor, privileged);
  std::printf("in-process latency: p50 %.2f us, p99 %.2f us, max %.1f us   (target p99 < 5 us; %zu allowed of %zu)\n",
              latencies[total / 2], latencies[total * 99 / 100], latencies.back(), allowed, total);
  return 0;
}
