#pragma once
// The CDI specification's releases as the CDI library knows them (specs-go/version.go): what a
// spec declares, what it must declare for what it uses, and which releases predate device
// annotations. One list, for the spec reader and the views that raise a spec's version.

#include <string>
#include <string_view>

namespace rgpu::cdi {

/// A release as a number (0.5.0 is 50, 1.1.0 is 110; "v0.5.0" as "0.5.0"), which orders them; 0
/// for one no release knows.
int spec_version_number(std::string_view version);

/// "0.6.0" for 60.
std::string spec_version_text(int number);

/// The first release whose specs may carry annotations (on the spec or on a device).
inline constexpr int kAnnotationsVersion = 60;

}  // namespace rgpu::cdi
