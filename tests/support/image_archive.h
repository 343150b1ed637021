#pragma once
// An image archive as `docker save` writes it (manifest.json, the config, one layer), made from a
// directory tree, for `docker load`: the gate refuses `docker import` (its body can hide the
// parameters that make dockerd download from the host's network), and load reads only the archive.

#include <map>
#include <string>
#include <vector>

#include "tests/support/fixture_root.h"

namespace rgpu::test {

struct ImageConfig {
  std::vector<std::string> entrypoint = {};
  std::map<std::string, std::string> labels = {};
};

/// The archive's bytes: one layer holding the files of `rootfs`, tagged `name` (":latest" added when
/// the name has no tag).
std::string image_archive(const FixtureRoot& rootfs, const std::string& name, const ImageConfig& config = {});

}  // namespace rgpu::test
