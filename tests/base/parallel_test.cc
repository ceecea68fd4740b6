// parallel_for reports the error of the lowest failing index, whatever the
// number of threads, so error messages do not depend on -j.
#include "base/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
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

}  // namespace
}  // namespace btfc
