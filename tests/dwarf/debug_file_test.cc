// Where a stripped file's debug file is looked for (dwarf/debug_file.h),
// in the places under the debug folder that a test cannot write to for
// real (/usr/lib/debug): a scratch folder stands in for it. The places
// beside the file are tested through the command line (cli_test.cc).
#include "dwarf/debug_file.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "dwarf/dwarf_file.h"
#include "elf/elf_file.h"
#include "support/test_support.h"

namespace btfc::test {
namespace {

namespace fs = std::filesystem;

constexpr char kSource[] = "struct s { int a; } v;\nint main(void) { return v.a; }\n";

// A program with DWARF, and a copy of it stripped with no debug link, as a
// kernel's modules are installed (the -dbg package keeps the DWARF).
struct Stripped {
  std::string full, stripped, debug_dir;
};
Stripped make(const std::string& name, const std::string& flags) {
  Stripped s;
  s.full = compile_c(name, kSource, "gcc -g " + flags);
  const fs::path dir = fs::path(s.full).parent_path() / (name + "-tree");
  fs::create_directories(dir / "lib/modules");
  s.stripped = (dir / "lib/modules" / (name + ".ko")).string();
  EXPECT_EQ(run("objcopy --strip-debug " + s.full + " " + s.stripped).status, 0);
  s.debug_dir = (dir / "usr-lib-debug").string();
  return s;
}

std::string found(const std::string& file, const std::string& debug_dir) {
  std::unique_ptr<elf::ElfFile> elf = elf::ElfFile::open(file);
  EXPECT_FALSE(dwarf::DwarfFile::present(*elf));
  std::unique_ptr<elf::ElfFile> debug = dwarf::open_debug_file(*elf, debug_dir);
  return debug ? debug->path() : "(none)";
}

// Debian's kernel -dbg layout: DEBUG_DIR + the file's absolute path, found
// by the build ID the two share; a file of another build there is not.
TEST(DebugFile, SamePathUnderTheDebugFolder) {
  Stripped s = make("under_debug_dir", "-Wl,--build-id=sha1");
  const fs::path place = fs::path(s.debug_dir) / fs::path(s.stripped).relative_path();
  fs::create_directories(place.parent_path());
  EXPECT_EQ(found(s.stripped, s.debug_dir), "(none)");
  fs::copy_file(s.full, place);
  EXPECT_EQ(found(s.stripped, s.debug_dir), place.string());
  std::string other = compile_c("under_debug_dir_other", std::string(kSource) + "int w;\n", "gcc -g -Wl,--build-id=sha1");
  fs::copy_file(other, place, fs::copy_options::overwrite_existing);
  EXPECT_EQ(found(s.stripped, s.debug_dir), "(none)");
}

// By build ID: DEBUG_DIR/.build-id/xx/yyyy.debug.
TEST(DebugFile, ByBuildId) {
  Stripped s = make("by_build_id_dir", "-Wl,--build-id=sha1");
  RunResult id = run("readelf -n " + s.full + " | sed -n 's/.*Build ID: //p'");
  ASSERT_EQ(id.status, 0);
  std::string hex = id.out.substr(0, id.out.find('\n'));
  ASSERT_EQ(hex.size(), 40u) << id.out;
  const fs::path place = fs::path(s.debug_dir) / ".build-id" / hex.substr(0, 2) / (hex.substr(2) + ".debug");
  fs::create_directories(place.parent_path());
  fs::copy_file(s.full, place);
  EXPECT_EQ(found(s.stripped, s.debug_dir), place.string());
}

// Without a build ID and without a link nothing can tell a debug file of
// this build from another's: none is taken.
TEST(DebugFile, NoBuildIdNoLinkNoGuess) {
  Stripped s = make("no_build_id", "-Wl,--build-id=none");
  const fs::path place = fs::path(s.debug_dir) / fs::path(s.stripped).relative_path();
  fs::create_directories(place.parent_path());
  fs::copy_file(s.full, place);
  EXPECT_EQ(found(s.stripped, s.debug_dir), "(none)");
  std::unique_ptr<elf::ElfFile> elf = elf::ElfFile::open(s.stripped);
  EXPECT_TRUE(dwarf::debug_file_candidates(*elf, s.debug_dir).empty());
}

}  // namespace
}  // namespace btfc::test
