// The envelope scan must read exactly what the JSON tree reads wherever it answers, and leave the
// rest to the tree: every case here is judged by parse_authz_request_tree.

#include <catch2/catch.hpp>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "admission/authz_request.h"
#include "admission/envelope_scan.h"
#include "tests/support/build_paths.h"

using namespace rgpu::admission;

namespace {

// Both readers give the same request, or the same error.
void same_as_tree(const std::string& envelope) {
  INFO(envelope);
  const auto fast = parse_authz_request(envelope);
  const auto tree = parse_authz_request_tree(envelope);
  REQUIRE(fast.has_value() == tree.has_value());
  if (!fast) {
    CHECK(fast.error().message == tree.error().message);
    return;
  }
  CHECK(fast->method == tree->method);
  CHECK(fast->uri == tree->uri);
  CHECK(fast->content_type == tree->content_type);
  CHECK(fast->content_length == tree->content_length);
  CHECK(fast->body == tree->body);
}

std::vector<std::string> corpus() {
  std::ifstream in(rgpu::test::fixture_path("docker-cli/corpus.jsonl"));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// What dockerd's json.Marshal of authorization.Request writes: no spaces, keys in struct order,
// headers sorted, & < > escaped as \u0026 \u003c \u003e.
const std::string kDockerd =
    R"({"User":"alice","UserAuthNMethod":"TLS","RequestMethod":"POST","RequestUri":"/v1.47/containers/create?name=web",)"
    R"("RequestBody":"eyJJbWFnZSI6ImltZyJ9","RequestHeaders":{"Content-Length":"17","Content-Type":"application/json",)"
    R"J("User-Agent":"Docker-Client/28.0.1 (linux)"},"RequestPeerCertificates":null})J";

}  // namespace

TEST_CASE("envelope: dockerd's and the corpus's envelopes are scanned, and read as the tree reads them") {
  const auto lines = corpus();
  REQUIRE(lines.size() >= 20);
  for (const auto& line : lines) {
    CHECK(scan_envelope(line).has_value());
    same_as_tree(line);
  }
  const auto f = scan_envelope(kDockerd);
  REQUIRE(f);
  CHECK(f->method == "POST");
  CHECK(f->uri == "/v1.47/containers/create?name=web");
  CHECK(f->content_type == "application/json");
  CHECK(f->content_length == "17");
  CHECK(f->body64 == "eyJJbWFnZSI6ImltZyJ9");
  same_as_tree(kDockerd);
}

TEST_CASE("envelope: what the scan does not take is read by the tree") {
  const std::vector<std::string> left_to_tree = {
      // An escape anywhere: Go writes & as \u0026 in a query.
      R"({"RequestMethod":"GET","RequestUri":"/v1.47/containers/json?all=1\u0026size=1"})",
      R"({"Request\u0042ody":"e30=","RequestMethod":"POST","RequestUri":"/x"})",
      // A body that is not all of its string.
      R"({"RequestMethod":"POST","RequestUri":"/x","RequestBody":"e30\"="})",
      // Two bodies: only one is checked by the decoder.
      R"({"RequestMethod":"POST","RequestUri":"/x","RequestBody":"e30=","RequestBody":"eyJ9"})",
      // Numbers, arrays, nesting, non-ASCII, control bytes, trailing data, not an object.
      R"({"RequestMethod":"POST","RequestUri":"/x","ResponseStatusCode":200})",
      R"({"RequestMethod":"POST","RequestUri":"/x","RequestPeerCertificates":[]})",
      R"({"RequestMethod":"POST","RequestUri":"/x","RequestHeaders":{"A":{"B":"c"}}})",
      "{\"RequestMethod\":\"POST\",\"RequestUri\":\"/caf\xc3\xa9\"}",
      "{\"RequestMethod\":\"POST\",\"RequestUri\":\"/\xff\"}",
      "{\"RequestMethod\":\"POST\",\"RequestUri\":\"/\x01\"}",
      R"({"RequestMethod":"POST","RequestUri":"/x"} {})",
      R"({"RequestMethod":"POST","RequestUri":"/x",})",
      R"(["RequestMethod","POST"])",
      "",
  };
  for (const auto& envelope : left_to_tree) {
    INFO(envelope);
    CHECK_FALSE(scan_envelope(envelope).has_value());
    same_as_tree(envelope);
  }
}

