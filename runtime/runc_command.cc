#include "runtime/runc_command.h"

#include <algorithm>
#include <span>
#include <string_view>

namespace rgpu::runtime {
namespace {

using Names = std::span<const std::string_view>;

// runc's global options (main.go) that take a value; the others are switches.
constexpr std::string_view kGlobalValues[] = {"--root", "--log", "--log-format", "--criu", "--rootless"};
constexpr std::string_view kGlobalSwitches[] = {"--debug", "--systemd-cgroup", "--help", "-h", "--version", "-v"};

// create, run and restore (runc 1.1 to 1.3): options with a value, and switches.
constexpr std::string_view kMakeValues[] = {"--bundle",
                                            "-b",
                                            "--console-socket",
                                            "--pid-file",
                                            "--preserve-fds",
                                            "--image-path",
                                            "--work-path",
                                            "--parent-path",
                                            "--page-server",
                                            "--manage-cgroups-mode",
                                            "--empty-ns",
                                            "--lsm-profile",
                                            "--lsm-mount-context",
                                            "--pidfd-socket"};
constexpr std::string_view kMakeSwitches[] = {"--detach",
                                              "-d",
                                              "--keep",
                                              "--no-subreaper",
                                              "--no-pivot",
                                              "--no-new-keyring",
                                              "--tcp-established",
                                              "--ext-unix-sk",
                                              "--shell-job",
                                              "--file-locks",
                                              "--auto-dedup",
                                              "--lazy-pages",
                                              "--tcp-skip-in-flight",
                                              "--link-remap"};

// exec (runc 1.1 to 1.3): options with a value; the others are switches.
constexpr std::string_view kExecValues[] = {"--console-socket",
                                            "--pidfd-socket",
                                            "--cwd",
                                            "--env",
                                            "-e",
                                            "--user",
                                            "-u",
                                            "--additional-gids",
                                            "-g",
                                            "--process",
                                            "-p",
                                            "--pid-file",
                                            "--process-label",
                                            "--apparmor",
                                            "--cap",
                                            "-c",
                                            "--preserve-fds",
                                            "--cgroup"};

bool in(Names names, std::string_view s) { return std::find(names.begin(), names.end(), s) != names.end(); }

// "--name=value" as (name, value); a name alone as (name, nullopt).
std::pair<std::string, std::optional<std::string>> split_option(const std::string& arg) {
  const auto eq = arg.find('=');
  if (arg.starts_with("--") && eq != std::string::npos) return {arg.substr(0, eq), arg.substr(eq + 1)};
  return {arg, std::nullopt};
}

void keep(RuncCommand& c, const std::string& name, const std::string& value) {
  if (name == "--root") c.root = value;
  if (name == "--log") c.log = value;
  if (name == "--log-format") c.json_log = value == "json";
  if (name == "--bundle" || name == "-b") c.bundle = value;
  if (name == "--image-path") c.image_path = value;
  if (name == "--work-path") c.work_path = value;
}

void keep_exec(RuncCommand& c, const std::string& name, const std::string& value) {
  if (name == "--process" || name == "-p") c.process = value;
  if (name == "--cap" || name == "-c") c.added_caps.push_back(value);
}

// exec's options up to its ID, which is the first argument that is none's; the rest is the command.
void parse_exec(RuncCommand& c, const std::vector<std::string>& args, size_t i) {
  for (; i < args.size(); ++i) {
    const auto [name, value] = split_option(args[i]);
    if (!name.starts_with("-") || name == "-") {
      c.id = args[i];
      return;
    }
    if (name == "--") {
      if (i + 1 < args.size()) c.id = args[i + 1];
      return;
    }
    if (!in(kExecValues, name)) continue;
    if (value) {
      keep_exec(c, name, *value);
    } else if (i + 1 < args.size()) {
      keep_exec(c, name, args[++i]);
    }
  }
}

}  // namespace

bool makes_a_container(const RuncCommand& c) {
  return c.command == "create" || c.command == "run" || c.command == "restore";
}

bool execs_in_a_container(const RuncCommand& c) { return c.command == "exec"; }

Result<RuncCommand> parse_runc_command(const std::vector<std::string>& args) {
  RuncCommand c;
  size_t i = 0;
  for (; i < args.size() && args[i].starts_with("-"); ++i) {
    const auto [name, value] = split_option(args[i]);
    if (in(kGlobalValues, name)) {
      if (value) {
        keep(c, name, *value);
      } else if (i + 1 < args.size()) {
        keep(c, name, args[++i]);
      }
    } else if (!in(kGlobalSwitches, name)) {
      return fail("runc's option \"" + name + "\" is not one the verifier knows");
    }
  }
  if (i == args.size()) return c;
  c.command = args[i++];
  if (execs_in_a_container(c)) {
    parse_exec(c, args, i);
    return c;
  }
  const bool judged = makes_a_container(c);
  for (; i < args.size(); ++i) {
    const auto [name, value] = split_option(args[i]);
    if (!name.starts_with("-") || name == "-") {
      c.id = args[i];
      continue;
    }
    if (!judged) continue;
    if (in(kMakeValues, name)) {
      if (value) {
        keep(c, name, *value);
      } else if (i + 1 < args.size()) {
        keep(c, name, args[++i]);
      }
    } else if (!in(kMakeSwitches, name)) {
      return fail("runc " + c.command + "'s option \"" + name + "\" is not one the verifier knows");
    }
  }
  return c;
}

}  // namespace rgpu::runtime
