#include "cdi/spec_version.h"

#include <map>

namespace rgpu::cdi {

int spec_version_number(std::string_view version) {
  static const std::map<std::string_view, int> kKnown = {{"0.1.0", 10},  {"0.2.0", 20}, {"0.3.0", 30}, {"0.4.0", 40},
                                                         {"0.5.0", 50},  {"0.6.0", 60}, {"0.7.0", 70}, {"0.8.0", 80},
                                                         {"1.0.0", 100}, {"1.1.0", 110}};
  const auto it = kKnown.find(version.starts_with("v") ? version.substr(1) : version);
  return it == kKnown.end() ? 0 : it->second;
}

std::string spec_version_text(int number) {
  return std::to_string(number / 100) + "." + std::to_string(number / 10 % 10) + ".0";
}

}  // namespace rgpu::cdi
