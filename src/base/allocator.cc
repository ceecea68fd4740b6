#include "base/allocator.h"

#include <malloc.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <mutex>

namespace btfc {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kSmallPage = 4096;

// Clocks for touch_ms, in milliseconds: the wall's, and the calling
// thread's CPU time (which a preemption does not advance).
double wall_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

// Milliseconds, by `clock`, to write one byte in each 4 KB of [p, p + len).
double touch_ms(char* p, size_t len, double (*clock)() = wall_ms) {
  const double start = clock();
  for (size_t i = 0; i < len; i += kSmallPage) static_cast<volatile char*>(p)[i] = 1;
  return clock() - start;
}

// The first huge-page boundary in a mapping of at least two huge pages.
char* huge_aligned(void* map) {
  return reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(map) + kHugePage - 1) & ~(kHugePage - 1));
}

// The mapping of recheck_fresh_pages's last page, kept until the next check.
struct HeldPage {
  void* map = nullptr;
  size_t len = 0;
  void release() {
    if (map) munmap(map, len);
    map = nullptr;
  }
};
std::mutex recheck_mu;  // guards the two below and the PageChoice a check changes
HeldPage held_page;
long checked_peak_kb = 0;  // the process's peak RSS at the last check
PageChoice process_choice;  // tune_allocator's, as checks change it

}  // namespace

bool small_pages_pay(const PageProbe& probe) { return probe.huge_ms_per_mb > 2 * probe.small_ms_per_mb; }

PageProbe probe_fresh_pages() {
  // A huge page and 1 MB of small ones, in one mapping aligned to a huge
  // page; the small pages are touched in two halves, before and after the
  // huge one, so that a passing disturbance spreads over both sides.
  constexpr size_t kSmallBytes = kHugePage / 2;
  const size_t len = kHugePage + kSmallBytes + kHugePage;
  void* map = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) return {};
  char* huge = huge_aligned(map);
  char* small = huge + kHugePage;
  madvise(huge, kHugePage, MADV_HUGEPAGE);
  madvise(small, kSmallBytes, MADV_NOHUGEPAGE);
  double small_ms = touch_ms(small, kSmallBytes / 2);
  const double huge_ms = touch_ms(huge, kHugePage);
  small_ms += touch_ms(small + kSmallBytes / 2, kSmallBytes / 2);
  munmap(map, len);
  constexpr double kMB = 1 << 20;
  return PageProbe{.huge_ms_per_mb = huge_ms * kMB / kHugePage, .small_ms_per_mb = small_ms * kMB / kSmallBytes};
}

void recheck_fresh_pages(PageChoice& choice) {
  std::unique_lock lock(recheck_mu, std::try_to_lock);
  if (!lock.owns_lock() || !choice.probed || choice.small_pages) return;
  // Only while the run still grows: its peak 8 MB past the last check's.
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0 || usage.ru_maxrss < checked_peak_kb + (8 << 10)) return;
  checked_peak_kb = usage.ru_maxrss;
  const size_t len = 2 * kHugePage;
  void* map = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) return;
  char* huge = huge_aligned(map);
  madvise(huge, kHugePage, MADV_HUGEPAGE);
  constexpr double kMB = 1 << 20;
  const double ms_per_mb = touch_ms(huge, kHugePage, thread_cpu_ms) * kMB / kHugePage;
  held_page.release();
  held_page = HeldPage{map, len};
  if (!small_pages_pay({.huge_ms_per_mb = ms_per_mb, .small_ms_per_mb = choice.probe.small_ms_per_mb})) {
    choice.checks_passed++;
    return;
  }
  if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0) return;
  held_page.release();
  choice.small_pages = choice.turned_off_later = true;
  choice.late_huge_ms_per_mb = ms_per_mb;
}

void recheck_fresh_pages() { recheck_fresh_pages(process_choice); }

PageChoice page_choice() {
  std::lock_guard lock(recheck_mu);
  return process_choice;
}

PageChoice tune_allocator(unsigned threads, bool large_input) {
  PageChoice choice;
  if (large_input) {
    choice.probed = true;
    choice.probe = probe_fresh_pages();
    // Refused only by kernels before 3.15: huge pages then stay.
    choice.small_pages = small_pages_pay(choice.probe) && prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) == 0;
  }
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
  std::lock_guard lock(recheck_mu);
  process_choice = choice;
  return choice;
}

}  // namespace btfc
