#include "tests/support/fake_world.h"

namespace rgpu::test {

admission::Known<Result<std::string>> FakeWorld::stored_container(std::string_view name) {
  asked.emplace_back(name);
  if (daemon) return daemon->inspect(name);
  if (stored) return Result<std::string>(*stored);
  return std::nullopt;
}

admission::Known<Result<std::string>> FakeWorld::volume_mount(std::string_view name) {
  const auto it = volumes.find(std::string(name));
  if (it == volumes.end()) return std::nullopt;
  return Result<std::string>(it->second);
}

std::vector<std::string> FakeWorld::review_items(const std::string&) { return carried; }

admission::Known<std::vector<std::string>> FakeWorld::defined_names() { return names; }

admission::Known<admission::Refusal> FakeWorld::build_refusal(const PolicyRules&) {
  ++builds_asked;
  return build_verdict;
}

}  // namespace rgpu::test
