#include "canary/canary.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/joined.h"
#include "core/time_text.h"
#include "docker/client.h"

namespace rgpu::canary {
namespace {

// What the container prints: every device node it has, with its numbers, then what nvidia-smi
// says of the GPUs (or that the image has none). busybox and coreutils both print
// "crw-rw---- 1 root 44 226, 128 … renderD128" for a device.
constexpr const char* kScript =
    "echo '--- dev'; ls -lR /dev 2>/dev/null; echo '--- nvidia-smi'; "
    "if command -v nvidia-smi >/dev/null 2>&1; then nvidia-smi -L 2>&1; echo \"exit $?\"; else echo absent; fi";

std::string message_of(const docker::DockerReply& reply) {
  const auto body = nlohmann::json::parse(reply.body, nullptr, false);
  if (body.is_object() && body.contains("message") && body["message"].is_string())
    return body["message"].get<std::string>();
  return "HTTP " + std::to_string(reply.status) + " " + reply.body;
}

std::string container_name(const std::string& repo) {
  static std::atomic<unsigned> counter{0};
  return "rediacc-gpu-canary-" + repo + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

std::string create_body(const CanaryRequest& r) {
  nlohmann::json body = {
      {"Image", r.image},
      {"Cmd", {"sh", "-c", kScript}},
      {"Labels", {{"io.rediacc.gpu.canary", r.device}}},
      {"HostConfig", {{"NetworkMode", "none"}, {"DeviceRequests", {{{"Driver", "cdi"}, {"DeviceIDs", {r.device}}}}}}}};
  return body.dump();
}

// The section of the output after "--- NAME" up to the next section.
std::string section(const std::string& out, const std::string& name) {
  const std::string mark = "--- " + name + "\n";
  const auto start = out.find(mark);
  if (start == std::string::npos) return {};
  const auto from = start + mark.size();
  const auto end = out.find("\n--- ", from);
  return out.substr(from, end == std::string::npos ? std::string::npos : end + 1 - from);
}

// The name's nodes missing inside, by number: "/dev/dri/renderD128 (226:128)". A name /etc/cdi
// does not define, or whose nodes this machine lacks, proves nothing by running: it says so.
std::vector<std::string> missing_nodes(const RootFs& fs, const cdi::SpecIndex& specs, const std::string& device,
                                       const std::map<std::pair<unsigned, unsigned>, std::string>& inside,
                                       std::vector<std::string>& seen, std::string& unjudged) {
  std::vector<std::string> missing;
  const auto* d = cdi::find_device(specs, device);
  if (!d) {
    unjudged = device + " is not defined in /etc/cdi, so what it puts inside cannot be checked";
    return missing;
  }
  size_t on_machine = 0;
  for (const auto& node : d->device_nodes) on_machine += fs.char_device(node).has_value();
  if (on_machine == 0) {
    unjudged = "none of the name's device nodes (" + joined(d->device_nodes) +
               ") is a character device on this machine, so none can be looked for inside";
    return missing;
  }
  for (const auto& node : d->device_nodes) {
    const auto n = fs.char_device(node);
    if (!n) continue;
    const std::string numbers = std::to_string(n->major) + ":" + std::to_string(n->minor);
    const auto found = inside.find({n->major, n->minor});
    if (found == inside.end()) {
      missing.push_back(node + " (" + numbers + ")");
    } else {
      seen.push_back(found->second + " (" + numbers + ")");
    }
  }
  return missing;
}

// The proof in the container's output: the nodes by number, and nvidia-smi's GPUs when it is there.
void judge_output(const RootFs& fs, const cdi::SpecIndex& specs, const std::string& out, CanaryResult& r) {
  std::vector<std::string> seen;
  std::string unjudged;
  const auto missing = missing_nodes(fs, specs, r.device, devices_listed(section(out, "dev")), seen, unjudged);
  if (!unjudged.empty()) {
    r.stage = "devices";
    r.detail = "the container ran, but " + unjudged;
    return;
  }
  if (!missing.empty()) {
    r.stage = "devices";
    r.detail = "the container ran without " + joined(missing) + ": the name's devices were not injected";
    return;
  }
  const auto smi = section(out, "nvidia-smi");
  const bool has_smi = !smi.empty() && smi != "absent\n";
  if (has_smi) {
    const bool exited_zero = smi.starts_with("exit 0\n") || smi.find("\nexit 0\n") != std::string::npos;
    if (!exited_zero || smi.find("GPU ") == std::string::npos) {
      r.stage = "nvidia-smi";
      r.detail = "nvidia-smi inside lists no GPU: " + smi.substr(0, 300);
      return;
    }
  }
  r.ok = true;
  r.stage = "done";
  r.detail = "inside: " + joined(seen);
  if (has_smi) r.detail += "; nvidia-smi lists the GPU";
}

}  // namespace

std::map<std::pair<unsigned, unsigned>, std::string> devices_listed(const std::string& listing) {
  std::map<std::pair<unsigned, unsigned>, std::string> out;
  std::istringstream in(listing);
  std::string line, dir = "/dev";
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == ':' && line.front() == '/') {
      dir = line.substr(0, line.size() - 1);
      continue;
    }
    if (line.empty() || line.front() != 'c') continue;
    // "crw-rw---- 1 root 44 226, 128 Dec  2 15:00 renderD128": the numbers are "N," then "M".
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string x; words >> x;) w.push_back(x);
    for (size_t i = 0; i + 1 < w.size(); ++i) {
      if (w[i].size() < 2 || w[i].back() != ',') continue;
      try {
        const auto major = static_cast<unsigned>(std::stoul(w[i].substr(0, w[i].size() - 1)));
        const auto minor = static_cast<unsigned>(std::stoul(w[i + 1]));
        out.emplace(std::pair{major, minor}, dir + "/" + w.back());
      } catch (const std::exception&) {
      }
      break;
    }
  }
  return out;
}

