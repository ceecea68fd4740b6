// ElfFile::read_ahead on a corpus module whose pages the kernel dropped:
// while the file is open, the named section, the relocation
// section aimed at it and the symbol table with its names are all in the
// page cache (what the encode of a module cold from the disk reads).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <string_view>
#include <vector>

#include "elf/elf_file.h"
#include "support/test_support.h"

namespace btfc::elf {
namespace {

TEST(ElfReadAhead, NamedSectionsAndTheirRelocationsEndUpCached) {
  std::string dir = test::corpus_dir();
  if (dir.empty()) GTEST_SKIP() << "LOUD SKIP: corpus not unpacked (scripts/unpack-corpus.sh)";
  const std::string path = dir + "/mods/ext4.ko";
  int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  std::vector<char> head(1 << 20);
  ASSERT_EQ(pread(fd, head.data(), head.size(), 0), static_cast<ssize_t>(head.size()));
  if (test::uncached_pages(fd, 0, head.size()) != 0)
    GTEST_SKIP() << "\n*** the page cache cannot be asked here: READ-AHEAD NOT TESTED ***\n";
  posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  if (test::uncached_pages(fd, 0, 1 << 20) < 128)
    GTEST_SKIP() << "\n*** the kernel kept ext4.ko's pages or cannot tell: READ-AHEAD NOT TESTED ***\n";
  std::unique_ptr<ElfFile> elf = ElfFile::open(path);
  const Section* info = elf->find_section(".debug_info");
  const Section* rela = elf->find_section(".rela.debug_info");
  const Section* symtab = elf->find_section(".symtab");
  const Section* strtab = elf->find_section(".strtab");
  ASSERT_TRUE(info && rela && symtab && strtab);
  struct Span {
    std::string name;  // a copy: the section's own points into the mapping
    uint64_t offset, size;
  };
  std::vector<Span> wanted;
  for (const Section* s : {info, rela, symtab, strtab}) wanted.push_back({std::string(s->name), s->offset, s->size});
  constexpr std::string_view kNames[] = {".debug_info"};
  elf->read_ahead(kNames);
  // Read while the file is open (closing it stops the reading); 20 s is a
  // bound against a hang, not a timing.
  for (const Span& s : wanted) {
    long left = -1;
    for (int i = 0; i < 2000 && left != 0; i++) {
      left = test::uncached_pages(fd, s.offset, s.size);
      usleep(10000);
    }
    EXPECT_EQ(left, 0) << s.name;
  }
  ::close(fd);
}

}  // namespace
}  // namespace btfc::elf
