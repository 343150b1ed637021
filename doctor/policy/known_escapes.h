#pragma once
// The known escapes of the runtime and daemon the repositories run, in one table with its
// sources, and the judgement of one installed version against it. A distribution's patched
// package keeps the upstream number: its changelog decides.

#include <optional>
#include <string>
#include <vector>

namespace rgpu::doctor {

enum class Component { runc, docker };

struct KnownEscape {
  Component component;
  const char* cve;
  const char* what;
  /// The first fixed release of each release line ("1.2.8", "1.3.3", "1.4.0-rc.3"); a line older
  /// than every listed one has no fix, a newer one is fixed.
  std::vector<std::string> fixed_in;
  const char* source;
  /// Why the gate already closes this door for its own repositories (a warning then, not a fail).
  const char* gate_closes = nullptr;
};

const std::vector<KnownEscape>& known_escapes();

/// True when `version` is older than the fix of its release line.
bool affected(const KnownEscape& escape, const std::string& version);

/// How a version of a package stands against one escape.
enum class Standing { fixed, affected, patched_by_distribution, unknown };

/// `changelog`: the distribution package's changelog text, when one was read. A version carrying
/// a distribution suffix with no changelog to read is `unknown`; a changelog naming the CVE is
/// `patched_by_distribution`.
Standing standing(const KnownEscape& escape, const std::string& version, const std::optional<std::string>& changelog);

}  // namespace rgpu::doctor
