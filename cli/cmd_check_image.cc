// rediacc-gpu check-image IMG: does this host's NVIDIA driver give the CUDA the image needs? For
// CI pipelines: exit 1 when the image needs more than the host has.

#include <iostream>

#include "cli/command.h"
#include "docker/images.h"
#include "image-check/cuda_requirement.h"
#include "probe/machine_probe.h"

namespace rgpu::cli {
namespace {

struct CheckImageFlags {
  std::string image;
  std::string docker_host;
  bool allow_forward_compat = false;
};

int run_check_image(const GlobalOptions& global, const CheckImageFlags& f) {
  RootFs fs(global.root);
  auto report = probe::probe_machine(fs);
  if (!report) return report_failure(report.error());
  auto socket = docker::docker_socket(fs, f.docker_host);
  if (!socket) return report_failure(socket.error());
  auto verdict = image_check::check_image_cuda(report->inventory, *socket, f.image);
  if (!verdict) return report_failure(verdict.error());
  using Kind = image_check::CudaVerdict::Kind;
  switch (verdict->kind) {
    case Kind::ok:
    case Kind::not_stated: std::cout << verdict->text << "\n"; return kExitOk;
    case Kind::unknown: print_warning(verdict->text); return kExitOk;
    case Kind::forward_compat:
      if (f.allow_forward_compat) {
        print_warning(verdict->text);
        return kExitOk;
      }
      return report_failure({verdict->text +
                             "; pass --allow-forward-compat if this host's GPUs are of that brand and the image ships "
                             "its compat libraries."});
    case Kind::too_new:
    case Kind::no_driver: return report_failure({verdict->text + "."});
  }
  return kExitFailure;
}

}  // namespace

Runner attach_check_image(CLI::App& sub, GlobalOptions& global) {
  add_root_option(sub, global);
  auto f = std::make_shared<CheckImageFlags>();
  sub.add_option("image", f->image, "The image, as the daemon names it (nvidia/cuda:12.4.1-base-ubuntu22.04)")
      ->required();
  add_docker_host_option(
      sub, f->docker_host,
      "the one holding the image; default $DOCKER_HOST, else the machine's /var/run/docker.sock (under --root)");
  sub.add_flag("--allow-forward-compat", f->allow_forward_compat,
               "Accept an image that runs only through CUDA forward compatibility (data-center GPUs)");
  return [&global, f] { return run_check_image(global, *f); };
}

}  // namespace rgpu::cli
