// UnitTypes on its own: the `int` a unit with arrays but no `int` makes
// for their index (pahole-rules.md 2.5), named as the file's other units
// name `int`, so that vmlinux's groups, which take .debug_str offsets as
// names (encode.cc, "names by offset"), meet one "int" and not two.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "btf/btf.h"
#include "convert/options.h"
#include "convert/unit_types.h"
#include "dwarf/dwarf_file.h"
#include "elf/elf_file.h"
#include "support/test_support.h"

namespace btfc::convert {
namespace {

// A shared object linked from two units: a.c with an `int`, then b.c with
// an array of char and no `int` (so its table makes one). Linked, so the
// linker merged .debug_str: one "int" for clang's units, which name every
// type there; gcc writes "int" inline.
std::string two_units(const std::string& cc) {
  const std::string tag = cc.substr(0, cc.find(' '));
  const std::string a = test::compile_c("index_int_a_" + tag, "int a_value;\n", cc + " -g -O0 -c");
  const std::string b = test::compile_c("index_int_b_" + tag, "char b_table[4];\n", cc + " -g -O0 -c");
  const std::string so = test::scratch_dir() + "/index_int_" + tag + ".so";
  test::RunResult r = test::run(cc + " -shared -nostdlib " + a + " " + b + " -o " + so);
  EXPECT_EQ(r.status, 0) << r.err;
  return so;
}

TEST(UnitTypes, IndexIntNamedAsTheFilesUnitsNameInt) {
  for (const std::string cc : {"clang", "gcc"}) {
    SCOPED_TRACE(cc);
    const std::string so = two_units(cc);
    std::unique_ptr<elf::ElfFile> elf = elf::ElfFile::open(so);
    dwarf::DwarfFile dw(*elf);
    ASSERT_EQ(dw.units().size(), 2u);
    const std::span<const char> strs = dw.debug_str();
    const char* int_name = shared_int_name(dw);
    if (cc == "clang") {
      ASSERT_NE(int_name, nullptr);
      EXPECT_EQ(std::string(int_name), "int");
      EXPECT_TRUE(int_name >= strs.data() && int_name < strs.data() + strs.size());
    } else {
      EXPECT_EQ(int_name, nullptr);  // gcc's "int" is in a.c's unit, inline
    }
    // b.c's table, as the encoder builds it.
    EncodeOptions options;
    btf::Btf table;
    table.share_strings(strs);
    UnitContext ctx{*elf, dw, dw.units()[1], options, 1, int_name};
    UnitTypes types(ctx, table);
    types.convert_all();
    btf::TypeId made = 0;
    for (btf::TypeId id = 1; id < table.end_id(); ++id)
      if (table.type(id).kind() == btf::Kind::Int && table.type(id).name() == "int") made = id;
    ASSERT_NE(made, 0u) << "no index int";
    const uint32_t off = table.type(made).name_off();
    if (int_name) {
      EXPECT_EQ(off, btf::Btf::SHARED_STR_BASE + static_cast<uint32_t>(int_name - strs.data()));
    } else {
      EXPECT_LT(off, btf::Btf::SHARED_STR_BASE);  // an own string
    }
  }
}

}  // namespace
}  // namespace btfc::convert
