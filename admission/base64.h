#pragma once
// RequestBody's base64: AVX2 where the CPU has it (32 characters a step), table lookups else.

#include <string>
#include <string_view>

#include "core/result.h"

namespace rgpu::admission {

/// Standard base64 (with padding) to bytes; an error on anything else.
Result<std::string> base64_decode(std::string_view text);

/// The same, table lookups only: the judge of the AVX2 path in the tests.
Result<std::string> base64_decode_scalar(std::string_view text);

}  // namespace rgpu::admission
