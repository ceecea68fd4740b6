// ElfFile::read_ahead on a corpus module whose pages the kernel dropped:
// while the file is open, the named section, the relocation
// section aimed at it and the symbol table with its names are all in the
// page cache (what the encode of a module cold from the disk reads).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/uio.h>
#include <unistd.h>

#include <string>
#include <string_view>
#include <vector>

#include "elf/elf_file.h"
#include "support/test_support.h"

namespace btfc::elf {
namespace {

// Pages of [offset, offset + size) not in the page cache; -1 if the kernel
// cannot tell (reads that may not wait for the disk).
long uncached_pages(int fd, uint64_t offset, uint64_t size) {
  long n = 0;
  for (uint64_t at = offset & ~uint64_t{4095}; at < offset + size; at += 4096) {
    char byte;
    iovec v{&byte, 1};
    if (preadv2(fd, &v, 1, static_cast<off_t>(at), RWF_NOWAIT) == 1) continue;
    if (errno != EAGAIN) return -1;
    n++;
  }
  return n;
}

TEST(ElfReadAhead, NamedSectionsAndTheirRelocationsEndUpCached) {
  std::string dir = test::corpus_dir();
  if (dir.empty()) GTEST_SKIP() << "LOUD SKIP: corpus not unpacked (scripts/unpack-corpus.sh)";
  const std::string path = dir + "/mods/ext4.ko";
  int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  if (uncached_pages(fd, 0, 1 << 20) < 128)
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
      left = uncached_pages(fd, s.offset, s.size);
      usleep(10000);
    }
    EXPECT_EQ(left, 0) << s.name;
  }
  ::close(fd);
}

}  // namespace
}  // namespace btfc::elf
