// The relocation code on the corpus kernel modules: every debug section of
// every module (ext4.ko alone has ~390,000 relocations) must equal what
// eu-strip --reloc-debug-sections-only plus readelf make of it (oracle.h).
#include <gtest/gtest.h>

#include <chrono>

#include "base/endian.h"
#include "elf/elf_file.h"
#include "oracle.h"
#include "support/test_support.h"

namespace btfc {
namespace {

class ElfCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(ElfCorpus, DebugSectionsMatchEuStrip) {
  std::string dir = test::corpus_dir();
  if (dir.empty()) GTEST_SKIP() << "LOUD SKIP: corpus not unpacked (scripts/unpack-corpus.sh)";
  std::string file = dir + "/mods/" + GetParam() + ".ko";
  auto expected = test::oracle_debug_sections(file);
  ASSERT_TRUE(expected.count(".debug_info"));
  auto elf = elf::ElfFile::open(file);
  std::vector<const elf::Section*> list;
  for (const auto& [name, bytes] : expected) list.push_back(elf->find_section(name));
  auto start = std::chrono::steady_clock::now();
  elf->prepare(list);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s.ko: %zu debug sections relocated in %.1f ms\n", GetParam().c_str(), list.size(), ms);
  for (const elf::Section* s : list) {
    ASSERT_NE(s, nullptr);
    Bytes got = elf->section_data(*s);
    const std::string& want = expected.at(std::string(s->name));
    ASSERT_EQ(got.size(), want.size()) << s->name;
    EXPECT_TRUE(std::equal(got.begin(), got.end(), reinterpret_cast<const uint8_t*>(want.data())))
        << s->name << " differs from eu-strip";
  }
}

// The encoder reads a module's .debug_info unit by unit, each unit
// relocated on its own (elf::PartRelocator): every unit's bytes must be
// what the whole section relocated holds there, and the units together
// must have applied every relocation.
TEST_P(ElfCorpus, UnitsRelocatedOnTheirOwnMatchTheWholeSection) {
  std::string dir = test::corpus_dir();
  if (dir.empty()) GTEST_SKIP() << "LOUD SKIP: corpus not unpacked (scripts/unpack-corpus.sh)";
  auto elf = elf::ElfFile::open(dir + "/mods/" + GetParam() + ".ko");
  const elf::Section* info = elf->find_section(".debug_info");
  ASSERT_NE(info, nullptr);
  auto parts = elf::PartRelocator::make(*elf, *info);
  ASSERT_NE(parts, nullptr) << "gcc's relocations are one RELA section in offset order";
  Bytes whole = elf->section_data(*info);
  elf::PartRelocator::Part part;
  size_t units = 0;
  for (uint64_t at = 0; at < whole.size(); units++) {
    const uint64_t end = at + 4 + load<uint32_t>(whole.data() + at, false);  // 32-bit DWARF units
    ASSERT_LE(end, whole.size());
    parts->read(at, end, part, /*count=*/true);
    ASSERT_TRUE(std::equal(part.bytes.begin(), part.bytes.end(), whole.begin() + at)) << "unit at " << at;
    at = end;
  }
  EXPECT_TRUE(parts->complete()) << units << " units";
}

INSTANTIATE_TEST_SUITE_P(Modules, ElfCorpus, ::testing::ValuesIn(test::corpus_modules()),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

}  // namespace
}  // namespace btfc
