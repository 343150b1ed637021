// Layer 6: a real container through the repository's daemon with each device it was granted,
// which must see it: the playbook's "silent CPU fallback" is a container that runs fine without
// its GPU, so success means the device is there inside, not only that the container started.

#include "doctor/container.h"

#include "doctor/cuda_requirement.h"
#include "doctor/docker_api.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kCheck{Layer::container};

// What proves the device is inside, per kind: NVIDIA's tool for NVIDIA, the node for the others.
std::string proof_for(const std::string& name) {
  const auto eq = name.find('=');
  const std::string kind = name.substr(0, eq), device = eq == std::string::npos ? "" : name.substr(eq + 1);
  if (kind == "nvidia.com/gpu") return "nvidia-smi -L";
  if (kind == "rediacc.io/dri") return "test -c /dev/dri/" + device;
  if (kind == "rediacc.io/amd") return "test -c /dev/kfd";
  return "true";
}

Check run_one(CommandRunner& runner, const ContainerRequest& req, const std::string& device) {
  Argv argv = {"docker"};
  if (!req.docker_host.empty()) argv.insert(argv.end(), {"-H", req.docker_host});
  argv.insert(argv.end(), {"run", "--rm", "--device", device, req.image, "sh", "-c", proof_for(device)});
  const std::string what = req.repo + " with " + device + " in " + req.image;
  auto ran = runner.run(argv, std::chrono::seconds(120));
  if (!ran) {
    return kCheck.fail("container", what + ": " + ran.error().message, "the docker CLI could not be run",
                       "install the docker CLI, or point --docker-host at the repository's daemon");
  }
  if (ran->exit_code == 0) return kCheck.ok("container", what + ": the device is there inside");
  const std::string& out = ran->output;
  if (out.find("authorization denied") != std::string::npos) {
    return kCheck.fail("container", what + ": " + out, "the gate refused the request",
                       "grant the name: rediacc-gpu grant " + req.repo + " --device " + device);
  }
  if (out.find(device + " is not an absolute path") != std::string::npos) {
    return kCheck.fail(
        "container", what + ": " + out,
        "the docker CLI predates CDI (before 25.0): it sends the name as a device path and never asks the daemon",
        "run the check with a docker CLI 25 or later on PATH (Debian 13's docker-cli, or Docker's own packages)");
  }
  if (out.find("could not select device driver \"cdi\"") != std::string::npos || out.find("CDI") != std::string::npos) {
    return kCheck.fail("container", what + ": " + out,
                       "the daemon does not attach CDI devices: it predates CDI (before 25.0) or has it off",
                       "use Docker 25 or later; on 25.0 to 28.1 set \"features\": {\"cdi\": true} in daemon.json");
  }
  if (out.find("Error response from daemon") != std::string::npos || ran->exit_code == 125) {
    return kCheck.fail("container", what + ": " + out, "the daemon could not create or start the container",
                       "read the daemon's error; rediacc-gpu doctor's earlier layers name the usual causes");
  }
  return kCheck.fail("container", what + ": the container ran, but " + proof_for(device) + " failed",
                     "silent CPU fallback: the workload runs without its GPU",
                     "check the spec's device nodes (layer 4)");
}

Check image_cuda(const Facts& f, const ContainerRequest& req) {
  auto verdict = docker_socket(req.docker_host).and_then([&](const std::string& socket) {
    return check_image_cuda(f.fresh, socket, req.image);
  });
  if (!verdict) {
    return kCheck.warn("image-cuda", verdict.error().message,
                       "the image's CUDA requirement could not be compared with the host driver",
                       is_not_found(verdict.error())
                           ? "pull the image on that daemon"
                           : "start the daemon, or point --docker-host at the repository's daemon");
  }
  using Kind = CudaVerdict::Kind;
  switch (verdict->kind) {
    case Kind::ok: return kCheck.ok("image-cuda", verdict->text);
    case Kind::not_stated: return kCheck.skip("image-cuda", verdict->text);
    case Kind::unknown:
      return kCheck.warn("image-cuda", verdict->text,
                         "the driver is newer than the CUDA table this rediacc-gpu carries",
                         "make NVML load (the driver's "
                         "user-space libraries of the same version as the kernel module), or upgrade rediacc-gpu");
    case Kind::forward_compat:
      return kCheck.warn(
          "image-cuda", verdict->text,
          "the image's CUDA is newer than the driver's; only data-center GPUs run it, through its compat libraries",
          "install a driver whose CUDA reaches the image's, or use an older tag of the image");
    case Kind::too_new:
    case Kind::no_driver: break;
  }
  return kCheck.fail(
      "image-cuda", verdict->text,
      "the workload fails inside (CUDA error 35, or a silent CPU fallback): with CDI nothing checks this at start",
      "install a newer driver, or use an older tag of the image");
}

}  // namespace

std::vector<Check> container_checks(const Facts& f, CommandRunner& runner, const ContainerRequest& req) {
  if (req.repo.empty() || req.image.empty()) {
    return {kCheck.skip("container", "not asked for (--repo and --image)")};
  }
  std::vector<Check> out = {image_cuda(f, req)};
  std::vector<std::string> devices;
  if (f.grants) {
    for (const auto& g : f.grants->grants) {
      if (g.repo == req.repo) devices.push_back(g.device);
    }
  }
  if (devices.empty()) {
    out.push_back(
        kCheck.fail("container", req.repo + " holds no grant", "its containers can attach no GPU",
                    "rediacc-gpu grant " + req.repo + " --device NAME (rediacc-gpu cdi list shows the names)"));
    return out;
  }
  for (const auto& d : devices) {
    out.push_back(run_one(runner, req, d));
    out.back().subject = d;
  }
  return out;
}

}  // namespace rgpu::doctor
