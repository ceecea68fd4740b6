// The language names of --lang/--lang_exclude (dwarf::language_code), one
// table for `btfc encode` and `btfc layout`. Oracles: Debian's pahole 1.24
// for which names exist (case-insensitively) and for which units a name
// selects (objects built by gcc/g++/gas in several languages, whose
// DW_AT_language llvm-dwarfdump names); pahole 1.31's source for the one
// name 1.24 lacks ("asm").
#include <gtest/gtest.h>

#include <cctype>
#include <string>

#include "dwarf/constants.h"
#include "support/test_support.h"

namespace btfc::test {
namespace {

// pahole's list (dwarves.c, languages[]), DW_LANG_C89 (1) to DW_LANG_BLISS
// (0x25) in DWARF 5 order (table 7.17).
const char* const kPaholeNames[] = {
    "c89",     "c",       "ada83", "c++",     "cobol74", "cobol85", "fortran77", "fortran90", "pascal83",
    "modula2", "java",    "c99",   "ada95",   "fortran95", "pli",   "objc",      "objc++",    "upc",
    "d",       "python",  "opencl", "go",     "modula3", "haskell", "c++03",     "c++11",     "ocaml",
    "rust",    "c11",     "swift", "julia",   "dylan",   "c++14",   "fortran03", "fortran08", "renderscript",
    "bliss"};

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

TEST(Languages, CodesFollowTheDwarfTable) {
  int code = 1;
  for (const char* n : kPaholeNames) {
    EXPECT_EQ(dwarf::language_code(n), code) << n;
    EXPECT_EQ(dwarf::language_code(upper(n)), code) << n;
    EXPECT_EQ(dwarf::language_name(static_cast<uint32_t>(code)), n);
    ++code;
  }
  EXPECT_EQ(code - 1, dwarf::DW_LANG_BLISS);
  EXPECT_EQ(dwarf::language_code("Rust"), dwarf::DW_LANG_Rust);
  EXPECT_EQ(dwarf::language_code("asm"), dwarf::DW_LANG_Mips_Assembler);
  EXPECT_EQ(dwarf::language_code("ASM"), dwarf::DW_LANG_Mips_Assembler);
  EXPECT_EQ(dwarf::language_name(dwarf::DW_LANG_Mips_Assembler), "asm");
  EXPECT_EQ(dwarf::language_name(0x2c), "UNKNOWN");  // DW_LANG_C17: after pahole's list
  EXPECT_EQ(dwarf::language_name(0), "UNKNOWN");
  for (const char* n : {"c17", "C17", "klingon", "c_plus_plus", "mips_assembler", "", "c ", "c++17"})
    EXPECT_EQ(dwarf::language_code(n), -1) << n;
}

// pahole 1.24 knows the same names (in any case) and no others; "asm" came
// later (1.25+), so 1.24 refusing it is expected.
TEST(Languages, SameNamesAsPahole) {
  if (!tool_exists("/usr/bin/pahole")) GTEST_SKIP() << "pahole (Debian dwarves) is not installed: no oracle";
  std::string obj = compile_c("languages_one", "struct s { int a; } v;\n", "gcc -g -c");
  auto pahole_knows = [&](const std::string& name) {
    return run("/usr/bin/pahole --lang='" + name + "' " + obj).status == 0;
  };
  for (const char* n : kPaholeNames) {
    EXPECT_TRUE(pahole_knows(n)) << n;
    EXPECT_TRUE(pahole_knows(upper(n))) << n;
  }
  for (const char* n : {"c17", "klingon", "c_plus_plus", "c++17"}) {
    EXPECT_FALSE(pahole_knows(n)) << n;
    EXPECT_EQ(dwarf::language_code(n), -1) << n;
  }
}

// One object with units in C89, C99, C11, C++ (DW_LANG_C_plus_plus_14) and
// assembler: `btfc layout --lang`/`--lang_exclude` must keep the units
// pahole keeps, and `btfc encode` must take the same spellings.
class LanguageUnits : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string objs;
    for (std::string std : {"c89", "c99", "c11"})
      objs += " " + compile_c("lang_" + std, "struct in_" + std + " { int a; } v_" + std + ";\n", "gcc -std=" + std + " -g -c");
    std::string dir = scratch_dir();
    RunResult r = run("printf 'struct in_cxx { int a; } v_cxx;\\n' > " + dir + "/lang_cxx.cc && g++ -g -c " + dir +
                      "/lang_cxx.cc -o " + dir + "/lang_cxx.o && printf '.globl f\\nf: ret\\n' > " + dir +
                      "/lang_asm.S && gcc -g -c " + dir + "/lang_asm.S -o " + dir + "/lang_asm.o");
    ASSERT_EQ(r.status, 0) << r.err;
    object_ = dir + "/languages.o";
    r = run("ld -r" + objs + " " + dir + "/lang_cxx.o " + dir + "/lang_asm.o -o " + object_);
    ASSERT_EQ(r.status, 0) << r.err;
  }
  static std::string object_;
};
std::string LanguageUnits::object_;

