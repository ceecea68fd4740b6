// Writes a whole output file atomically: the bytes go to a temporary file in
// the same folder, which is renamed over the target only once complete, so a
// failed or interrupted run never leaves a truncated output behind (and a
// reader of the old file never sees a half-written one).
#pragma once

#include <span>
#include <string>

namespace btfc {

// Throws btfc::Error naming `path` if any step fails; the temporary file is
// removed then.
void write_file_atomic(const std::string& path, std::span<const uint8_t> bytes);

}  // namespace btfc
