#include "docker/images.h"

#include <cerrno>
#include <nlohmann/json.hpp>

namespace rgpu::docker {

// An image reference keeps its letters and separators ("registry:5000/team/img:v1@sha256:…").
Result<std::vector<std::string>> image_env(const std::string& socket, const std::string& image) {
  auto reply = docker_call(socket, "GET", "/images/" + escaped_segment(image, "._-/:@") + "/json");
  if (!reply) return fail(reply.error().message + ".");
  if (reply->status == 404) {
    return fail("the Docker daemon at " + socket + " has no image \"" + image + "\"; pull it there first.", ENOENT);
  }
  if (reply->status != 200) {
    return fail("the Docker daemon at " + socket + " answered " + std::to_string(reply->status) + " for image \"" +
                image + "\": " + reply->body);
  }
  try {
    const auto doc = nlohmann::json::parse(reply->body);
    std::vector<std::string> env;
    if (auto config = doc.find("Config"); config != doc.end() && config->is_object()) {
      if (auto e = config->find("Env"); e != config->end() && e->is_array()) {
        for (const auto& item : *e) {
          if (item.is_string()) env.push_back(item.get<std::string>());
        }
      }
    }
    return env;
  } catch (const std::exception&) {
    return fail("the Docker daemon at " + socket + " answered for image \"" + image +
                "\" with something that is not JSON; check that the address is a Docker daemon.");
  }
}

}  // namespace rgpu::docker
