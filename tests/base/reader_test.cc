// The bounds-checked reader: every read past the end, every bad LEB128 is
// an Error naming the section and the absolute offset of the bad read.
#include "base/reader.h"

#include <gtest/gtest.h>

#include <vector>

namespace btfc {
namespace {

std::string error_of(auto&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Reader, ReadsBothByteOrders) {
  std::vector<uint8_t> b = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};
  Reader le(b, ".x", false), be(b, ".x", true);
  EXPECT_EQ(le.u16(), 0x0201);
  EXPECT_EQ(be.u16(), 0x0102);
  EXPECT_EQ(le.u32(), 0x06050403u);
  EXPECT_EQ(be.u32(), 0x03040506u);
  EXPECT_EQ(le.uint(2), 0x0807u);
}

TEST(Reader, Leb128) {
  std::vector<uint8_t> b = {0xe5, 0x8e, 0x26, 0x7f, 0x80, 0x7f};
  Reader r(b, ".x", false);
  EXPECT_EQ(r.uleb128(), 624485u);
  EXPECT_EQ(r.sleb128(), -1);
  EXPECT_EQ(r.sleb128(), -128);
  EXPECT_TRUE(r.empty());
}

TEST(Reader, MaxLeb128AndOverflow) {
  std::vector<uint8_t> max = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
  EXPECT_EQ(Reader(max, ".x", false).uleb128(), ~uint64_t{0});
  std::vector<uint8_t> over = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
  EXPECT_EQ(error_of([&] { Reader(over, ".debug_abbrev", false, 0x10).uleb128(); }),
            ".debug_abbrev+0x10: LEB128 overflows 64 bits");
  std::vector<uint8_t> trunc = {0x80, 0x80};
  EXPECT_EQ(error_of([&] { Reader(trunc, ".x", false).uleb128(); }), ".x+0x0: truncated LEB128");
}

TEST(Reader, ErrorsCarryAbsoluteOffsets) {
  std::vector<uint8_t> b(16, 0);
  Reader r(b, ".debug_info", false, 0x100);
  r.skip(4);
  Reader unit = r.split(8);
  unit.u32();
  unit.u32();
  EXPECT_EQ(error_of([&] { unit.u8(); }), ".debug_info+0x10c: unexpected end of data");
  EXPECT_EQ(error_of([&] { r.split(5); }), ".debug_info+0x10c: length 5 runs past the end of the section");
}

TEST(Reader, StringsMustBeTerminated) {
  std::vector<uint8_t> b = {'a', 'b', 0, 'c'};
  Reader r(b, ".debug_str", false);
  EXPECT_EQ(r.cstr(), "ab");
  EXPECT_EQ(error_of([&] { r.cstr(); }), ".debug_str+0x3: string is not NUL-terminated");
}

TEST(Error, NamesTheFile) {
  Error e(".debug_info", 0x2a, "bad form");
  e.with_file("vmlinux");
  EXPECT_STREQ(e.what(), "vmlinux: .debug_info+0x2a: bad form");
}

}  // namespace
}  // namespace btfc
