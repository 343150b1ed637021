// rediacc-gpu daemon-exec -- dockerd ARGS: runs a repository's dockerd under the raw-socket filter
// (core/raw_sockets.h), which every container it starts inherits. The dockerd shim setup writes for
// renet's units runs it; it never runs the daemon without the filter.

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "cli/command.h"
#include "core/raw_sockets.h"

namespace rgpu::cli {

Runner attach_daemon_exec(CLI::App& sub, GlobalOptions&) {
  auto command = std::make_shared<std::vector<std::string>>();
  sub.add_option("COMMAND", *command, "The daemon and its arguments, after --: dockerd --authorization-plugin=...")
      ->required()
      ->expected(-1);
  return [command] {
    if (auto filtered = refuse_raw_sockets(); !filtered) return report_failure(filtered.error());
    std::vector<char*> argv;
    for (auto& arg : *command) argv.push_back(arg.data());
    argv.push_back(nullptr);
    ::execvp(argv.front(), argv.data());
    print_error("cannot run " + command->front() + ": " + std::strerror(errno) +
                "; the daemon was not started (is it installed and on PATH?)");
    return kExitFailure;
  };
}

}  // namespace rgpu::cli
