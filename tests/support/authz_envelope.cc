#include "tests/support/authz_envelope.h"

namespace rgpu::test {

std::string base64(const std::string& bytes) {
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string padded = bytes, out;
  const size_t pad = (3 - padded.size() % 3) % 3;
  padded.append(pad, '\0');
  for (size_t i = 0; i < padded.size(); i += 3) {
    const unsigned v = static_cast<unsigned char>(padded[i]) << 16 | static_cast<unsigned char>(padded[i + 1]) << 8 |
                       static_cast<unsigned char>(padded[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) out += alphabet[(v >> shift) & 63];
  }
  out.replace(out.size() - pad, pad, std::string(pad, '='));
  return out;
}

std::string authz_post(const std::string& uri, const std::string& body) {
  return R"({"RequestMethod":"POST","RequestUri":")" + uri +
         R"(","RequestHeaders":{"Content-Type":"application/json"},"RequestBody":")" + base64(body) + "\"}";
}

}  // namespace rgpu::test
