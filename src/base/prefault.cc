#include "base/prefault.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace btfc {

void prefault(const void* p, size_t bytes) {
  constexpr size_t kWorth = size_t{64} << 10;
  if (bytes < kWorth) return;
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t first = (reinterpret_cast<uintptr_t>(p) + page - 1) & ~(page - 1);
  uintptr_t last = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(page - 1);
  if (first < last) madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_WRITE);
}

}  // namespace btfc
