// parallel_for reports the error of the lowest failing index, whatever the
// number of threads, so error messages do not depend on -j;
// parallel_for_in_order also starts its items in index order.
#include "base/parallel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/error.h"

namespace btfc {
namespace {

TEST(ParallelFor, VisitsEveryIndexOnce) {
  for (unsigned j : {1u, 2u, 4u}) {
    set_jobs(j);
    std::vector<std::atomic<int>> seen(1000);
    parallel_for(seen.size(), [&](size_t i) { seen[i]++; });
    for (auto& s : seen) EXPECT_EQ(s.load(), 1);
  }
  set_jobs(0);
}

// -jN means N threads even beyond the machine's cores (as pahole's -j):
// N items that each wait for all N to start only finish on N threads.
TEST(ParallelFor, RunsAsManyThreadsAsAskedBeyondTheCores) {
  const unsigned n = std::max(2u, std::thread::hardware_concurrency()) + 2;
  set_jobs(n);
  std::atomic<unsigned> started{0};
  std::mutex mu;
  std::set<std::thread::id> threads;
  parallel_for(n, [&](size_t) {
    started++;
    auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (started.load() < n && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
    std::lock_guard lock(mu);
    threads.insert(std::this_thread::get_id());
  });
  set_jobs(0);
  EXPECT_EQ(threads.size(), n);
}

TEST(ParallelFor, LowestFailingIndexWins) {
  for (unsigned j : {1u, 2u, 8u}) {
    set_jobs(j);
    try {
      parallel_for(500, [&](size_t i) {
        if (i % 7 == 3) throw Error(".x", i, "bad item");
      });
      FAIL() << "no error";
    } catch (const Error& e) {
      EXPECT_STREQ(e.what(), ".x+0x3: bad item");
    }
  }
  set_jobs(0);
}

TEST(ParallelForInOrder, VisitsEveryIndexOnceAndKeepsTheLowestError) {
  for (unsigned j : {1u, 2u, 4u}) {
    set_jobs(j);
    std::vector<std::atomic<int>> seen(1000);
    parallel_for_in_order(seen.size(), [&](size_t i) { seen[i]++; });
    for (auto& s : seen) EXPECT_EQ(s.load(), 1);
    try {
      parallel_for_in_order(500, [&](size_t i) {
        if (i % 7 == 3) throw Error(".x", i, "bad item");
      });
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_STREQ(e.what(), ".x+0x3: bad item");
    }
  }
  set_jobs(0);
}

// While item 0 runs, the other thread's first item is item 1 (parallel_for
// would start it halfway through the range).
TEST(ParallelForInOrder, SecondThreadStartsAtItemOne) {
  set_jobs(2);
  std::atomic<long> first_other{-1};
  std::atomic<bool> timed_out{false};
  parallel_for_in_order(100, [&](size_t i) {
    if (i == 0) {
      auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (first_other.load() < 0 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
      timed_out = first_other.load() < 0;
      return;
    }
    long none = -1;
    first_other.compare_exchange_strong(none, static_cast<long>(i));
  });
  set_jobs(0);
  // Without a second worker thread the items run one after another, item
  // 0 first, and its wait times out: that order says nothing.
  if (timed_out) GTEST_SKIP() << "LOUD: TBB gave this arena no second thread within 20 s; order not tested";
  EXPECT_EQ(first_other.load(), 1);
}

// A loop inside another loop's item runs on the outer loop's threads, and
// a thread waiting for the inner loop takes only its items: no outer item
// ever starts on a thread in the middle of another (the encoder keeps
// per-thread scratch space for its items).
TEST(ParallelFor, NestedLoopsDoNotStartOuterItemsInsideInnerOnes) {
  set_jobs(2);
  thread_local int depth = 0;
  std::atomic<int> deepest{0};
  std::vector<std::atomic<int>> seen(64 * 100);
  parallel_for(64, [&](size_t i) {
    ++depth;
    int d = depth;
    int was = deepest.load();
    while (d > was && !deepest.compare_exchange_weak(was, d)) {
    }
    // Uneven inner loops: a thread done with its own inner items while
    // another's are still running looks for other work.
    parallel_for(i % 2 ? 100 : 2, [&](size_t k) {
      seen[i * 100 + k]++;
      std::this_thread::sleep_for(std::chrono::microseconds(i % 2 ? 20 : 400));
    });
    --depth;
  });
  set_jobs(0);
  EXPECT_EQ(deepest.load(), 1);
  for (size_t i = 0; i < seen.size(); i++) EXPECT_EQ(seen[i].load(), (i / 100) % 2 || i % 100 < 2 ? 1 : 0) << i;
  // And the lowest failing index of an inner loop is what its caller sees.
  set_jobs(2);
  try {
    parallel_for(4, [&](size_t i) {
      parallel_for(50, [&](size_t k) {
        if (i == 2 && k % 9 == 4) throw Error(".y", k, "bad inner item");
      });
    });
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), ".y+0x4: bad inner item");
  }
  set_jobs(0);
}

long resident_kb() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

// A process that runs loop after loop (a fuzz target reading input after
// input, a batch of modules) keeps its memory: oneTBB keeps about 7 KB of
// every arena made and destroyed (35 MB for these 5,000 loops when each
// made its own), so a thread's loops share one.
TEST(ParallelFor, LoopAfterLoopKeepsItsMemory) {
  set_jobs(2);
  std::atomic<size_t> items{0};
  parallel_for(2, [&](size_t) { items++; });  // the arena and its workers are made
  const long before = resident_kb();
  ASSERT_GT(before, 0) << "no VmRSS in /proc/self/status";
  for (int i = 0; i < 5000; i++) parallel_for(2, [&](size_t) { items++; });
  EXPECT_EQ(items.load(), 10002u);
  EXPECT_LT(resident_kb() - before, 8 * 1024) << "resident memory grew by more than 8 MB over 5,000 loops";
  set_jobs(0);
}

// Ranges of [begin, end): each index in exactly one, each range `chunk`
// long but the last, which ends at `end`; an empty interval calls nothing.
TEST(ParallelForRanges, CoversTheIntervalInChunks) {
  set_jobs(2);
  std::vector<std::atomic<int>> seen(1000);
  std::atomic<int> calls{0}, short_ranges{0};
  parallel_for_ranges(3, 1000, 64, [&](size_t lo, size_t hi) {
    calls++;
    EXPECT_EQ((lo - 3) % 64, 0u) << lo;
    EXPECT_LT(lo, hi);
    if (hi - lo != 64) {
      short_ranges++;
      EXPECT_EQ(hi, 1000u);
    }
    for (size_t i = lo; i < hi; i++) seen[i]++;
  });
  EXPECT_EQ(calls.load(), 16);  // 997 = 15 * 64 + 37
  EXPECT_EQ(short_ranges.load(), 1);
  for (size_t i = 0; i < seen.size(); i++) EXPECT_EQ(seen[i].load(), i >= 3 ? 1 : 0) << i;
  parallel_for_ranges(5, 5, 64, [&](size_t, size_t) { calls++; });
  parallel_for_ranges(7, 5, 64, [&](size_t, size_t) { calls++; });
  EXPECT_EQ(calls.load(), 16);
  set_jobs(0);
}

}  // namespace
}  // namespace btfc