TEST_F(LanguageUnits, TheObjectHasTheseLanguages) {
  RunResult r = run("llvm-dwarfdump --debug-info " + object_ + " | grep DW_AT_language");
  for (const char* l : {"DW_LANG_C89", "DW_LANG_C99", "DW_LANG_C11", "DW_LANG_C_plus_plus_14", "DW_LANG_Mips_Assembler"})
    EXPECT_NE(r.out.find(std::string("(") + l + ")"), std::string::npos) << l << "\n" << r.out;
}

TEST_F(LanguageUnits, LayoutSelectsTheUnitsPaholeSelects) {
  if (!tool_exists("/usr/bin/pahole")) GTEST_SKIP() << "pahole (Debian dwarves) is not installed: no oracle";
  for (std::string opt : {"--lang=c89", "--lang=C99", "--lang c11", "--lang=c++14", "--lang=c89,C11",
                          "--lang_exclude=c99", "--lang_exclude=C++14,c89", "--lang=rust"}) {
    RunResult p = run("/usr/bin/pahole --sort " + opt + " " + object_);
    ASSERT_EQ(p.status, 0) << opt << ": " << p.err;
    // Every option but the last keeps at least one unit with a struct.
    EXPECT_EQ(p.out.empty(), opt == "--lang=rust") << opt;
    RunResult b = run_btfc("layout --sort " + opt + " " + object_);
    ASSERT_EQ(b.status, 0) << opt << ": " << b.err;
    EXPECT_EQ(b.out, p.out) << opt;
  }
}

TEST_F(LanguageUnits, BothCommandsTakeTheSameNames) {
  std::string out = scratch_dir() + "/languages.btf";
  for (std::string opt : {"--lang=C11", "--lang=asm", "--lang_exclude=Rust,c++14"}) {
    EXPECT_EQ(run_btfc("layout " + opt + " " + object_).status, 0) << opt;
    RunResult e = run_btfc("encode " + opt + " --btf_encode_detached=" + out + " " + object_);
    EXPECT_EQ(e.status, 0) << opt << ": " << e.err;
  }
  // And encode drops the other units: only the C11 struct is left.
  RunResult e = run_btfc("encode --lang=C11 --btf_encode_detached=" + out + " " + object_);
  ASSERT_EQ(e.status, 0) << e.err;
  RunResult d = run("bpftool btf dump file " + out);
  EXPECT_NE(d.out.find("STRUCT 'in_c11'"), std::string::npos) << d.out;
  EXPECT_EQ(d.out.find("STRUCT 'in_c89'"), std::string::npos) << d.out;
  EXPECT_EQ(d.out.find("STRUCT 'in_cxx'"), std::string::npos) << d.out;
  for (std::string opt : {"--lang=c17", "--lang_exclude=klingon"}) {
    EXPECT_EQ(run_btfc("layout " + opt + " " + object_).status, 2) << opt;
    RunResult e = run_btfc("encode " + opt + " --btf_encode_detached=" + out + " " + object_);
    EXPECT_NE(e.status, 0) << opt;
    EXPECT_NE(e.err.find("unknown language"), std::string::npos) << e.err;
  }
}

}  // namespace
}  // namespace btfc::test
