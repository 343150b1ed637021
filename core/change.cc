#include "core/change.h"

namespace rgpu {

const char* to_string(Change::Kind kind) {
  switch (kind) {
    case Change::Kind::write: return "write";
    case Change::Kind::remove: return "remove";
    case Change::Kind::unchanged: return "unchanged";
    case Change::Kind::run: return "run";
  }
  return "unknown";
}

}  // namespace rgpu
