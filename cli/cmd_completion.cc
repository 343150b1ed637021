// rediacc-gpu completion bash: prints the completion script (the package installs it; a hand-built
// binary can `source <(rediacc-gpu completion bash)`).

#include <iostream>
#include <memory>

#include "cli/bash_completion.h"
#include "cli/command.h"

namespace rgpu::cli {

Runner attach_completion(CLI::App& sub, GlobalOptions&) {
  auto shell = std::make_shared<std::string>();
  sub.add_option("SHELL", *shell, "The shell: bash")->required()->check(CLI::IsMember({"bash"}));
  return [&sub, shell] {  // shell is bound to the option: it must live as long as the parse
    std::cout << bash_completion(*sub.get_parent(), "rediacc-gpu");
    return kExitOk;
  };
}

}  // namespace rgpu::cli
