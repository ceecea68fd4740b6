// The relocation code on the corpus kernel modules: ext4.ko's debug
// sections (hundreds of thousands of relocations) must equal what
// eu-strip --reloc-debug-sections-only plus readelf make of them (oracle.h).
#include <gtest/gtest.h>

#include <chrono>

#include "elf/elf_file.h"
#include "oracle.h"
#include "support/test_support.h"

namespace btfc {
namespace {

TEST(ElfCorpus, Ext4DebugSectionsMatchEuStrip) {
  std::string dir = test::corpus_dir();
  if (dir.empty()) GTEST_SKIP() << "LOUD SKIP: corpus not unpacked (scripts/unpack-corpus.sh)";
  std::string file = dir + "/mods/ext4.ko";
  auto expected = test::oracle_debug_sections(file);
  ASSERT_TRUE(expected.count(".debug_info"));
  auto elf = elf::ElfFile::open(file);
  std::vector<const elf::Section*> list;
  for (const auto& [name, bytes] : expected) list.push_back(elf->find_section(name));
  auto start = std::chrono::steady_clock::now();
  elf->prepare(list);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("ext4.ko: %zu debug sections decompressed/relocated in %.1f ms\n", list.size(), ms);
  for (const elf::Section* s : list) {
    ASSERT_NE(s, nullptr);
    Bytes got = elf->section_data(*s);
    const std::string& want = expected.at(std::string(s->name));
    ASSERT_EQ(got.size(), want.size()) << s->name;
    EXPECT_TRUE(std::equal(got.begin(), got.end(), reinterpret_cast<const uint8_t*>(want.data())))
        << s->name << " differs from eu-strip";
  }
}

}  // namespace
}  // namespace btfc
