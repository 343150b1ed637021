// The floor admit --jsonl is held to: per line, parse the AuthZReq envelope and the base64-decoded
// body with simdjson's DOM (scalar base64, one reused buffer and parser), read one field, answer
// one line. No decision: what is left of admit's time above this is the gate's own work.
#include <simdjson.h>

#include <array>
#include <cstdio>
#include <iostream>
#include <string>

namespace {

std::array<int, 256> table() {
  std::array<int, 256> t{};
  t.fill(-1);
  const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(alphabet[i])] = i;
  return t;
}

bool decode(std::string_view in, std::string& out) {
  static const std::array<int, 256> t = table();
  out.clear();
  unsigned acc = 0;
  int bits = 0;
  for (const char c : in) {
    if (c == '=') break;
    const int v = t[static_cast<unsigned char>(c)];
    if (v < 0) return false;
    acc = (acc << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return true;
}

}  // namespace

int main() {
  std::ios::sync_with_stdio(false);
  simdjson::dom::parser envelope_parser, body_parser;
  std::string line, body;
  size_t privileged = 0;
  while (std::getline(std::cin, line)) {
    simdjson::dom::element envelope;
    std::string_view body64;
    bool refuse = envelope_parser.parse(line).get(envelope) != simdjson::SUCCESS;
    if (!refuse && envelope["RequestBody"].get(body64) == simdjson::SUCCESS && decode(body64, body) && !body.empty()) {
      simdjson::dom::element root;
      bool p = false;
      if (body_parser.parse(body).get(root) == simdjson::SUCCESS && root["HostConfig"]["Privileged"].get(p) == 0 && p)
        ++privileged;
    }
    std::fputs(refuse ? "{\"Allow\":false}\n" : "{\"Allow\":true}\n", stdout);
  }
  std::fprintf(stderr, "floor: %zu privileged\n", privileged);
  return 0;
}
