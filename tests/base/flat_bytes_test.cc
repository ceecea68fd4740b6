// FlatWriter/FlatReader, the base cache's images: what is written reads
// back the same from memory and from a file (in blocks, across block
// ends), the digest of everything read equals flat_digest() of the image
// (and differs for a changed byte), and a short, cut or oversized image
// is refused rather than read past. prefault() and assign_prefaulted()
// leave contents as plain code would.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "base/flat_bytes.h"
#include "base/prefault.h"
#include "support/test_support.h"

namespace btfc {
namespace {

struct Pair {
  uint32_t a, b;
};

std::vector<uint8_t> image(const std::vector<Pair>& pairs, const std::vector<uint64_t>& wide) {
  std::vector<uint8_t> out;
  FlatWriter(out).value(uint32_t{0xfeedf00d}).array(std::span<const Pair>(pairs)).array(std::span<const uint64_t>(wide));
  return out;
}

// Reads image() back; false if any step fails.
bool read_back(FlatReader& in, std::vector<Pair>& pairs, std::vector<uint64_t>& wide) {
  uint32_t magic = 0;
  return in.value(magic) && magic == 0xfeedf00d && in.array(pairs, 1u << 20) && in.array(wide, 1u << 20) && in.done();
}

TEST(FlatBytes, RoundTripFromMemoryAndFile) {
  std::vector<Pair> pairs(100000);  // 800 KB: several of the reader's blocks
  for (uint32_t i = 0; i < pairs.size(); ++i) pairs[i] = {i * 2654435761u, ~i};
  std::vector<uint64_t> wide = {1, 2, 0xffffffffffffffffull};
  std::vector<uint8_t> bytes = image(pairs, wide);

  std::vector<Pair> p;
  std::vector<uint64_t> w;
  FlatReader mem(bytes);
  ASSERT_TRUE(read_back(mem, p, w));
  EXPECT_EQ(mem.digest(), flat_digest(bytes));
  ASSERT_EQ(p.size(), pairs.size());
  EXPECT_EQ(std::memcmp(p.data(), pairs.data(), pairs.size() * sizeof(Pair)), 0);
  EXPECT_EQ(w, wide);

  // In a file, after 5 bytes of something else.
  std::string path = test::scratch_dir() + "/flat.bin";
  {
    std::ofstream f(path, std::ios::binary);
    f.write("junk!", 5);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  std::vector<Pair> p2;
  std::vector<uint64_t> w2;
  FlatReader file(fd, 5, bytes.size());
  ASSERT_TRUE(read_back(file, p2, w2));
  EXPECT_EQ(file.digest(), flat_digest(bytes));
  EXPECT_EQ(std::memcmp(p2.data(), pairs.data(), pairs.size() * sizeof(Pair)), 0);
  EXPECT_EQ(w2, wide);

  // The file is shorter than the image said: a failed read, not garbage.
  FlatReader past(fd, 5 + 100, bytes.size());
  EXPECT_FALSE(read_back(past, p2, w2));
  ::close(fd);
}

TEST(FlatBytes, ChangedCutOrOversizedImages) {
  std::vector<Pair> pairs(1000, Pair{7, 9});
  std::vector<uint8_t> bytes = image(pairs, {42});
  std::vector<Pair> p;
  std::vector<uint64_t> w;

  std::vector<uint8_t> changed = bytes;
  changed[changed.size() / 2] ^= 1;  // inside the pairs: reads fine, digest differs
  FlatReader c(changed);
  ASSERT_TRUE(read_back(c, p, w));
  EXPECT_NE(c.digest(), flat_digest(bytes));

  for (size_t cut : {size_t{0}, size_t{3}, size_t{11}, bytes.size() - 1}) {
    FlatReader in(std::span<const uint8_t>(bytes).first(cut));
    EXPECT_FALSE(read_back(in, p, w)) << "cut at " << cut;
  }

  // A count claiming more elements than the image holds, or than allowed.
  std::vector<uint8_t> huge;
  FlatWriter(huge).value(uint32_t{0xfeedf00d}).value(uint64_t{1} << 40);
  FlatReader h(huge);
  EXPECT_FALSE(read_back(h, p, w));
  FlatReader limited(bytes);
  uint32_t magic;
  ASSERT_TRUE(limited.value(magic));
  EXPECT_FALSE(limited.array(p, 999)) << "1000 pairs, at most 999 allowed";

  // Trailing bytes: everything reads, but the image is not done.
  std::vector<uint8_t> longer = bytes;
  longer.push_back(0);
  FlatReader l(longer);
  EXPECT_FALSE(read_back(l, p, w));
}

TEST(Prefault, ContentsUnchanged) {
  std::vector<uint32_t> v(1 << 20);
  for (uint32_t i = 0; i < v.size(); ++i) v[i] = i ^ 0x5a5a5a5a;
  prefault(v.data(), v.size() * sizeof(uint32_t));
  prefault(v.data() + 3, 1000);  // small, unaligned: nothing to do
  for (uint32_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], i ^ 0x5a5a5a5a) << i;
  std::vector<Pair> slots = {{1, 2}};
  assign_prefaulted(slots, 300000, Pair{5, 6});
  ASSERT_EQ(slots.size(), 300000u);
  for (const Pair& s : slots) ASSERT_TRUE(s.a == 5 && s.b == 6);
}

}  // namespace
}  // namespace btfc
