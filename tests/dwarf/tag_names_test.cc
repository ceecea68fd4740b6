// Tag names as llvm-dwarfdump-14 prints them, for every tag value 1..0xffff:
// one hand-built unit holds one childless DIE per tag, and `btfc stats` of
// it must equal the counts derived from llvm-dwarfdump's dump (standard,
// vendor such as DW_TAG_GNU_call_site, and DW_TAG_unknown_4c for the rest).
#include <gtest/gtest.h>

#include "dwarf/constants.h"
#include "support/dwarf_oracle.h"
#include "support/elf_builder.h"
#include "support/test_support.h"

namespace btfc::test {
namespace {

TEST(TagNames, EveryTagValueMatchesLlvmDwarfdump) {
  ByteWriter abbrev, dies;
  abbrev.uleb(1).uleb(dwarf::DW_TAG_compile_unit).u8(1).u8(0).u8(0);
  dies.uleb(1);
  for (uint32_t tag = 1; tag <= 0xffff; tag++) {
    abbrev.uleb(tag + 1).uleb(tag).u8(0).u8(0).u8(0);
    dies.uleb(tag + 1);
  }
  abbrev.u8(0);
  dies.u8(0);
  ByteWriter info;
  info.u32(static_cast<uint32_t>(dies.size() + 8)).u16(5).u8(dwarf::DW_UT_compile).u8(8).u32(0).raw(dies.data());
  std::string path = write_elf("all_tags.o", {{".debug_info", info.data()}, {".debug_abbrev", abbrev.data()}});
  RunResult r = run_btfc("stats " + path);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, llvm_dwarfdump_stats(path));
}

TEST(TagNames, Spellings) {
  EXPECT_EQ(dwarf::tag_name(0x13), "DW_TAG_structure_type");
  EXPECT_EQ(dwarf::tag_name(0x4109), "DW_TAG_GNU_call_site");
  EXPECT_EQ(dwarf::tag_name(0x6000), "DW_TAG_LLVM_annotation");
  EXPECT_EQ(dwarf::tag_name(0x4c), "DW_TAG_unknown_4c");
  EXPECT_EQ(dwarf::form_name(0x1f20), "DW_FORM_GNU_ref_alt");
}

}  // namespace
}  // namespace btfc::test
