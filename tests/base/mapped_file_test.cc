// A file that shrinks while mapped (another process truncates it): a read
// past its new end ends the process with status 1 and one line naming the
// file and the offset, the temporary outputs removed; any other SIGBUS
// still crashes.
//
// MappedFile::release: dropping pages from resident memory never changes
// what the mapping reads, and a range that is not part of the mapping (a
// heap copy) is left alone. MappedFile::read and copy_out give the bytes
// the mapping shows, and PageBuffer is plain writable memory at every size,
// whose discard() gives back the whole pages of a range and nothing else.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "base/mapped_file.h"
#include "base/page_buffer.h"
#include "base/remove_on_signal.h"
#include "support/test_support.h"

// Built with AddressSanitizer? GCC says so by a macro, clang by a feature.
#if defined(__SANITIZE_ADDRESS__)
#define BTFC_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BTFC_TEST_ASAN 1
#endif
#endif

namespace btfc {
namespace {

struct ChildEnd {
  int status = 0;
  std::string err;  // what it wrote to stderr
};

// Runs `body` in a child process, its stderr into a file.
ChildEnd in_child(const std::string& dir, const std::function<void()>& body) {
  const std::string err_path = dir + "/stderr";
  pid_t child = fork();
  if (child == 0) {
    int fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || dup2(fd, STDERR_FILENO) < 0) _exit(99);
    body();
    _exit(0);
  }
  ChildEnd end;
  EXPECT_GT(child, 0);
  EXPECT_EQ(waitpid(child, &end.status, 0), child);
  end.err = test::read_file(err_path);
  return end;
}

std::string file_of_pages(const std::string& path, size_t pages) {
  std::ofstream(path, std::ios::binary) << std::string(pages * 4096, 'x');
  return path;
}

TEST(MappedFile, ReadPastAShrunkFileIsAnErrorNamingIt) {
  const std::string dir = test::scratch_dir() + "/shrunk";
  std::filesystem::create_directories(dir);
  const std::string path = file_of_pages(dir + "/vmlinux", 3);
  const std::string tmp = dir + "/vmlinux.tmp.123456";
  std::ofstream(tmp) << "half-written output";
  ChildEnd end = in_child(dir, [&] {
    MappedFile f = MappedFile::open(path);
    MappedFile moved = std::move(f);  // the guard goes with the mapping
    RemoveOnSignal guard(tmp);
    if (truncate(path.c_str(), 4096) != 0) _exit(98);
    volatile uint8_t byte = moved.bytes()[2 * 4096 + 0x1c];
    (void)byte;
  });
  ASSERT_TRUE(WIFEXITED(end.status)) << "the child was killed by signal " << WTERMSIG(end.status) << ": " << end.err;
  EXPECT_EQ(WEXITSTATUS(end.status), 1) << end.err;
  EXPECT_EQ(end.err, "btfc: " + path + ": cannot read offset 0x201c: the file shrank (or its storage failed) "
                                       "while being read\n");
  EXPECT_FALSE(std::filesystem::exists(tmp)) << "the temporary output was left behind";
}

TEST(MappedFile, AFaultOutsideTheMappedFilesStillCrashes) {
  const std::string dir = test::scratch_dir() + "/other-fault";
  std::filesystem::create_directories(dir);
  const std::string ours = file_of_pages(dir + "/ours", 2);
  const std::string other = file_of_pages(dir + "/other", 2);
  ChildEnd end = in_child(dir, [&] {
    MappedFile f = MappedFile::open(ours);  // the handler is in place
    int fd = ::open(other.c_str(), O_RDONLY);
    void* p = mmap(nullptr, 2 * 4096, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED || truncate(other.c_str(), 0) != 0) _exit(98);
    volatile uint8_t byte = static_cast<const uint8_t*>(p)[4096];
    (void)byte;
  });
  EXPECT_EQ(end.err.find("shrank"), std::string::npos) << end.err;
#if defined(BTFC_TEST_ASAN)
  // AddressSanitizer's own handler was there first: it reports and exits.
  EXPECT_NE(end.err.find("BUS"), std::string::npos) << end.err;
  EXPECT_FALSE(WIFEXITED(end.status) && WEXITSTATUS(end.status) == 0);
#else
  ASSERT_TRUE(WIFSIGNALED(end.status)) << "exit status " << WEXITSTATUS(end.status) << ": " << end.err;
  EXPECT_EQ(WTERMSIG(end.status), SIGBUS);
#endif
}

// Writes `size` bytes to `path` that differ from page to page and within a
// page (a misplaced copy shows), and returns them.
std::vector<char> write_pattern(const std::string& path, size_t size) {
  std::vector<char> pattern(size);
  for (size_t i = 0; i < pattern.size(); i++) pattern[i] = static_cast<char>(i * 7 + (i >> 12));
  std::ofstream(path, std::ios::binary).write(pattern.data(), static_cast<std::streamsize>(pattern.size()));
  return pattern;
}

TEST(MappedFile, ReleaseKeepsTheContent) {
  std::string path = test::scratch_dir() + "/pattern.bin";
  const std::vector<char> pattern = write_pattern(path, 1 << 20);
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

TEST(MappedFile, ReadCopiesTheFileBytes) {
  std::string path = test::scratch_dir() + "/pattern-read.bin";
  const std::vector<char> pattern = write_pattern(path, 3 << 20);  // past PageBuffer::kMapped
  MappedFile f = MappedFile::open(path);
  for (auto [offset, size] : {std::pair<size_t, size_t>{0, pattern.size()}, {4097, 2500000}, {12345, 100}, {77, 0}}) {
    PageBuffer buf(size);
    ASSERT_EQ(buf.size(), size);
    ASSERT_TRUE(f.read(offset, buf.span()));
    if (size == 0) continue;
    EXPECT_EQ(std::memcmp(buf.data(), pattern.data() + offset, size), 0) << offset << "+" << size;
    std::memset(buf.data(), 0x5a, size);  // writable to the last byte
    EXPECT_EQ(buf.data()[size - 1], 0x5a);
  }
  // Past the end: an error naming the file, never a short copy.
  std::vector<uint8_t> out(10);
  try {
    f.read(pattern.size() - 5, out);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_NE(e.message().find("outside the file"), std::string::npos) << e.what();
  }
  // No file behind it: nothing read, the caller copies from its bytes.
  EXPECT_FALSE(MappedFile().read(0, out));
}

// Discarded pages read as zeros (their memory went back to the system);
// the bytes around them, in the same pages as the range's unaligned ends
// or outside it, keep their values. A heap-block buffer and a range
// outside the buffer are left alone.
TEST(PageBuffer, DiscardGivesBackWholePagesOnly) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  PageBuffer big(PageBuffer::kMapped + 5 * page);
  std::memset(big.data(), 0xab, big.size());
  const size_t from = 3 * page + 100, to = 9 * page + 50;  // whole pages 4..8
  big.discard(big.span().subspan(from, to - from));
  for (size_t i = 0; i < big.size(); i += 64) {
    bool gone = i >= 4 * page && i < 9 * page;
    ASSERT_EQ(big.data()[i], gone ? 0 : 0xab) << i;
  }
  EXPECT_EQ(big.data()[4 * page - 1], 0xab);
  EXPECT_EQ(big.data()[9 * page], 0xab);
  PageBuffer other(PageBuffer::kMapped);
  std::memset(other.data(), 0xcd, other.size());
  big.discard(other.span());  // not big's: nothing happens to either
  EXPECT_EQ(other.data()[page], 0xcd);
  PageBuffer small(3 * page);
  std::memset(small.data(), 0xef, small.size());
  small.discard(small.span());  // a heap block: kept
  EXPECT_EQ(small.data()[page + 1], 0xef);
}

// copy_out gives the bytes at a pointer, whether it points into the
// mapping (read from the file) or elsewhere (copied from memory).
TEST(MappedFile, CopyOutFromTheMappingOrMemory) {
  std::string path = test::scratch_dir() + "/pattern-copy.bin";
  const std::vector<char> pattern = write_pattern(path, 1 << 16);
  MappedFile f = MappedFile::open(path);
  uint8_t head[64];
  for (size_t at : {size_t{0}, size_t{4095}, pattern.size() - sizeof head}) {
    std::memset(head, 0, sizeof head);
    f.copy_out(f.bytes().data() + at, head);
    EXPECT_EQ(std::memcmp(head, pattern.data() + at, sizeof head), 0) << at;
  }
  std::vector<uint8_t> heap(100, 0x3c);
  f.copy_out(heap.data() + 10, std::span<uint8_t>(head, 20));
  for (size_t i = 0; i < 20; i++) ASSERT_EQ(head[i], 0x3c);
  // No file at all (a parsed buffer): from memory too.
  MappedFile().copy_out(heap.data(), std::span<uint8_t>(head, 8));
  EXPECT_EQ(head[7], 0x3c);
}

// copy_to appends a range of the mapping to a file at its write position,
// between bytes written with write(); a range that is not the mapping's (a
// heap copy), or a MappedFile with no file, copies nothing.
TEST(MappedFile, CopyToAppendsTheFileBytesAtTheWritePosition) {
  std::string path = test::scratch_dir() + "/pattern-copy-to.bin";
  const std::vector<char> pattern = write_pattern(path, 3 << 20);
  MappedFile f = MappedFile::open(path);
  std::string out_path = test::scratch_dir() + "/copy-to-out.bin";
  int fd = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "head", 4), 4);
  const size_t at = 4097, n = 2500000;
  EXPECT_EQ(f.copy_to(fd, f.bytes().subspan(at, n)), n);
  std::vector<uint8_t> heap(100, 0x3c);
  EXPECT_EQ(f.copy_to(fd, Bytes(heap.data(), heap.size())), 0u);
  EXPECT_EQ(MappedFile().copy_to(fd, Bytes(heap.data(), heap.size())), 0u);
  ASSERT_EQ(write(fd, "tail", 4), 4);
  ASSERT_EQ(close(fd), 0);
  EXPECT_EQ(test::read_file(out_path), "head" + std::string(pattern.data() + at, n) + "tail");
}

// resize keeps the bytes it keeps, across the heap/mapping boundary both
// ways and within a mapping (mremap: no copy), and the buffer is writable
// to its new last byte.
TEST(PageBuffer, ResizeKeepsTheBytes) {
  const size_t sizes[] = {100, PageBuffer::kMapped + 5000, 3 * PageBuffer::kMapped, PageBuffer::kMapped + 1, 4000, 0,
                          PageBuffer::kMapped * 2};
  PageBuffer buf(10);
  for (size_t i = 0; i < 10; i++) buf.data()[i] = static_cast<uint8_t>(i * 7);
  size_t filled = 10;  // bytes [0, filled) hold i * 7 + i / 251
  for (size_t size : sizes) {
    buf.resize(size);
    ASSERT_EQ(buf.size(), size);
    const size_t kept = std::min(filled, size);
    for (size_t i = 0; i < kept; i++)
      ASSERT_EQ(buf.data()[i], static_cast<uint8_t>(i * 7 + i / 251)) << "byte " << i << " after resize to " << size;
    for (size_t i = kept; i < size; i++) buf.data()[i] = static_cast<uint8_t>(i * 7 + i / 251);
    filled = size;
  }
}

}  // namespace
}  // namespace btfc
