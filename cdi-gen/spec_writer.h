#pragma once
// Writes our specs into <root>/etc/cdi: one file per kind, atomically; a kind with no devices has
// its file removed. Files of other vendors are never touched.

#include <vector>

#include "cdi-gen/spec.h"
#include "core/change.h"
#include "core/file_sink.h"
#include "core/result.h"
#include "core/root_fs.h"

namespace rgpu::cdi {

/// The text we write for a spec: JSON, two-space indent, trailing newline.
std::string spec_text(const Spec& spec);

/// Writes or removes each spec's file; same bytes are left alone (`unchanged`, same mtime).
/// Stops at the first failure, which names the file; files already handled stay whole.
Result<Changes> write_specs(FileSink& sink, const std::vector<Spec>& specs);

}  // namespace rgpu::cdi
