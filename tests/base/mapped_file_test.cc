// MappedFile::release: dropping pages from resident memory never changes
// what the mapping reads, and a range that is not part of the mapping (a
// heap copy) is left alone.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "base/mapped_file.h"
#include "support/test_support.h"

namespace btfc {
namespace {

TEST(MappedFile, ReleaseKeepsTheContent) {
  std::string path = test::scratch_dir() + "/pattern.bin";
  std::vector<char> pattern(1 << 20);
  for (size_t i = 0; i < pattern.size(); i++) pattern[i] = static_cast<char>(i * 7 + (i >> 12));
  std::ofstream(path, std::ios::binary).write(pattern.data(), static_cast<std::streamsize>(pattern.size()));
  MappedFile f = MappedFile::open(path);
  Bytes all = f.bytes();
  ASSERT_EQ(all.size(), pattern.size());
  ASSERT_EQ(std::memcmp(all.data(), pattern.data(), pattern.size()), 0);
  f.release(all.subspan(5000, 300000));  // unaligned ends: only whole pages go
  f.release(all);
  EXPECT_EQ(std::memcmp(all.data(), pattern.data(), pattern.size()), 0);

  // Not part of the mapping: untouched (MADV_DONTNEED would zero heap pages).
  std::vector<uint8_t> heap(1 << 16, 0xab);
  f.release(Bytes(heap.data(), heap.size()));
  for (uint8_t b : heap) ASSERT_EQ(b, 0xab);
}

}  // namespace
}  // namespace btfc
