// Dedup against libbpf on random type graphs (support/random_btf.h):
// every kind dedup knows, forward references, structs declared only or
// defined otherwise, identical twins, and split tables that refer to
// their base directly. Every way btfc deduplicates a table must give
// libbpf's bytes (support/dedup_ways.h). The fuzz target dedup_vs_libbpf
// runs the same with a fuzzer's choices.
#include <gtest/gtest.h>

#include <cstdio>

#include "support/dedup_ways.h"
#include "support/random_btf.h"

namespace btfc::btf::testing {
namespace {

TEST(DedupGraph, RandomGraphsMatchLibbpfByteForByte) {
  constexpr uint32_t kSeeds = 3000;
  uint32_t bases = 0, splits = 0;
  for (uint32_t seed = 1; seed <= kSeeds; ++seed) {
    SeededChoices c(seed);
    RandomTables t = random_tables(c);
    if (!t.base) continue;
    ++bases;
    ASSERT_EQ(dedup_difference(*t.base), "") << "seed " << seed << ": the base alone";
    if (!t.split) continue;
    ++splits;
    ASSERT_EQ(dedup_difference(*t.split, t.stages), "") << "seed " << seed << ": the split table";
  }
  // A test of few tables would pass for nothing.
  EXPECT_GT(bases, kSeeds * 9 / 10);
  EXPECT_GT(splits, kSeeds * 8 / 10);
  std::printf("%u seeds: %u bases and %u split tables compared\n", kSeeds, bases, splits);
}

}  // namespace
}  // namespace btfc::btf::testing
