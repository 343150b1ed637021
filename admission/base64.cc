#include "admission/base64.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <array>
#include <cstdint>

namespace rgpu::admission {
namespace {

// One table per position in a quad, each digit already shifted into place, so a quad decodes with
// four loads and three ORs; an invalid character sets bit 24, which no digit reaches.
constexpr uint32_t kNotBase64 = 1u << 24;

constexpr std::array<uint32_t, 256> base64_table(unsigned shift) {
  std::array<uint32_t, 256> t{};
  for (auto& v : t) v = kNotBase64;
  const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (uint32_t i = 0; i < 64; ++i) t[static_cast<unsigned char>(alphabet[i])] = i << shift;
  return t;
}

constexpr std::array<std::array<uint32_t, 256>, 4> kBase64 = {base64_table(18), base64_table(12), base64_table(6),
                                                              base64_table(0)};

uint32_t decode_quad(const unsigned char* q) {
  return kBase64[0][q[0]] | kBase64[1][q[1]] | kBase64[2][q[2]] | kBase64[3][q[3]];
}

#if defined(__x86_64__)
// AVX2, 32 characters to 24 bytes a step. Each character is judged by its two nibbles: a table
// for the low nibble and one for the high nibble share a bit exactly when the pair is no base64
// character. A third table, indexed by the high nibble ('/' moved down by one), gives what to add
// to make the character its 6-bit value; then four values are packed into three bytes.
__attribute__((target("avx2"))) bool decode_blocks_avx2(const unsigned char* in, size_t blocks, char* out) {
  const __m256i lut_lo =
      _mm256_setr_epi8(0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x13, 0x1A, 0x1B, 0x1B, 0x1B, 0x1A,
                       0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x13, 0x1A, 0x1B, 0x1B, 0x1B, 0x1A);
  const __m256i lut_hi =
      _mm256_setr_epi8(0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10,
                       0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10);
  const __m256i lut_roll = _mm256_setr_epi8(0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16, 19, 4, -65,
                                            -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  const __m256i slash = _mm256_set1_epi8('/');
  const __m256i pairs = _mm256_set1_epi32(0x01400140);  // (v0 << 6) | v1 in each 16 bits
  const __m256i quads = _mm256_set1_epi32(0x00011000);  // (w0 << 12) | w1 in each 32 bits
  const __m256i order = _mm256_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1, 2, 1, 0, 6, 5, 4, 10,
                                         9, 8, 14, 13, 12, -1, -1, -1, -1);
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7);
  __m256i bad = _mm256_setzero_si256();
  for (size_t b = 0; b < blocks; ++b) {
    const __m256i s = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + 32 * b));
    const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(s, 4), nibble);
    const __m256i lo = _mm256_and_si256(s, nibble);
    bad = _mm256_or_si256(bad, _mm256_and_si256(_mm256_shuffle_epi8(lut_lo, lo), _mm256_shuffle_epi8(lut_hi, hi)));
    const __m256i roll = _mm256_shuffle_epi8(lut_roll, _mm256_add_epi8(_mm256_cmpeq_epi8(s, slash), hi));
    const __m256i values = _mm256_add_epi8(s, roll);
    const __m256i packed = _mm256_madd_epi16(_mm256_maddubs_epi16(values, pairs), quads);
    const __m256i bytes = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(packed, order), lanes);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 24 * b), bytes);  // 24 bytes, and 8 of slack
  }
  return _mm256_testz_si256(bad, bad) != 0;
}

bool cpu_has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}
#else
bool decode_blocks_avx2(const unsigned char*, size_t, char*) { return false; }
bool cpu_has_avx2() { return false; }
#endif

Result<std::string> decode(std::string_view text, bool vector) {
  if (text.size() % 4 != 0) return fail("RequestBody is not base64");
  if (text.empty()) return std::string();
  const size_t pad = text.back() != '=' ? 0 : text[text.size() - 2] == '=' ? 2 : 1;
  std::string out(text.size() / 4 * 3 - pad, '\0');
  const auto* in = reinterpret_cast<const unsigned char*>(text.data());
  const size_t full = pad ? text.size() - 4 : text.size();
  uint32_t bad = 0;
  size_t i = 0;
  size_t o = 0;
  if (vector && out.size() >= 32) {
    // Whole blocks while a 32-byte store still ends inside the output; the rest a quad at a time.
    const size_t blocks = std::min(full / 32, (out.size() - 32) / 24 + 1);
    if (!decode_blocks_avx2(in, blocks, out.data())) return fail("RequestBody is not base64");
    i = blocks * 32;
    o = blocks * 24;
  }
  for (; i < full; i += 4, o += 3) {
    const uint32_t v = decode_quad(in + i);
    bad |= v;
    out[o] = static_cast<char>(v >> 16);
    out[o + 1] = static_cast<char>(v >> 8);
    out[o + 2] = static_cast<char>(v);
  }
  if (pad) {
    // The last quad: '=' stands for zero bits, and only in the padded positions.
    const unsigned char zero = 'A';
    const unsigned char last[4] = {in[full], in[full + 1], pad == 2 ? zero : in[full + 2], zero};
    const uint32_t v = decode_quad(last);
    bad |= v;
    out[o] = static_cast<char>(v >> 16);
    if (pad == 1) out[o + 1] = static_cast<char>(v >> 8);
  }
  if (bad & kNotBase64) return fail("RequestBody is not base64");
  return out;
}

}  // namespace

Result<std::string> base64_decode(std::string_view text) { return decode(text, cpu_has_avx2()); }

Result<std::string> base64_decode_scalar(std::string_view text) { return decode(text, false); }

}  // namespace rgpu::admission
