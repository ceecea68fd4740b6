// The GNU build ID of the running executable: what tells one build of
// btfc from another (a cache one build writes is for that build only).
#pragma once

#include <cstdint>
#include <vector>

namespace btfc {

// Its bytes, empty if the executable has none (linked without --build-id).
std::vector<uint8_t> own_build_id();

}  // namespace btfc
