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

/// True when errno `e` only says "there is no such file" (ENOENT, or ENOTDIR: a component of the
/// path is not a directory): the one definition every reader uses to treat a path as absent.
bool is_not_found_errno(int e);

/// The same for a failure.
bool is_not_found(const Error& error);

}  // namespace rgpu
