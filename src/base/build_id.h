// GNU build IDs: what tells one build of a program from another. The
// running executable's tells one build of btfc from another (a cache one
// build writes is for that build only); a file's finds its debug file.
#pragma once

#include <cstdint>
#include <vector>

#include "base/reader.h"

namespace btfc {

// Its bytes, empty if the executable has none (linked without --build-id).
std::vector<uint8_t> own_build_id();

// The descriptor of the first GNU build-ID note among `notes` (the bytes
// of a note section or segment: namesz, descsz, type, then the name and
// the descriptor, each padded to 4 bytes), or empty, also where the notes
// are damaged before one is found.
Bytes gnu_build_id(Bytes notes, bool big_endian);

}  // namespace btfc
