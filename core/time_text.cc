#include "core/time_text.h"

#include <cstdio>
#include <ctime>

namespace rgpu {

std::string format_rfc3339_utc(SystemTime t) {
  std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  ::gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::optional<SystemTime> parse_rfc3339_utc(std::string_view text) {
  std::tm tm{};
  int consumed = 0;
  std::string s(text);
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &tm.tm_sec, &consumed) != 6 ||
      consumed != static_cast<int>(s.size())) {
    return std::nullopt;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return std::chrono::system_clock::from_time_t(::timegm(&tm));
}

std::string format_age(std::chrono::seconds age) {
  long s = static_cast<long>(age.count());
  if (s < 0) return "in the future";
  if (s < 5) return "just now";
  if (s < 60) return std::to_string(s) + "s ago";
  if (s < 3600) return std::to_string(s / 60) + "m ago";
  if (s < 86400) return std::to_string(s / 3600) + "h ago";
  return std::to_string(s / 86400) + "d ago";
}

}  // namespace rgpu
