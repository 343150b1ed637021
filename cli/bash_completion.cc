#include "cli/bash_completion.h"

#include <sstream>
#include <vector>

#include "core/joined.h"

namespace rgpu::cli {
namespace {

struct Node {
  std::string path;  ///< subcommand names joined by spaces; "" for the program itself
  const CLI::App* app;
};

void collect(const CLI::App* app, const std::string& path, std::vector<Node>& out) {
  out.push_back({path, app});
  for (const CLI::App* sub : app->get_subcommands([](const CLI::App*) { return true; })) {
    collect(sub, path.empty() ? sub->get_name() : path + " " + sub->get_name(), out);
  }
}

bool takes_value(const CLI::Option* opt) { return opt->get_type_size_max() > 0 && opt->get_expected_max() > 0; }

std::vector<std::string> names_of(const CLI::Option* opt) {
  std::vector<std::string> names;
  for (const auto& l : opt->get_lnames()) names.push_back("--" + l);
  for (const auto& s : opt->get_snames()) names.push_back("-" + s);
  return names;
}

// "TEXT:{table,json}" -> "table json"; "" when the option has no fixed set of values.
std::string choices(const CLI::Option* opt) {
  const std::string type = opt->get_type_name();
  const auto open = type.find('{');
  const auto close = type.find('}', open);
  if (open == std::string::npos || close == std::string::npos) return {};
  std::string words;
  for (char c : type.substr(open + 1, close - open - 1)) {
    if (c == ',')
      words += ' ';
    else if (c != ' ')
      words += c;
  }
  return words;
}

// How the value after option `name` of node `path` completes, as one case arm; "" for the default
// (file names, through complete -o default).
std::string value_arm(const std::string& path, const CLI::Option* opt, const std::string& program) {
  const auto names = names_of(opt);
  std::string pattern;
  for (const auto& n : names) pattern += (pattern.empty() ? "" : "|") + std::string("\"") + path + "|" + n + "\"";
  std::string action;
  if (auto set = choices(opt); !set.empty()) {
    action = "_rediacc_gpu_reply -W \"" + set + "\"";
  } else if (opt->get_type_name().find("DIR") != std::string::npos) {
    action = "_rediacc_gpu_reply -d";
  } else if (names.front() == "--device") {
    action = "_rediacc_gpu_reply -W \"$(" + program +
             " ${root:+--root \"$root\"} cdi list 2>/dev/null | awk 'NR > 1 {print $1}')\"";
  } else if (names.front() == "--forget-gpu") {  // the GPUs the inventory keeps as missing, as list shows them
    action = "_rediacc_gpu_reply -W \"$(" + program +
             " ${root:+--root \"$root\"} list 2>/dev/null | awk '/^missing since / {print $4}')\"";
  } else {
    return {};
  }
  return "      " + pattern + ") " + action + "; return ;;\n";
}

// One case arm per command path: its subcommands, its long options, and the options that take a
// value; `values` gets the arms that complete those values.
struct Arms {
  std::string tree, values;
};

Arms command_arms(const CLI::App& root, const std::string& program) {
  std::vector<Node> nodes;
  collect(&root, "", nodes);
  std::ostringstream tree, values;
  for (const auto& node : nodes) {
    std::vector<std::string> subs, opts, valued;
    for (const CLI::App* sub : node.app->get_subcommands([](const CLI::App*) { return true; })) {
      subs.push_back(sub->get_name());
    }
    for (const CLI::Option* opt : node.app->get_options()) {
      if (opt->get_positional()) continue;
      for (const auto& n : names_of(opt)) {
        if (n.rfind("--", 0) == 0) opts.push_back(n);  // offer long names; accept short ones below
        if (takes_value(opt)) valued.push_back(n);
      }
      if (takes_value(opt)) values << value_arm(node.path, opt, program);
    }
    tree << "      \"" << node.path << "\") subs=\"" << joined(subs, " ") << "\" opts=\"" << joined(opts, " ")
         << "\" valued=\"" << joined(valued, " ") << "\" ;;\n";
  }
  return {tree.str(), values.str()};
}

// The reply helper: the same in every script.
std::string reply_function(const std::string& fn) {
  std::ostringstream out;
  out << "# COMPREPLY from compgen ARGS, the candidates that start with $cur (zsh's compgen does not\n"
      << "# filter). bash split the line at = and : too (COMP_WORDBREAKS), so the word it replaces\n"
      << "# starts after the last of them in $cur: that part is cut. zsh replaces the whole word.\n"
      << fn << "_reply() {\n"
      << "  local keep=${cur%\"${cur##*[=:]}\"} c\n"
      << "  [[ -n ${ZSH_VERSION-} ]] && keep=\"\"\n"
      << "  while IFS= read -r c; do\n"
      << "    [[ -n $c && $c == \"$cur\"* ]] && COMPREPLY+=(\"${c#\"$keep\"}\")\n"
      << "  done < <(compgen \"$@\" -- \"$cur\")\n"
      << "}\n\n";
  return out.str();
}

// The completion function: walks the words typed, then offers values, options or subcommands.
std::string completion_function(const std::string& fn, const std::string& value_arms) {
  std::ostringstream out;
  out << fn << "() {\n"
      << "  # zsh (bashcompinit): arrays from 0 and words split as bash splits them, for this function.\n"
      << "  [[ -n ${ZSH_VERSION-} ]] && setopt localoptions ksharrays shwordsplit noglob\n"
      << "  # The words as typed, from the line itself: COMP_WORDS would split nvidia.com/gpu=0 at the =.\n"
      << "  local line=${COMP_LINE:0:$COMP_POINT}\n"
      << "  local -a words\n"
      << "  # shellcheck disable=SC2206  # zsh's read has no -a: split there, globbing off\n"
      << "  read -r -a words <<<\"$line\" 2>/dev/null || words=($line)\n"
      << "  [[ $line == *[[:space:]] || ${#words[@]} -eq 0 ]] && words+=(\"\")\n"
      << "  local n=${#words[@]}\n"
      << "  local cur=${words[n - 1]} prev=\"\"\n"
      << "  ((n > 1)) && prev=${words[n - 2]}\n"
      << "  local at=\"\" root=\"\" subs opts valued i w  # not `path`: zsh ties it to PATH\n"
      << "  COMPREPLY=()\n"
      << "  # --opt=value is --opt followed by value.\n"
      << "  if [[ $cur == --*=* ]]; then\n"
      << "    prev=${cur%%=*}\n"
      << "    cur=${cur#*=}\n"
      << "  fi\n"
      << "  " << fn << "_node \"$at\"\n"
      << "  # Walk the words typed so far: a subcommand name descends, an option that takes a value\n"
      << "  # skips its value; --root is kept for the lookups of names.\n"
      << "  for ((i = 1; i < n - 1; i++)); do\n"
      << "    w=${words[i]}\n"
      << "    if [[ $w == --root ]]; then\n"
      << "      root=${words[i + 1]}\n"
      << "      ((i++))\n"
      << "    elif [[ $w == --root=* ]]; then\n"
      << "      root=${w#--root=}\n"
      << "    elif [[ \" $valued \" == *\" $w \"* ]]; then\n"
      << "      ((i++))\n"
      << "    elif [[ $w != -* && \" $subs \" == *\" $w \"* ]]; then\n"
      << "      at=${at:+$at }$w\n"
      << "      " << fn << "_node \"$at\"\n"
      << "    fi\n"
      << "  done\n"
      << "  if [[ \" $valued \" == *\" $prev \"* ]]; then\n"
      << "    case \"$at|$prev\" in\n"
      << value_arms << "    esac\n"
      << "    return\n"
      << "  fi\n"
      << "  if [[ $cur == -* ]]; then\n"
      << "    " << fn << "_reply -W \"$opts\"\n"
      << "  else\n"
      << "    " << fn << "_reply -W \"$subs\"\n"
      << "  fi\n"
      << "}\n\n";
  return out.str();
}

}  // namespace

std::string bash_completion(const CLI::App& root, const std::string& program) {
  const std::string fn = "_rediacc_gpu";
  const auto arms = command_arms(root, program);
  std::ostringstream out;
  out << "# bash completion for " << program << ", generated by `" << program << " completion bash`.\n"
      << "# zsh: autoload -U bashcompinit && bashcompinit && source <(" << program << " completion bash)\n"
      << fn << "_node() {\n"
      << "  case $1 in\n"
      << arms.tree << "      *) subs=\"\" opts=\"\" valued=\"\" ;;\n"
      << "  esac\n"
      << "}\n\n"
      << reply_function(fn) << completion_function(fn, arms.values) << "complete -o default -F " << fn << " " << program
      << "\n";
  return out.str();
}

}  // namespace rgpu::cli
