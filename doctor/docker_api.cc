#include "doctor/docker_api.h"

#include <cctype>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace rgpu::doctor {
namespace {

// An image reference keeps its letters; anything else an HTTP target cannot carry is escaped.
std::string escaped(const std::string& image) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : image) {
    if (std::isalnum(c) || std::string_view("._-/:@").find(static_cast<char>(c)) != std::string_view::npos) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace

Result<std::vector<std::string>> image_env(const std::string& socket, const std::string& image) {
  auto reply = docker_call(socket, "GET", "/images/" + escaped(image) + "/json");
  if (!reply) return fail(reply.error().message + ".");
  if (reply->status == 404) {
    return fail("the Docker daemon at " + socket + " has no image \"" + image + "\"; pull it there first.");
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
  } catch (const std::exception& e) {
    return fail("reading image \"" + image + "\" from the Docker daemon at " + socket + " failed (" + e.what() + ").");
  }
}

}  // namespace rgpu::doctor
