#include <catch2/catch.hpp>

#include "core/split.h"

using rgpu::EmptyFields;
using rgpu::split;
using Fields = std::vector<std::string>;

TEST_CASE("split: empty fields kept or dropped as asked, a last separator opening none") {
  CHECK(split("a,,b,", ',', EmptyFields::keep) == Fields{"a", "", "b"});
  CHECK(split("a,,b,", ',', EmptyFields::drop) == Fields{"a", "b"});
  CHECK(split(",a", ',', EmptyFields::keep) == Fields{"", "a"});
  CHECK(split(",", ',', EmptyFields::keep) == Fields{""});
  CHECK(split(",,", ',', EmptyFields::drop).empty());
  CHECK(split("", ',', EmptyFields::keep).empty());
  CHECK(split("one", ',', EmptyFields::keep) == Fields{"one"});
  // A command line's arguments: NUL-separated, an empty argument kept.
  CHECK(split(std::string("ls\0\0-l\0", 7), '\0', EmptyFields::keep) == Fields{"ls", "", "-l"});
}
