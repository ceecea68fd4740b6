// ReadAhead: a file whose pages the kernel dropped is read back into the
// page cache by the thread it starts (within 20 s: a bound against a hang,
// not a timing), so that the encode's own reads find every page there; a file already cached, or too small to be worth a
// thread, starts nothing; ranges a hostile file may name (past its end,
// sizes that overflow) end the reading quietly, never hang or crash.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/uio.h>
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

// How many of the file's pages in [0, bytes) the page cache holds, by reads
// that may not wait for the disk; -1 if the kernel cannot tell.
int cached_pages(int fd, size_t bytes) {
  int n = 0;
  for (size_t at = 0; at < bytes; at += 4096) {
    char byte;
    iovec v{&byte, 1};
    ssize_t r = preadv2(fd, &v, 1, static_cast<off_t>(at), RWF_NOWAIT);
    if (r == 1) n++;
    else if (errno != EAGAIN) return -1;
  }
  return n;
}

TEST(ReadAhead, ReadsADroppedFileBackIntoTheCache) {
  constexpr size_t kBytes = 8 << 20;
  std::string path = write_file("cold.bin", kBytes);
  int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  const int before = cached_pages(fd, kBytes);
  if (before < 0) GTEST_SKIP() << "\n*** RWF_NOWAIT unknown to this kernel: READ-AHEAD NOT TESTED ***\n";
  if (before > static_cast<int>(kBytes / 4096) / 2)
    GTEST_SKIP() << "\n*** the kernel kept the file's pages (" << before << "): READ-AHEAD NOT TESTED ***\n";
  // Two ranges, given out of order: both are read, while this thread
  // looks (destroying `ahead` would stop it).
  ReadAhead ahead(fd, {{4 << 20, 4 << 20}, {0, 4 << 20}});
  EXPECT_TRUE(ahead.started());
  int cached = 0;
  for (int i = 0; i < 2000 && cached < static_cast<int>(kBytes / 4096); i++) {
    cached = cached_pages(fd, kBytes);
    usleep(10000);
  }
  EXPECT_EQ(cached, static_cast<int>(kBytes / 4096));
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
