#pragma once
// The bash completion script, rendered from the parsed command tree itself, so it can never
// offer a command or option the binary does not have (the package installs its output).

#include <CLI/CLI.hpp>
#include <string>

namespace rgpu::cli {

/// A script defining _rediacc_gpu and `complete`-ing `program` with it: subcommands, options,
/// the values of options with a fixed set (-o table|json), directories for DIR options, and the
/// machine's CDI names (from `cdi list`) for --device.
std::string bash_completion(const CLI::App& root, const std::string& program);

}  // namespace rgpu::cli
