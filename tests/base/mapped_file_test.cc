// MappedFile::release: dropping pages from resident memory never changes
// what the mapping reads, and a range that is not part of the mapping (a
// heap copy) is left alone. MappedFile::read gives the bytes the mapping
// shows, and PageBuffer is plain writable memory at every size.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "base/mapped_file.h"
#include "base/page_buffer.h"
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

TEST(MappedFile, ReadCopiesTheFileBytes) {
  std::string path = test::scratch_dir() + "/pattern-read.bin";
  std::vector<char> pattern(3 << 20);  // past PageBuffer::kMapped
  for (size_t i = 0; i < pattern.size(); i++) pattern[i] = static_cast<char>(i * 13 + (i >> 11));
  std::ofstream(path, std::ios::binary).write(pattern.data(), static_cast<std::streamsize>(pattern.size()));
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

}  // namespace
}  // namespace btfc
