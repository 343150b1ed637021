#pragma once
// runc's command line as containerd's shim and BuildKit's executor write it (go-runc): global
// options, the command, its options and the container ID. Pure.

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"

namespace rgpu::runtime {

struct RuncCommand {
  std::string command;  ///< "create", "run", "restore", "start", "delete", "features", ... ; "" for --version
  std::string root;     ///< --root: runc's state directory (dockerd: EXEC_ROOT/runtime-runc/moby); "" when absent
  std::string log;      ///< --log: where runc writes its JSON log, which the shim reads an error from
  bool json_log = false;
  std::string bundle;                   ///< --bundle / -b; "" when absent (the working directory)
  std::string image_path;               ///< restore's --image-path
  std::string work_path;                ///< restore's --work-path
  std::string id;                       ///< the container's ID: the last argument that is no option's (exec: the first)
  std::string process;                  ///< exec's --process: the process's spec, which replaces the container's
  std::vector<std::string> added_caps;  ///< exec's --cap: capabilities added to the container's
};

/// True for the commands that make a container from a bundle: what the verifier judges.
bool makes_a_container(const RuncCommand& command);

/// True for `exec`: a process started in a container made before, whose capabilities the verifier
/// bounds by what that container was made with.
bool execs_in_a_container(const RuncCommand& command);

/// `args` (argv without argv[0]). Options are read as runc reads them ("--name value",
/// "--name=value", "-b value"). For a command that makes a container, an option runc 1.1 to 1.3
/// does not know there is an error (it might take a value the verifier would misread); the other
/// commands pass to runc as they are, exec's options read too (its ID is the first argument after
/// them; what follows is the command to run).
Result<RuncCommand> parse_runc_command(const std::vector<std::string>& args);

}  // namespace rgpu::runtime