TEST_CASE("envelope: the shapes the scan takes read as the tree reads them") {
  const std::vector<std::string> taken = {
      R"({})",
      " \t\r\n{ \"RequestMethod\" : \"POST\" , \"RequestUri\" : \"/x\" } \n",
      // The last of repeated keys wins; a value of another kind leaves the field as it was.
      R"({"RequestMethod":"GET","RequestMethod":"POST","RequestUri":"/x","RequestUri":null})",
      R"({"RequestMethod":"POST","RequestUri":"/x","RequestBody":null,"RequestBody":"e30="})",
      R"({"RequestMethod":"POST","RequestUri":"/x","RequestBody":""})",
      R"({"RequestMethod":{"a":"b"},"RequestUri":"/x"})",
      // Any case of the header's name; a later header of another kind keeps the earlier one.
      R"({"RequestMethod":"POST","RequestUri":"/x","RequestHeaders":{"content-TYPE":"text/plain","Content-Type":null}})",
      R"({"RequestMethod":"POST","RequestUri":"/x","RequestHeaders":{},"RequestHeaders":true})",
      R"({"RequestMethod":"POST","RequestUri":"/x","Other":{"Content-Type":"text/plain"}})",
      R"({"RequestMethod":"POST","RequestUri":""})",
      // Scanned, but the decoder refuses the body: the tree is asked, and gives the error.
      R"({"RequestMethod":"POST","RequestUri":"/x","RequestBody":"e30"})",
      R"({"RequestMethod":"POST","RequestUri":"/x","RequestBody":"e30\u003d"})",
  };
  for (const auto& envelope : taken) {
    INFO(envelope);
    CHECK(scan_envelope(envelope).has_value());
    same_as_tree(envelope);
  }
}

TEST_CASE("envelope: mutated envelopes read the same through the scan and the tree") {
  const std::vector<std::string> keys = {"RequestMethod", "RequestUri", "RequestBody", "RequestHeaders", "User",
                                         "requestUri",    "X"};
  const std::vector<std::string> values = {R"("POST")",
                                           R"("/v1.41/containers/create")",
                                           R"("eyJIb3N0Q29uZmlnIjp7fX0=")",
                                           R"("e30=")",
                                           "null",
                                           "true",
                                           "false",
                                           R"({"Content-Type":"application/json"})",
                                           R"({"content-type":"text/plain","X":null})",
                                           "1",
                                           "[]",
                                           R"("a\"b")",
                                           R"("\u0041")",
                                           R"("")"};
  const std::string noise = "\"\\{}[],: \t\x01\xff\xc3\x80nulltrue0e=+/A";
  std::mt19937 rng(17);
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  size_t scanned = 0;
  const int rounds = 60000;
  for (int i = 0; i < rounds; ++i) {
    std::string envelope = "{";
    const size_t members = pick(5);
    for (size_t m = 0; m < members; ++m) {
      if (m) envelope += pick(4) ? "," : ", ";
      envelope += "\"" + keys[pick(keys.size())] + "\":" + (pick(4) ? "" : " ") + values[pick(values.size())];
    }
    envelope += "}";
    for (size_t cuts = pick(3); cuts-- > 0 && !envelope.empty();) {
      const size_t at = pick(envelope.size());
      switch (pick(3)) {
        case 0: envelope[at] = noise[pick(noise.size())]; break;
        case 1: envelope.erase(at, 1); break;
        default: envelope.insert(at, 1, noise[pick(noise.size())]);
      }
    }
    if (scan_envelope(envelope)) ++scanned;
    same_as_tree(envelope);
  }
  // Both sides of the scan were exercised.
  CHECK(scanned > rounds / 4);
  CHECK(scanned < rounds);
}
