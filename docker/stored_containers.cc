#include "docker/stored_containers.h"

#include <nlohmann/json.hpp>

#include "core/state_paths.h"
#include "docker/client.h"

namespace rgpu::docker {
namespace {

// The daemon's JSON answer; null for a 404 (a container removed between the list and its inspect).
Result<nlohmann::json> get_json(const std::string& socket, const std::string& target) {
  RGPU_TRY_ASSIGN(auto reply, docker_call(socket, "GET", target));
  if (reply.status == 404) return nlohmann::json();
  if (reply.status != 200)
    return fail("the Docker daemon at " + socket + " answered HTTP " + std::to_string(reply.status) + " to GET " +
                target + ": " + reply.body);
  auto doc = nlohmann::json::parse(reply.body, nullptr, false);
  if (doc.is_discarded()) return fail("the Docker daemon at " + socket + " answered GET " + target + " with no JSON");
  return doc;
}

std::vector<std::string> cdi_names_of(const nlohmann::json& inspect) {
  std::vector<std::string> out;
  const auto hc = inspect.find("HostConfig");
  if (hc == inspect.end() || !hc->is_object()) return out;
  const auto requests = hc->find("DeviceRequests");
  if (requests == hc->end() || !requests->is_array()) return out;
  for (const auto& r : *requests) {
    if (!r.is_object() || r.value("Driver", std::string()) != "cdi") continue;
    if (const auto ids = r.find("DeviceIDs"); ids != r.end() && ids->is_array()) {
      for (const auto& id : *ids) {
        if (id.is_string()) out.push_back(id.get<std::string>());
      }
    }
  }
  return out;
}

Result<void> post(const std::string& socket, const std::string& target, const std::string& body,
                  std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  RGPU_TRY_ASSIGN(auto reply, docker_call(socket, "POST", target, body, timeout));
  // 304: already stopped.
  if (reply.status >= 300 && reply.status != 304)
    return fail("the Docker daemon at " + socket + " refused POST " + target + " (HTTP " +
                std::to_string(reply.status) + "): " + reply.body);
  return {};
}

}  // namespace

Result<std::vector<StoredContainer>> stored_containers(const std::string& socket) {
  RGPU_TRY_ASSIGN(auto list, get_json(socket, "/containers/json?all=1"));
  std::vector<StoredContainer> out;
  if (!list.is_array()) return out;
  for (const auto& summary : list) {
    if (!summary.is_object()) continue;
    const std::string id = summary.value("Id", std::string());
    if (id.empty()) continue;
    RGPU_TRY_ASSIGN(auto inspect, get_json(socket, "/containers/" + escaped_segment(id) + "/json"));
    if (!inspect.is_object()) continue;
    const auto state = inspect.find("State");
    const bool running = state != inspect.end() && state->is_object() && state->value("Running", false);
    out.push_back({id, inspect.value("Name", std::string()), running, cdi_names_of(inspect), inspect.dump()});
  }
  return out;
}

Result<std::vector<StoredContainer>> stored_containers_at(const std::string& docker_host) {
  return docker_socket(docker_host).and_then([](const std::string& socket) { return stored_containers(socket); });
}

Result<void> stop_for_good(const std::string& socket, const std::string& id) {
  const std::string at = "/containers/" + escaped_segment(id);
  if (auto ok = post(socket, at + "/update", R"({"RestartPolicy":{"Name":"no"}})"); !ok) return ok;
  // dockerd waits its stop timeout (10 s by default) before it kills a process that ignores SIGTERM.
  return post(socket, at + "/stop", "", std::chrono::seconds(60));
}

}  // namespace rgpu::docker
