// What `btfc: ...` prints for an error: one line, whatever bytes the input
// put into the names it shows.
#include <gtest/gtest.h>

#include "base/error.h"

namespace btfc {
namespace {

TEST(Error, FileSectionOffsetAndMessage) {
  Error e(".debug_info", 0x1c, "unit length 0x10 runs past the end");
  EXPECT_STREQ(e.what(), ".debug_info+0x1c: unit length 0x10 runs past the end");
  e.with_file("a.ko");
  EXPECT_STREQ(e.what(), "a.ko: .debug_info+0x1c: unit length 0x10 runs past the end");
  e.with_file("b.ko");  // the first name given stays
  EXPECT_STREQ(e.what(), "a.ko: .debug_info+0x1c: unit length 0x10 runs past the end");
}

TEST(Error, ControlBytesFromTheInputShowEscaped) {
  // A section named with a newline and a terminal escape, a type name with
  // a tab and DEL: the message stays one line and shows each such byte.
  Error e(std::string(".debug_\ninfo"), 8, "type 'a\tb\x7f' has \x1b[2J an invalid name");
  e.with_file("x\r.ko");
  EXPECT_STREQ(e.what(), "x\\x0d.ko: .debug_\\x0ainfo+0x8: type 'a\\x09b\\x7f' has \\x1b[2J an invalid name");
  // Bytes from 0x80 up (UTF-8 in a path) are left as they are.
  EXPECT_STREQ(Error("caf\xc3\xa9").what(), "caf\xc3\xa9");
}

}  // namespace
}  // namespace btfc
