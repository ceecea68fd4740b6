#include "base/allocator.h"

#include <malloc.h>
#include <sys/prctl.h>

#include <algorithm>

namespace btfc {

void tune_allocator(unsigned threads, bool large_input) {
  // Refused only by kernels before 3.15: huge pages then stay, as before.
  if (large_input) prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
#ifdef M_ARENA_MAX
  // As many arenas as threads run at once: a thread started later (a
  // dedup's big-stack thread) shares one whose freed blocks it can reuse.
  mallopt(M_ARENA_MAX, static_cast<int>(std::max(2u, threads)));
  // Blocks up to 32 MB (glibc's largest threshold) come from the arenas,
  // and freed memory stays in the process for the next phase: peak RSS is
  // what counts, not what is held between phases.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#else
  (void)threads;  // not glibc: its defaults stand
#endif
}

}  // namespace btfc
