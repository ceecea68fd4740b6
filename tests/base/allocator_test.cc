// A large run chooses the page size of its fresh memory by timing both
// (base/allocator.h), and checks huge pages again as it grows; a small
// run keeps huge pages without a probe.
#include "base/allocator.h"

#include <gtest/gtest.h>

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <fstream>

namespace btfc {
namespace {

long resident_pages() {
  long size = 0, resident = 0;
  std::ifstream("/proc/self/statm") >> size >> resident;
  return resident;
}

TEST(Allocator, SmallPagesOnlyWhenHugeOnesCostTwiceAsMuch) {
  // Session 45's host after pahole, and session 46's host at any time.
  EXPECT_TRUE(small_pages_pay({.huge_ms_per_mb = 2.1, .small_ms_per_mb = 0.31}));
  EXPECT_FALSE(small_pages_pay({.huge_ms_per_mb = 0.20, .small_ms_per_mb = 0.55}));
  // Slower, but not by enough to give up fewer TLB misses.
  EXPECT_FALSE(small_pages_pay({.huge_ms_per_mb = 0.5, .small_ms_per_mb = 0.31}));
  // No figures (the probe's mapping failed): huge pages stay.
  EXPECT_FALSE(small_pages_pay({}));
}

TEST(Allocator, ProbeTimesBothAndGivesItsMemoryBack) {
  const long before = resident_pages();
  PageProbe p = probe_fresh_pages();
  EXPECT_GT(p.huge_ms_per_mb, 0);
  EXPECT_GT(p.small_ms_per_mb, 0);
  EXPECT_TRUE(std::isfinite(p.huge_ms_per_mb) && std::isfinite(p.small_ms_per_mb));
  // 3 MB touched and unmapped: resident memory has not grown by it.
  EXPECT_LT(resident_pages() - before, 512) << "the probe's 3 MB stayed mapped";
}

// tune_allocator changes the process for good, so each case runs in a child.
template <typename F>
int in_child(F f) {
  pid_t pid = fork();
  if (pid == 0) _exit(f());
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

TEST(Allocator, SmallInputKeepsHugePagesWithoutProbe) {
  EXPECT_EQ(in_child([] {
              PageChoice c = tune_allocator(2, false);
              return (c.probed ? 1 : 0) | (c.small_pages ? 2 : 0) | (prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) ? 4 : 0);
            }),
            0);
}

TEST(Allocator, LargeInputTurnsHugePagesOffAsItsProbeSays) {
  // Huge pages kept or turned off, the probe decided, and the process
  // says what the choice says.
  EXPECT_EQ(in_child([] {
              PageChoice c = tune_allocator(2, true);
              const bool off = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) != 0;
              return (c.probed ? 0 : 1) | (c.small_pages == small_pages_pay(c.probe) ? 0 : 2) |
                     (off == c.small_pages ? 0 : 4);
            }),
            0);
}

// Touches `mb` fresh megabytes, kept to the end of the (child) process:
// the run grows, as an encoder's tables do.
void grow_by(size_t mb) {
  char* p = new char[mb << 20];
  for (size_t i = 0; i < (mb << 20); i += 4096) static_cast<volatile char*>(p)[i] = 1;
}

TEST(Allocator, RecheckWithoutProbeDoesNothing) {
  EXPECT_EQ(in_child([] {
              grow_by(16);
              PageChoice c;  // a small input: never probed
              recheck_fresh_pages(c);
              return (c.small_pages ? 1 : 0) | (c.checks_passed ? 2 : 0) |
                     (prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) ? 4 : 0);
            }),
            0);
}

TEST(Allocator, RecheckKeepsHugePagesThatStayFastAndChecksOnlyAsTheRunGrows) {
  EXPECT_EQ(in_child([] {
              grow_by(16);
              // Small pages said to cost a second per MB: no huge page is
              // twice as slow.
              PageChoice c{.probed = true, .probe = {.huge_ms_per_mb = 0.1, .small_ms_per_mb = 1000}};
              recheck_fresh_pages(c);
              int bad = c.checks_passed == 1 ? 0 : 1;
              recheck_fresh_pages(c);  // no growth since: no check
              bad |= c.checks_passed == 1 ? 0 : 2;
              grow_by(12);
              recheck_fresh_pages(c);
              bad |= c.checks_passed == 2 ? 0 : 4;
              bad |= (c.small_pages || c.turned_off_later) ? 8 : 0;
              bad |= prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) ? 16 : 0;
              return bad;
            }),
            0);
}

TEST(Allocator, RecheckTurnsHugePagesOffWhenTheyComeSlow) {
  EXPECT_EQ(in_child([] {
              grow_by(16);
              // Small pages said to cost nothing: any huge page is slower
              // than twice that.
              PageChoice c{.probed = true, .probe = {.huge_ms_per_mb = 0.1, .small_ms_per_mb = 1e-12}};
              recheck_fresh_pages(c);
              int bad = (c.small_pages && c.turned_off_later) ? 0 : 1;
              bad |= c.late_huge_ms_per_mb > 0 ? 0 : 2;
              bad |= prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) ? 0 : 4;
              // Off for good: later calls change nothing.
              grow_by(12);
              recheck_fresh_pages(c);
              bad |= c.checks_passed == 0 ? 0 : 8;
              return bad;
            }),
            0);
}

TEST(Allocator, ProcessChoiceIsTheProbesAsChecksChangeIt) {
  // What tune_allocator chose is what page_choice() says, and a check
  // without a choice of its own works on it (a batch's modules).
  EXPECT_EQ(in_child([] {
              const PageChoice first = tune_allocator(2, true);
              PageChoice now = page_choice();
              int bad = (now.probed && now.small_pages == first.small_pages) ? 0 : 1;
              grow_by(16);
              recheck_fresh_pages();
              now = page_choice();
              if (first.small_pages)
                bad |= now.checks_passed == 0 && !now.turned_off_later ? 0 : 2;  // off already: no check
              else
                bad |= (now.checks_passed == 1) != now.turned_off_later ? 0 : 4;  // checked once, either way
              const bool off = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) != 0;
              bad |= off == now.small_pages ? 0 : 8;
              return bad;
            }),
            0);
}

}  // namespace
}  // namespace btfc