std::string demultiplexed(const std::string& stream) {
  if (stream.empty() || static_cast<unsigned char>(stream[0]) > 2 || stream.size() < 8) return stream;
  std::string out;
  size_t at = 0;
  while (at + 8 <= stream.size()) {
    const auto b = [&](size_t i) { return static_cast<unsigned char>(stream[at + i]); };
    if (b(0) > 2 || b(1) || b(2) || b(3)) return stream;  // not framed: a TTY's raw text
    const size_t length = (size_t{b(4)} << 24) | (size_t{b(5)} << 16) | (size_t{b(6)} << 8) | size_t{b(7)};
    out += stream.substr(at + 8, length);
    at += 8 + length;
  }
  return out;
}

CanaryResult run_canary(const RootFs& fs, const cdi::SpecIndex& specs, const CanaryRequest& req) {
  CanaryResult r;
  r.repo = req.repo;
  r.device = req.device;
  r.image = req.image;
  r.at = format_rfc3339_utc(std::chrono::system_clock::now());
  const auto started = std::chrono::steady_clock::now();
  const auto finish = [&] {
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (r.ok) r.last_success = r.at;
    return r;
  };
  const auto failed = [&](std::string stage, std::string detail) {
    r.stage = std::move(stage);
    r.detail = std::move(detail);
    return finish();
  };
  auto socket = docker::docker_socket(req.docker_host);
  if (!socket) return failed("create", socket.error().message);
  const auto call = [&](std::string_view method, const std::string& target, const std::string& body = "") {
    return docker::docker_call(*socket, method, target, body, req.timeout);
  };
  auto created = call("POST", "/containers/create?name=" + container_name(req.repo), create_body(req));
  if (!created) return failed("create", created.error().message);
  if (created->status != 201) return failed("create", message_of(*created));
  const auto doc = nlohmann::json::parse(created->body, nullptr, false);
  if (!doc.is_object() || !doc.contains("Id") || !doc["Id"].is_string())
    return failed("create", "the daemon's answer names no container: " + created->body);
  const std::string id = doc["Id"].get<std::string>();
  struct Remove {  // the container goes whatever happens next
    std::function<void()> run;
    ~Remove() { run(); }
  } remove{[&] { (void)call("DELETE", "/containers/" + id + "?force=1&v=1"); }};
  auto start = call("POST", "/containers/" + id + "/start");
  if (!start) return failed("start", start.error().message);
  if (start->status != 204 && start->status != 304) return failed("start", message_of(*start));
  auto waited = call("POST", "/containers/" + id + "/wait");
  if (!waited) return failed("wait", waited.error().message);
  auto logs = call("GET", "/containers/" + id + "/logs?stdout=1&stderr=1");
  if (!logs || logs->status != 200) return failed("logs", logs ? message_of(*logs) : logs.error().message);
  judge_output(fs, specs, demultiplexed(logs->body), r);
  return finish();
}

CanaryDiagnosis diagnose_canary(const CanaryResult& r) {
  const std::string& said = r.detail;
  const std::string grant = "rediacc-gpu grant " + r.repo + " --device " + r.device;
  if (r.stage == "devices" &&
      (said.find("cannot be checked") != std::string::npos || said.find("none can be looked for") != std::string::npos))
    return {"nothing proves the devices reached the container: a container that runs is not a GPU that works",
            "run rediacc-gpu setup (it writes the specs in /etc/cdi for the GPUs present), then grant a name they "
            "define"};
  if (r.stage == "devices" || r.stage == "nvidia-smi")
    return {"silent CPU fallback: the container runs, without its GPU",
            "check the name's device nodes in its spec (doctor layer 4) and that the daemon reads the repository's "
            "view (repo-cdi-view)"};
  if (said.find("authorization denied") != std::string::npos)
    return {"the gate refused the request", "grant the name (" + grant + "), or read the plugin's refusal above"};
  if (said.find("unresolvable CDI devices") != std::string::npos)
    return {"the daemon does not know the name: its spec directories lack it",
            "run rediacc-gpu setup (it writes the repository's view and binds it over the daemon's /etc/cdi)"};
  if (said.find("could not select device driver \"cdi\"") != std::string::npos ||
      said.find("CDI device injection") != std::string::npos)
    return {"the daemon does not attach CDI devices: it predates CDI (before 25.0) or has it off",
            "use Docker 25 or later; on 25.0 to 28.1 set \"features\": {\"cdi\": true} in its daemon.json"};
  if (said.find("No such image") != std::string::npos)
    return {"the daemon does not have the image", "pull or import it on the repository's daemon, or name another"};
  if (said.find("cannot reach the Docker daemon") != std::string::npos)
    return {"the repository's daemon did not answer", "start it, or point --docker-host at its socket"};
  return {"the daemon could not " + std::string(r.stage == "create" ? "create" : "run") + " the container",
          "read the daemon's error; rediacc-gpu doctor's earlier layers name the usual causes"};
}

}  // namespace rgpu::canary
