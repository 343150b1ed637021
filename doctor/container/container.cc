// Layer 6: a real container through the repository's daemon with each device it was granted,
// which must see it: the playbook's "silent CPU fallback" is a container that runs fine without
// its GPU, so success means the device is there inside, not only that the container started.

#include "doctor/container/container.h"

#include "canary/canary.h"
#include "docker/images.h"
#include "docker/repo_plugin.h"
#include "docker/running_daemons.h"
#include "image-check/cuda_requirement.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kCheck{Layer::container};

// The canary's engine, asked through the repository's own daemon with each name: the result is
// judged from the container's own output (the name's nodes by device number, nvidia-smi when the
// image has it), never from the container starting. The docker CLI is not used: before 25 it
// sends a CDI name as a device path, and it would prove an AMD name by /dev/kfd alone.
Check run_one(const RootFs& fs, const Facts& f, const ContainerRequest& req, const std::string& host,
              const std::string& device) {
  const auto r = canary::run_canary(fs, f.specs, {req.repo, device, req.image, host, std::chrono::seconds(120)});
  const std::string what = req.repo + " with " + device + " in " + req.image;
  if (r.ok)
    return kCheck.ok("container", what + ": " + r.detail,
                     Evidence("a container made through " + host + ": its own ls -lR /dev and nvidia-smi -L"));
  const auto why = canary::diagnose_canary(r);
  return kCheck.fail("container", what + ": failed at " + r.stage + ": " + r.detail, why.meaning, why.decision);
}

Check image_cuda(const Facts& f, const ContainerRequest& req) {
  auto verdict = docker::docker_socket(req.docker_host).and_then([&](const std::string& socket) {
    return image_check::check_image_cuda(f.fresh, socket, req.image);
  });
  if (!verdict) {
    return kCheck.warn("image-cuda", verdict.error().message,
                       "the image's CUDA requirement could not be compared with the host driver",
                       is_not_found(verdict.error())
                           ? "pull the image on that daemon"
                           : "start the daemon, or point --docker-host at the repository's daemon");
  }
  using Kind = image_check::CudaVerdict::Kind;
  switch (verdict->kind) {
    case Kind::ok:
      return kCheck.ok("image-cuda", verdict->text,
                       Evidence("the image's environment and labels (GET /images/NAME/json), the driver's CUDA"));
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

std::vector<Check> container_checks(const RootFs& fs, const Facts& f, const ContainerRequest& asked) {
  if (asked.repo.empty() || asked.image.empty()) {
    return {kCheck.skip("container", "not asked for (--repo and --image)")};
  }
  ContainerRequest req = asked;
  if (req.docker_host.empty()) {
    const auto hosts = docker::repo_daemon_addresses(fs, f.daemons);
    const auto found = hosts.find(req.repo);
    if (found == hosts.end()) {
      return {kCheck.fail("container", "no daemon of repository " + req.repo + " is known",
                          "the container check goes through the repository's own daemon, so its gate and CDI view "
                          "are on the path",
                          "name it with --docker-host, or write " + docker::plugin_environment_path(req.repo) +
                              " with REDIACC_GPU_DOCKER_HOST=unix:///path/to/its/docker.sock")};
    }
    req.docker_host = found->second;
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
    out.push_back(run_one(fs, f, req, req.docker_host, d));
    out.back().subject = d;
  }
  return out;
}

}  // namespace rgpu::doctor
