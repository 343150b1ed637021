// Decisions per second and the latency of one decision, in-process, over the corpus captured
// from the real docker CLI repeated to 100,000 requests; against a peer measured in the same
// run: parsing the same AuthZReq envelopes and bodies into nlohmann DOM trees.
// Target: at least 100,000 decisions per second on one core.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "admission/decide.h"

using Clock = std::chrono::steady_clock;

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
  rgpu::admission::GrantSet grants;
  grants.grants = {{"web", "nvidia.com/gpu=all", false, ""}, {"web", "rediacc.io/dri=renderD128", false, ""}};

  std::vector<double> latencies;
  latencies.reserve(total);
  size_t allowed = 0;
  const auto start = Clock::now();
  for (size_t i = 0; i < total; ++i) {
    const auto t0 = Clock::now();
    auto request = rgpu::admission::parse_authz_request(corpus[i % corpus.size()]);
    if (request && rgpu::admission::decide(grants, "web", *request).allow) ++allowed;
    latencies.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  const double ours = std::chrono::duration<double>(Clock::now() - start).count();

  size_t peer_objects = 0;
  const auto peer_start = Clock::now();
  for (size_t i = 0; i < total; ++i) {
    auto envelope = nlohmann::json::parse(corpus[i % corpus.size()]);
    auto body = rgpu::admission::base64_decode(envelope.value("RequestBody", ""));
    if (body && !body->empty()) peer_objects += nlohmann::json::parse(*body).size();
  }
  const double peer = std::chrono::duration<double>(Clock::now() - peer_start).count();

  std::sort(latencies.begin(), latencies.end());
  std::printf("decide: %.0f decisions/s (p50 %.1f us, p99 %.1f us, %zu allowed of %zu)\n", total / ours,
              latencies[total / 2], latencies[total * 99 / 100], allowed, total);
  std::printf("peer, nlohmann DOM parse of the same requests: %.0f requests/s (%zu members)\n", total / peer,
              peer_objects);
  std::printf("ratio decide/peer: %.2f   target: >= 100000 decisions/s\n", (total / ours) / (total / peer));
  return 0;
}
