#pragma once
// Expected failures are values: Result<T> is tl::expected so it can become std::expected.

#include <string>
#include <tl/expected.hpp>
#include <utility>

namespace rgpu {

/// A failure the user can act on: `message` is one sentence naming the path or value at fault
/// and what to do. `sys_errno` is the errno behind it, 0 when none.
struct Error {
  std::string message;
  int sys_errno = 0;
};

template <class T>
using Result = tl::expected<T, Error>;

/// Builds the error side of a Result.
inline tl::unexpected<Error> fail(std::string message, int sys_errno = 0) {
  return tl::unexpected<Error>(Error{std::move(message), sys_errno});
}

// Forwarding a failure is the most written line in a Result codebase; a function cannot return
// from its caller, so these two macros are the one place it is spelled out.

/// RGPU_TRY(expr): when the Result `expr` failed, the enclosing function returns its error.
#define RGPU_TRY(...)                                                             \
  do {                                                                            \
    if (auto&& rgpu_try_result = (__VA_ARGS__); !rgpu_try_result)                 \
      return ::tl::unexpected<::rgpu::Error>(std::move(rgpu_try_result).error()); \
  } while (false)

/// RGPU_TRY_ASSIGN(decl, expr): `decl` (`auto x`, `const auto x`, `y`) takes the value of the
/// Result `expr`; when it failed, the enclosing function returns its error instead.
#define RGPU_TRY_ASSIGN(decl, ...) RGPU_TRY_ASSIGN_AS(RGPU_TRY_NAME(rgpu_try_, __LINE__), decl, __VA_ARGS__)
#define RGPU_TRY_NAME(a, b) RGPU_TRY_NAME_JOIN(a, b)
#define RGPU_TRY_NAME_JOIN(a, b) a##b
#define RGPU_TRY_ASSIGN_AS(tmp, decl, ...)                                  \
  auto tmp = (__VA_ARGS__);                                                 \
  if (!tmp) return ::tl::unexpected<::rgpu::Error>(std::move(tmp).error()); \
  decl = std::move(*tmp)

/// True when errno `e` only says "there is no such file" (ENOENT, or ENOTDIR: a component of the
/// path is not a directory): the one definition every reader uses to treat a path as absent.
bool is_not_found_errno(int e);

/// The same for a failure.
bool is_not_found(const Error& error);

}  // namespace rgpu
