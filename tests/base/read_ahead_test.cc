// ReadAhead: a file whose pages the kernel dropped is read back into the
// page cache by the thread it starts (within 20 s: a bound against a
// hang, not a timing), so that the encode's own reads find every page
// there; a file already cached, or too small to be worth a thread, starts
// nothing; ranges a hostile file may name (past its end, sizes that
// overflow) end the reading quietly, never hang or crash.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "base/read_ahead.h"
#include "support/test_support.h"

namespace btfc {
namespace {

// A file of `bytes` on disk, written and synced, so that the kernel can
// drop its clean pages.
std::string write_file(const std::string& name, size_t bytes) {
  std::string path = test::scratch_dir() + "/" + name;
  std::vector<char> data(bytes);
  for (size_t i = 0; i < data.size(); i++) data[i] = static_cast<char>(i * 13 + (i >> 10));
  std::ofstream(path, std::ios::binary).write(data.data(), static_cast<std::streamsize>(data.size()));
  int fd = ::open(path.c_str(), O_RDONLY);
  fdatasync(fd);
  ::close(fd);
  return path;
}

TEST(ReadAhead, ReadsADroppedFileBackIntoTheCache) {
  constexpr size_t kBytes = 8 << 20;
  constexpr long kPages = kBytes / 4096;
  std::string path = write_file("cold.bin", kBytes);
  int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  std::vector<char> all(kBytes);
  ASSERT_EQ(pread(fd, all.data(), all.size(), 0), static_cast<ssize_t>(all.size()));
  if (test::uncached_pages(fd, 0, kBytes) != 0)
    GTEST_SKIP() << "\n*** the page cache cannot be asked here: READ-AHEAD NOT TESTED ***\n";
  posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  const long before = test::uncached_pages(fd, 0, kBytes);
  if (before < kPages / 2)
    GTEST_SKIP() << "\n*** the kernel kept the file's pages (" << kPages - before
                 << "): READ-AHEAD NOT TESTED ***\n";
  // Two ranges, given out of order: both are read, while this thread
  // looks (destroying `ahead` would stop it).
  ReadAhead ahead(fd, {{4 << 20, 4 << 20}, {0, 4 << 20}});
  EXPECT_TRUE(ahead.started());
  long left = before;
  for (int i = 0; i < 2000 && left != 0; i++) {
    left = test::uncached_pages(fd, 0, kBytes);
    usleep(10000);
  }
  EXPECT_EQ(left, 0);
  ::close(fd);
}

TEST(ReadAhead, StartsNothingForACachedOrSmallFile) {
  std::string path = write_file("warm.bin", 4 << 20);
  int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  std::vector<char> all(4 << 20);
  ASSERT_EQ(pread(fd, all.data(), all.size(), 0), static_cast<ssize_t>(all.size()));  // now cached
  EXPECT_FALSE(ReadAhead(fd, {{0, 4 << 20}}).started());
  posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  EXPECT_FALSE(ReadAhead(fd, {{0, ReadAhead::kMinBytes - 1}}).started());  // too small, cached or not
  EXPECT_FALSE(ReadAhead(fd, {}).started());
  EXPECT_FALSE(ReadAhead(-1, {{0, 4 << 20}}).started());  // no file (a parsed buffer)
  ::close(fd);
}

TEST(ReadAhead, RangesPastTheEndStopQuietly) {
  std::string path = write_file("short.bin", 2 << 20);
  int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  // A section header may name any offset and size: past the end, wrapping
  // around, or a terabyte from the first byte. Each returns (joined).
  { ReadAhead a(fd, {{1 << 20, uint64_t{1} << 40}}); }
  { ReadAhead a(fd, {{UINT64_MAX - 10, 1 << 30}, {0, UINT64_MAX}}); }
  { ReadAhead a(fd, {{uint64_t{1} << 50, 8 << 20}}); }
  SUCCEED();
  ::close(fd);
}

}  // namespace
}  // namespace btfc
