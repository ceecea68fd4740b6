// Corrupt ELF input: each case is a small hand-made file with one thing
// wrong, and the test asserts the exact message a user would see. None may
// crash, hang or allocate without bound (these run under ASan/UBSan too).
//
// The files are encoded byte by byte below: a 64-bit little-endian x86-64
// ET_REL with .shstrtab, .debug_info (16 bytes), .symtab (null symbol and a
// section symbol for .debug_info, value 0), .strtab and .rela.debug_info
// (one R_X86_64_32 at offset 4, symbol 1, addend 0x10). Cases patch fields
// at the offsets recorded in `Layout`.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "base/endian.h"
#include "base/parallel.h"
#include "elf/elf_file.h"

namespace btfc {
namespace {

struct Sec {
  std::string name;
  uint32_t type;
  uint64_t flags;
  std::vector<uint8_t> data;
  uint32_t link = 0, info = 0;
  uint64_t entsize = 0;
};

struct Layout {
  std::vector<uint8_t> bytes;
  uint64_t shoff = 0;
  std::vector<uint64_t> data_offset;  // file offset of each section's data
  uint64_t header(size_t i) const { return shoff + 64 * i; }  // file offset of section header i
};

void put16(std::vector<uint8_t>& b, uint64_t at, uint16_t v) { store<uint16_t>(b.data() + at, v, false); }
void put32(std::vector<uint8_t>& b, uint64_t at, uint32_t v) { store<uint32_t>(b.data() + at, v, false); }
void put64(std::vector<uint8_t>& b, uint64_t at, uint64_t v) { store<uint64_t>(b.data() + at, v, false); }

// ELF64 LE: header, then each section's data (8-aligned), then the section
// headers (index 0 is the null section; `secs` become 1..n, .shstrtab last).
Layout encode(std::vector<Sec> secs, uint16_t type = elf::ET_REL, uint16_t machine = 62 /* EM_X86_64 */) {
  Sec shstrtab{".shstrtab", elf::SHT_STRTAB, 0, {0}};
  std::vector<uint32_t> name_off;
  secs.push_back(shstrtab);
  for (Sec& s : secs) {
    name_off.push_back(static_cast<uint32_t>(secs.back().data.size()));
    secs.back().data.insert(secs.back().data.end(), s.name.begin(), s.name.end());
    secs.back().data.push_back(0);
  }
  Layout l;
  l.bytes.assign(64, 0);
  std::memcpy(l.bytes.data(), "\x7f" "ELF\x02\x01\x01", 7);
  put16(l.bytes, 16, type);
  put16(l.bytes, 18, machine);
  put32(l.bytes, 20, 1);
  put16(l.bytes, 52, 64);  // e_ehsize
  put16(l.bytes, 58, 64);  // e_shentsize
  put16(l.bytes, 60, static_cast<uint16_t>(secs.size() + 1));
  put16(l.bytes, 62, static_cast<uint16_t>(secs.size()));  // .shstrtab is last
  for (Sec& s : secs) {
    l.bytes.resize((l.bytes.size() + 7) & ~size_t{7});
    l.data_offset.push_back(l.bytes.size());
    l.bytes.insert(l.bytes.end(), s.data.begin(), s.data.end());
  }
  l.bytes.resize((l.bytes.size() + 7) & ~size_t{7});
  l.shoff = l.bytes.size();
  put64(l.bytes, 40, l.shoff);
  l.bytes.resize(l.bytes.size() + 64 * (secs.size() + 1), 0);
  for (size_t i = 0; i < secs.size(); i++) {
    uint64_t h = l.header(i + 1);
    put32(l.bytes, h, name_off[i]);
    put32(l.bytes, h + 4, secs[i].type);
    put64(l.bytes, h + 8, secs[i].flags);
    put64(l.bytes, h + 24, l.data_offset[i]);
    put64(l.bytes, h + 32, secs[i].data.size());
    put32(l.bytes, h + 40, secs[i].link);
    put32(l.bytes, h + 44, secs[i].info);
    put64(l.bytes, h + 48, 1);
    put64(l.bytes, h + 56, secs[i].entsize);
  }
  return l;
}

std::vector<uint8_t> rela64(uint64_t offset, uint32_t sym, uint32_t type, int64_t addend) {
  std::vector<uint8_t> b(24);
  put64(b, 0, offset);
  put64(b, 8, uint64_t{sym} << 32 | type);
  put64(b, 16, static_cast<uint64_t>(addend));
  return b;
}

// Section indices in the relocatable layout below.
constexpr size_t kInfo = 1, kSymtab = 2, kRela = 4;

// `info_flags`: .debug_info's sh_flags (SHF_ALLOC makes symbol 1's section
// an allocated one, for relocation_section()).
Layout relocatable(std::vector<uint8_t> rela = rela64(4, 1, 10, 0x10), std::vector<uint8_t> info = {},
                   uint64_t info_flags = 0) {
  if (info.empty()) info.assign(16, 0);
  std::vector<uint8_t> symtab(48, 0);
  symtab[24 + 4] = elf::STT_SECTION;  // st_info of symbol 1
  put16(symtab, 24 + 6, kInfo);       // st_shndx
  return encode({
      {".debug_info", elf::SHT_PROGBITS, info_flags, info},
      {".symtab", elf::SHT_SYMTAB, 0, symtab, 3, 2, 24},
      {".strtab", elf::SHT_STRTAB, 0, {0}},
      {".rela.debug_info", elf::SHT_RELA, 0, rela, kSymtab, kInfo, 24},
  });
}

// The message of the Error thrown by opening `bytes` and reading the
// section data of `section` (if given).
std::string error_of(const std::vector<uint8_t>& bytes, const char* section = nullptr) {
  try {
    auto f = elf::ElfFile::parse(bytes, "t.o");
    if (section) {
      const elf::Section* s = f->find_section(section);
      if (!s) return "no section";
      f->section_data(*s);
    }
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(ElfCorrupt, GoodFileRelocates) {
  // The uncorrupted file: S (section symbol, 0) + A (0x10) at offset 4.
  Layout l = relocatable();
  auto f = elf::ElfFile::parse(l.bytes, "t.o");
  Bytes d = f->section_data(*f->find_section(".debug_info"));
  ASSERT_EQ(d.size(), 16u);
  EXPECT_EQ(load<uint32_t>(d.data() + 4, false), 0x10u);
  EXPECT_EQ(error_of(l.bytes, ".debug_info"), "no error");
}

TEST(ElfCorrupt, TruncatedHeader) {
  // Magic and class say ELF64 but the file ends after 20 bytes.
  Layout l = relocatable();
  l.bytes.resize(20);
  EXPECT_EQ(error_of(l.bytes), "t.o: ELF header+0x0: ELF header is truncated (20 bytes, need 64)");
  l.bytes.resize(8);
  EXPECT_EQ(error_of(l.bytes), "t.o: ELF header+0x0: ELF header is truncated (8 bytes)");
}

TEST(ElfCorrupt, BadMagicAndClass) {
  Layout l = relocatable();
  l.bytes[1] = 'X';  // "\x7fXLF"
  EXPECT_EQ(error_of(l.bytes), "t.o: ELF header+0x0: not an ELF file (bad magic)");
  l = relocatable();
  l.bytes[4] = 3;  // EI_CLASS neither ELFCLASS32 nor ELFCLASS64
  EXPECT_EQ(error_of(l.bytes), "t.o: ELF header+0x4: bad ELF class 3");
  l = relocatable();
  l.bytes[5] = 0;  // EI_DATA none
  EXPECT_EQ(error_of(l.bytes), "t.o: ELF header+0x5: bad ELF data encoding 0");
}

TEST(ElfCorrupt, SectionHeadersOutsideFile) {
  // e_shoff points 16 bytes before the end of the file.
  Layout l = relocatable();
  put64(l.bytes, 40, l.bytes.size() - 16);
  EXPECT_EQ(error_of(l.bytes), "t.o: section headers+0x" + [&] {
    char b[32];
    std::snprintf(b, sizeof b, "%zx", l.bytes.size() - 16);
    return std::string(b);
  }() + ": section header 0 is outside the file");
  // e_shoff far past the end (and an overflowing sum).
  put64(l.bytes, 40, ~uint64_t{0} - 8);
  EXPECT_EQ(error_of(l.bytes), "t.o: section headers+0xfffffffffffffff7: section header 0 is outside the file");
}

TEST(ElfCorrupt, SectionDataOutsideFile) {
  // .debug_info's sh_size runs past the end of the file.
  Layout l = relocatable();
  put64(l.bytes, l.header(kInfo) + 32, l.bytes.size());
  char want[128];
  std::snprintf(want, sizeof want, "t.o: section headers+0x%llx: section 1 lies outside the file",
                static_cast<unsigned long long>(l.header(kInfo)));
  EXPECT_EQ(error_of(l.bytes), want);
  // sh_offset + sh_size overflows 64 bits.
  l = relocatable();
  put64(l.bytes, l.header(kInfo) + 24, ~uint64_t{0});
  EXPECT_EQ(error_of(l.bytes), want);
}

TEST(ElfCorrupt, NameOutsideShstrtab) {
  // sh_name of .debug_info is 0x1000, .shstrtab is much shorter.
  Layout l = relocatable();
  put32(l.bytes, l.header(kInfo), 0x1000);
  EXPECT_EQ(error_of(l.bytes), "t.o: .shstrtab+0x1000: name of section 1 is outside .shstrtab");
}

// A .debug_info holding `payload` with SHF_COMPRESSED set.
Layout compressed(const std::vector<uint8_t>& payload) {
  return encode({{".debug_info", elf::SHT_PROGBITS, elf::SHF_COMPRESSED, payload}});
}

std::vector<uint8_t> chdr64(uint32_t type, uint64_t size, const std::vector<uint8_t>& stream) {
  std::vector<uint8_t> b(24 + stream.size());
  put32(b, 0, type);
  put64(b, 8, size);
  put64(b, 16, 1);
  std::copy(stream.begin(), stream.end(), b.begin() + 24);
  return b;
}

std::vector<uint8_t> zlib_of(const std::string& text) {
  uLongf n = compressBound(text.size());
  std::vector<uint8_t> out(n);
  compress(out.data(), &n, reinterpret_cast<const Bytef*>(text.data()), text.size());
  out.resize(n);
  return out;
}

TEST(ElfCorrupt, GoodCompressedSection) {
  std::string text(1000, 'a');
  Layout l = compressed(chdr64(1, text.size(), zlib_of(text)));
  auto f = elf::ElfFile::parse(l.bytes, "t.o");
  Bytes d = f->section_data(*f->find_section(".debug_info"));
  EXPECT_EQ(std::string(d.begin(), d.end()), text);
}

TEST(ElfCorrupt, BadCompressionHeader) {
  // SHF_COMPRESSED but only 10 bytes: an Elf64_Chdr needs 24.
  EXPECT_EQ(error_of(compressed(std::vector<uint8_t>(10, 0)).bytes, ".debug_info"),
            "t.o: .debug_info+0x0: compression header is truncated (10 bytes)");
  // ch_type 7 is neither ELFCOMPRESS_ZLIB (1) nor ELFCOMPRESS_ZSTD (2).
  EXPECT_EQ(error_of(compressed(chdr64(7, 5, zlib_of("hello"))).bytes, ".debug_info"),
            "t.o: .debug_info+0x0: unknown compression type 7");
  // ch_type zlib but the stream is not zlib.
  EXPECT_EQ(error_of(compressed(chdr64(1, 5, {1, 2, 3, 4, 5, 6})).bytes, ".debug_info"),
            "t.o: .debug_info+0x18: bad zlib stream: incorrect header check");
  // ch_type zstd but the stream is not zstd.
  EXPECT_EQ(error_of(compressed(chdr64(2, 5, {1, 2, 3, 4, 5, 6})).bytes, ".debug_info"),
            "t.o: .debug_info+0x18: bad zstd stream: Unknown frame descriptor");
}

TEST(ElfCorrupt, DecompressedSizeMismatch) {
  std::vector<uint8_t> z = zlib_of("hello world");
  // The header promises 12 bytes, the stream holds 11.
  EXPECT_EQ(error_of(compressed(chdr64(1, 12, z)).bytes, ".debug_info"),
            "t.o: .debug_info+0x18: decompressed size mismatch: the stream holds 11 bytes, the header says 12");
  // The header promises 10 bytes, the stream holds more.
  EXPECT_EQ(error_of(compressed(chdr64(1, 10, z)).bytes, ".debug_info"),
            "t.o: .debug_info+0x18: decompressed data is larger than the header's size 10");
  // A huge promised size must not be allocated up front.
  EXPECT_EQ(error_of(compressed(chdr64(1, uint64_t{1} << 60, z)).bytes, ".debug_info"),
            "t.o: .debug_info+0x18: decompressed size mismatch: the stream holds 11 bytes, the header says "
            "1152921504606846976");
  // The stream stops half way.
  z.resize(z.size() / 2);
  EXPECT_EQ(error_of(compressed(chdr64(1, 11, z)).bytes, ".debug_info"),
            "t.o: .debug_info+0x18: truncated zlib stream");
}

TEST(ElfCorrupt, BadZdebugHeader) {
  // A .zdebug_ section must start with "ZLIB" and a big-endian size.
  Layout l = encode({{".zdebug_info", elf::SHT_PROGBITS, 0, {'Z', 'L', 'I', 'X', 0, 0, 0, 0, 0, 0, 0, 5}}});
  EXPECT_EQ(error_of(l.bytes, ".debug_info"), "t.o: .zdebug_info+0x0: missing \"ZLIB\" header of a .zdebug section");
  std::vector<uint8_t> good = {'Z', 'L', 'I', 'B', 0, 0, 0, 0, 0, 0, 0, 6};  // says 6, "hello" is 5
  std::vector<uint8_t> z = zlib_of("hello");
  good.insert(good.end(), z.begin(), z.end());
  l = encode({{".zdebug_info", elf::SHT_PROGBITS, 0, good}});
  EXPECT_EQ(error_of(l.bytes, ".debug_info"),
            "t.o: .zdebug_info+0xc: decompressed size mismatch: the stream holds 5 bytes, the header says 6");
}

TEST(ElfCorrupt, RelocationOffsetOutsideTarget) {
  // r_offset 0xe + 4 bytes of R_X86_64_32 runs past the 16-byte section.
  EXPECT_EQ(error_of(relocatable(rela64(0xe, 1, 10, 0)).bytes, ".debug_info"),
            "t.o: .rela.debug_info+0x0: relocation offset 0xe is outside .debug_info (size 0x10)");
  // r_offset near 2^64: no wrap-around.
  EXPECT_EQ(error_of(relocatable(rela64(~uint64_t{0} - 1, 1, 1, 0)).bytes, ".debug_info"),
            "t.o: .rela.debug_info+0x0: relocation offset 0xfffffffffffffffe is outside .debug_info (size 0x10)");
}

TEST(ElfCorrupt, SymbolIndexOutOfRange) {
  // The second entry names symbol 5; .symtab has 2.
  std::vector<uint8_t> r = rela64(0, 1, 10, 0), r2 = rela64(4, 5, 10, 0);
  r.insert(r.end(), r2.begin(), r2.end());
  EXPECT_EQ(error_of(relocatable(r).bytes, ".debug_info"),
            "t.o: .rela.debug_info+0x18: symbol index 5 is out of range (2 symbols)");
}

TEST(ElfCorrupt, SymbolNameOutsideTheStringTable) {
  // Symbol 1's st_name is 0x1000; .strtab has 1 byte. The message points
  // at the symbol's entry, where the bad bytes are.
  Layout l = relocatable();
  put32(l.bytes, l.data_offset[kSymtab - 1] + 24, 0x1000);
  std::string message = "no error";
  try {
    elf::ElfFile::parse(l.bytes, "t.o")->symbols();
  } catch (const Error& e) {
    message = e.what();
  }
  EXPECT_EQ(message, "t.o: .symtab+0x18: the name of symbol 1 (0x1000) lies outside .strtab (0x1 bytes)");
}

// A big symbol table is read in chunks of 16384 symbols on several
// threads: every symbol must be what one pass in table order gives, and
// of two bad names the error is the first one's.
TEST(ElfCorrupt, SymbolChunksGiveWhatOnePassGives) {
  set_jobs(2);
  constexpr size_t n = 3 * 16384 + 100;
  std::vector<uint8_t> strtab{0}, symtab(24 * n, 0);
  for (size_t i = 1; i < n; i++) {
    const std::string name = "s" + std::to_string(i);
    put32(symtab, 24 * i, static_cast<uint32_t>(strtab.size()));  // st_name
    strtab.insert(strtab.end(), name.begin(), name.end());
    strtab.push_back(0);
    symtab[24 * i + 4] = elf::STT_FUNC;  // st_info
    put16(symtab, 24 * i + 6, 1);        // st_shndx: .debug_info
    put64(symtab, 24 * i + 8, 3 * i);    // st_value
  }
  auto file = [&](const std::vector<uint8_t>& table) {
    return encode({{".debug_info", elf::SHT_PROGBITS, 0, std::vector<uint8_t>(16, 0)},
                   {".symtab", elf::SHT_SYMTAB, 0, table, 3, 1, 24},
                   {".strtab", elf::SHT_STRTAB, 0, strtab}})
        .bytes;
  };
  {
    const std::vector<uint8_t> good = file(symtab);  // parse() reads the bytes where they are
    auto f = elf::ElfFile::parse(good, "t.o");
    const std::vector<elf::Symbol>& syms = f->symbols();
    ASSERT_EQ(syms.size(), n);
    for (size_t i = 1; i < n; i++) {
      ASSERT_EQ(syms[i].name, "s" + std::to_string(i)) << i;
      ASSERT_EQ(syms[i].value, 3 * i) << i;
      ASSERT_EQ(syms[i].type, elf::STT_FUNC) << i;
      ASSERT_EQ(syms[i].shndx, 1u) << i;
    }
  }
  std::vector<uint8_t> bad = symtab;
  put32(bad, 24 * 20000, 0x7fffffff);  // in the second chunk
  put32(bad, 24 * 40000, 0x7ffffffe);  // in the third
  const std::vector<uint8_t> bad_file = file(bad);
  std::string message = "no error";
  try {
    elf::ElfFile::parse(bad_file, "t.o")->symbols();
  } catch (const Error& e) {
    message = e.what();
  }
  char want[160];
  std::snprintf(want, sizeof want,
                "t.o: .symtab+0x%zx: the name of symbol 20000 (0x7fffffff) lies outside .strtab (0x%zx bytes)",
                size_t{24 * 20000}, strtab.size());
  EXPECT_EQ(message, want);
  set_jobs(0);
}

// A symbol whose st_shndx is SHN_XINDEX (a file of more than 65,279
// sections) has its section index in .symtab_shndx, a word per symbol;
// past that section's end, the error names it.
TEST(ElfCorrupt, ExtendedSectionIndexesFromSymtabShndx) {
  std::vector<uint8_t> strtab{0, 'a', 0, 'b', 0}, symtab(24 * 3, 0), shndx(4 * 3, 0);
  for (uint32_t i = 1; i < 3; i++) {
    put32(symtab, 24 * i, 2 * i - 1);  // "a", "b"
    symtab[24 * i + 4] = elf::STT_FUNC;
  }
  put16(symtab, 24 + 6, 1);                 // a: .debug_info, directly
  put16(symtab, 48 + 6, elf::SHN_XINDEX);   // b: through .symtab_shndx
  put32(shndx, 8, 70000);
  auto file = [&](const std::vector<uint8_t>& indexes) {
    return encode({{".debug_info", elf::SHT_PROGBITS, 0, std::vector<uint8_t>(16, 0)},
                   {".symtab", elf::SHT_SYMTAB, 0, symtab, 3, 1, 24},
                   {".strtab", elf::SHT_STRTAB, 0, strtab},
                   {".symtab_shndx", elf::SHT_SYMTAB_SHNDX, 0, indexes, 2, 0, 4}})
        .bytes;
  };
  const std::vector<uint8_t> good = file(shndx);
  auto f = elf::ElfFile::parse(good, "t.o");
  ASSERT_EQ(f->symbols().size(), 3u);
  EXPECT_EQ(f->symbols()[1].shndx, 1u);
  EXPECT_EQ(f->symbols()[2].name, "b");
  EXPECT_EQ(f->symbols()[2].shndx, 70000u);

  const std::vector<uint8_t> short_file = file(std::vector<uint8_t>(8, 0));  // no word for symbol 2
  std::string message = "no error";
  try {
    elf::ElfFile::parse(short_file, "t.o")->symbols();
  } catch (const Error& e) {
    message = e.what();
  }
  EXPECT_EQ(message, "t.o: .symtab_shndx+0x8: unexpected end of data");
}

TEST(ElfCorrupt, UnknownRelocationType) {
  // Type 99 is no x86-64 relocation the debug sections can hold.
  EXPECT_EQ(error_of(relocatable(rela64(0, 1, 99, 0)).bytes, ".debug_info"),
            "t.o: .rela.debug_info+0x0: unknown relocation type 99 for x86-64");
}

TEST(ElfCorrupt, RelocationsForNonDebugSectionsIgnored) {
  // The same bad relocation aimed at a non-debug section is never looked at.
  Layout l = relocatable(rela64(0, 1, 99, 0));
  put32(l.bytes, l.header(kRela) + 44, kSymtab);  // sh_info -> .symtab
  auto f = elf::ElfFile::parse(l.bytes, "t.o");
  EXPECT_NO_THROW(f->section_data(*f->find_section(".symtab")));
  EXPECT_EQ(error_of(l.bytes, ".debug_info"), "no error");
}

TEST(ElfCorrupt, ErrorIsStableAcrossCalls) {
  // A failed section is not cached as good: asking again gives the same error.
  Layout l = relocatable(rela64(0, 1, 99, 0));
  auto f = elf::ElfFile::parse(l.bytes, "t.o");
  const elf::Section* s = f->find_section(".debug_info");
  for (int i = 0; i < 2; i++) {
    try {
      f->section_data(*s);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_STREQ(e.what(), "t.o: .rela.debug_info+0x0: unknown relocation type 99 for x86-64");
    }
  }
}

TEST(ElfCorrupt, LinkedFilesAreNotRelocated) {
  // In an ET_EXEC the same .rela.debug_info is left alone.
  Layout l = relocatable(rela64(0, 1, 99, 0));
  put16(l.bytes, 16, elf::ET_EXEC);
  auto f = elf::ElfFile::parse(l.bytes, "t");
  Bytes d = f->section_data(*f->find_section(".debug_info"));
  EXPECT_EQ(d.data(), l.bytes.data() + l.data_offset[0]);  // the raw bytes, not a copy
}

// RISC-V's paired relocations, which clang emits for label differences in
// debug sections (the assembler cannot fold them: linker relaxation may move
// code). Expected bytes worked out by hand from the RISC-V ELF psABI.
TEST(ElfRelocate, RiscvPairs) {
  std::vector<uint8_t> info(16, 0);
  info[0] = 0xc5;               // SET6/SUB6 keep the top two bits (11)
  put32(info, 4, 0x100);        // ADD32/SUB32 work on this value
  info[8] = 0x80, info[9] = 0;  // a two-byte ULEB128 (0) for the ULEB pair
  std::vector<uint8_t> symtab(72, 0);
  symtab[24 + 4] = elf::STT_SECTION;  // 1: section symbol, value 0
  put16(symtab, 24 + 6, 1);
  symtab[48 + 4] = elf::STT_FUNC;     // 2: a label with value 0x30
  put16(symtab, 48 + 6, 1);
  put64(symtab, 48 + 8, 0x30);
  std::vector<uint8_t> rela;
  auto add = [&](uint64_t off, uint32_t sym, uint32_t type, int64_t addend) {
    auto r = rela64(off, sym, type, addend);
    rela.insert(rela.end(), r.begin(), r.end());
  };
  add(0, 2, 53, 1);        // SET6:  low 6 bits := 0x30 + 1 = 0x31
  add(0, 1, 52, 2);        // SUB6:  low 6 bits := 0x31 - 2 = 0x2f
  add(4, 2, 35, 0x10);     // ADD32: 0x100 + 0x40 = 0x140
  add(4, 1, 39, 0x20);     // SUB32: 0x140 - 0x20 = 0x120
  add(8, 2, 60, 0x50);     // SET_ULEB128: 0x80, kept in two bytes: 80 01
  add(8, 1, 61, 0x7f);     // SUB_ULEB128: 0x80 - 0x7f = 1: 81 00
  add(12, 2, 54, 2);       // SET8:  0x32
  add(13, 1, 55, 0x1234);  // SET16: 34 12
  add(0, 0, 51, 0);        // RELAX: a hint, nothing to do
  Layout l = encode({{".debug_line", elf::SHT_PROGBITS, 0, info},
                     {".symtab", elf::SHT_SYMTAB, 0, symtab, 3, 2, 24},
                     {".strtab", elf::SHT_STRTAB, 0, {0}},
                     {".rela.debug_line", elf::SHT_RELA, 0, rela, 2, 1, 24}},
                    elf::ET_REL, 243 /* EM_RISCV */);
  auto f = elf::ElfFile::parse(l.bytes, "rv.o");
  Bytes d = f->section_data(*f->find_section(".debug_line"));
  std::vector<uint8_t> want = {0xef, 0, 0, 0, 0x20, 0x01, 0, 0, 0x81, 0x00, 0, 0, 0x32, 0x34, 0x12, 0};
  EXPECT_EQ(std::vector<uint8_t>(d.begin(), d.end()), want);
  // And an unknown type names the machine.
  Layout bad = encode({{".debug_line", elf::SHT_PROGBITS, 0, info},
                       {".symtab", elf::SHT_SYMTAB, 0, symtab, 3, 2, 24},
                       {".strtab", elf::SHT_STRTAB, 0, {0}},
                       {".rela.debug_line", elf::SHT_RELA, 0, rela64(0, 1, 200, 0), 2, 1, 24}},
                      elf::ET_REL, 243);
  EXPECT_EQ(error_of(bad.bytes, ".debug_line"), "t.o: .rela.debug_line+0x0: unknown relocation type 200 for RISC-V");
}

// ElfFile::relocation_section: the allocated section of the symbol of the
// first absolute relocation at an offset whose symbol lies in one (a
// section symbol's own section, or a defined symbol's st_shndx); none for
// PC-relative types, undefined or SHN_ABS symbols, symbols of sections that
// are not allocated, R_*_NONE, or offsets no relocation starts at. Worked
// out by hand from the entries below. Every layout must give the same
// answers: entries in offset order, out of order, and in two relocation
// sections (the first section's first among entries at one offset).
TEST(ElfRelocate, RelocationSectionOfEachOffset) {
  std::vector<uint8_t> symtab(6 * 24, 0);
  symtab[24 + 4] = elf::STT_SECTION;  // 1: section symbol of .text (1)
  put16(symtab, 24 + 6, 1);
  symtab[48 + 4] = elf::STB_GLOBAL << 4;  // 2: undefined
  symtab[72 + 4] = elf::STT_OBJECT;       // 3: absolute
  put16(symtab, 72 + 6, 0xfff1);
  symtab[96 + 4] = elf::STT_OBJECT;  // 4: an object in .data (2)
  put16(symtab, 96 + 6, 2);
  put64(symtab, 96 + 8, 0x40);
  symtab[120 + 4] = elf::STT_SECTION;  // 5: section symbol of .debug_info (3), not allocated
  put16(symtab, 120 + 6, 3);
  auto entries = [](std::initializer_list<std::vector<uint8_t>> list) {
    std::vector<uint8_t> out;
    for (const auto& e : list) out.insert(out.end(), e.begin(), e.end());
    return out;
  };
  const auto at0 = rela64(0, 1, 10, 0);         // R_X86_64_32 -> 1
  const auto at4 = rela64(4, 4, 2, 0);          // R_X86_64_PC32: not absolute
  const auto at8_undef = rela64(8, 2, 1, 0);    // R_X86_64_64 of an undefined symbol
  const auto at8 = rela64(8, 4, 1, 0);          // then of symbol 4 -> 2
  const auto at12_debug = rela64(12, 5, 10, 0); // .debug_info's symbol does not count
  const auto at12 = rela64(12, 1, 10, 0);       // -> 1
  const auto at16 = rela64(16, 3, 1, 0);        // SHN_ABS
  const auto at20 = rela64(20, 5, 10, 0);       // only .debug_info's: none
  const auto at24 = rela64(24, 4, 10, 0);       // first at 24 -> 2
  const auto at24_late = rela64(24, 1, 10, 0);  // a second one at 24 does not count
  const auto at28 = rela64(28, 1, 0, 0);        // R_X86_64_NONE
  const std::vector<std::pair<uint64_t, uint32_t>> want = {{0, 1},  {4, 0},  {8, 2}, {12, 1}, {16, 0},
                                                           {20, 0}, {24, 2}, {28, 0}, {2, 0},  {40, 0}};
  auto build = [&](std::vector<uint8_t> first, std::vector<uint8_t> second) {
    std::vector<Sec> secs = {{".text", elf::SHT_PROGBITS, elf::SHF_ALLOC | elf::SHF_EXECINSTR, std::vector<uint8_t>(16, 0)},
                             {".data", elf::SHT_PROGBITS, elf::SHF_ALLOC | elf::SHF_WRITE, std::vector<uint8_t>(16, 0)},
                             {".debug_info", elf::SHT_PROGBITS, 0, std::vector<uint8_t>(32, 0)},
                             {".symtab", elf::SHT_SYMTAB, 0, symtab, 5, 2, 24},
                             {".strtab", elf::SHT_STRTAB, 0, {0}},
                             {".rela.debug_info", elf::SHT_RELA, 0, first, 4, 3, 24}};
    if (!second.empty()) secs.push_back({".rela.debug_info", elf::SHT_RELA, 0, second, 4, 3, 24});
    return encode(secs);
  };
  struct Case {
    const char* name;
    Layout layout;
  };
  std::vector<Case> cases = {
      {"sorted", build(entries({at0, at4, at8_undef, at8, at12_debug, at12, at16, at20, at24, at24_late, at28}), {})},
      {"unsorted", build(entries({at28, at24, at24_late, at20, at16, at12_debug, at12, at8_undef, at8, at4, at0}), {})},
      {"two sections", build(entries({at0, at8_undef, at12_debug, at24}),
                             entries({at4, at8, at12, at16, at20, at24_late, at28}))},
  };
  for (const Case& c : cases) {
    auto f = elf::ElfFile::parse(c.layout.bytes, "t.o");
    const elf::Section* info = f->find_section(".debug_info");
    ASSERT_NE(info, nullptr);
    for (auto [offset, shndx] : want) EXPECT_EQ(f->relocation_section(*info, offset), shndx) << c.name << " at " << offset;
    // Symbol 4's value lands at 8 (R_X86_64_64 of symbol 4 comes last there).
    Bytes d = f->section_data(*info);
    EXPECT_EQ(load<uint64_t>(d.data() + 8, false), 0x40u) << c.name;
  }
}

// Once the general loop has met an absolute 4- and 8-byte type, entries of
// those types go through a shorter loop (relocate.cc's run_plain), which
// hands anything else back. Bytes and errors must be the general loop's:
// worked out here by hand, with symbol 1 given st_value 0x100 (S).
TEST(ElfRelocate, PlainEntriesGiveWhatTheGeneralLoopGives) {
  auto rela = [](std::vector<std::vector<uint8_t>> entries) {
    std::vector<uint8_t> r;
    for (const std::vector<uint8_t>& e : entries) r.insert(r.end(), e.begin(), e.end());
    return r;
  };
  auto with_value = [](Layout l) {
    put64(l.bytes, l.data_offset[kSymtab - 1] + 24 + 8, 0x100);  // data_offset[i]: section i + 1
    return l;
  };
  {  // R_X86_64_32, R_X86_64_32, R_X86_64_64, then R_X86_64_32 over the last's low half.
    Layout l = with_value(relocatable(
        rela({rela64(0, 1, 10, 0x10), rela64(4, 1, 10, 0x20), rela64(8, 1, 1, 0x30), rela64(8, 1, 10, 0x40)})));
    auto f = elf::ElfFile::parse(l.bytes, "t.o");
    Bytes d = f->section_data(*f->find_section(".debug_info"));
    ASSERT_EQ(d.size(), 16u);
    EXPECT_EQ(load<uint32_t>(d.data(), false), 0x110u);
    EXPECT_EQ(load<uint32_t>(d.data() + 4, false), 0x120u);
    EXPECT_EQ(load<uint64_t>(d.data() + 8, false), 0x140u);  // high half from the R_X86_64_64: 0
  }
  // After plain entries: one running past the end, one with a bad symbol,
  // one of an unknown type; each reported at its own entry.
  EXPECT_EQ(error_of(relocatable(rela({rela64(0, 1, 10, 0), rela64(8, 1, 1, 0), rela64(9, 1, 1, 0)})).bytes,
                     ".debug_info"),
            "t.o: .rela.debug_info+0x30: relocation offset 0x9 is outside .debug_info (size 0x10)");
  EXPECT_EQ(error_of(relocatable(rela({rela64(0, 1, 10, 0), rela64(4, 1, 10, 0), rela64(8, 2, 10, 0)})).bytes,
                     ".debug_info"),
            "t.o: .rela.debug_info+0x30: symbol index 2 is out of range (2 symbols)");
  EXPECT_EQ(error_of(relocatable(rela({rela64(0, 1, 10, 0), rela64(4, 1, 10, 0), rela64(8, 1, 99, 0)})).bytes,
                     ".debug_info"),
            "t.o: .rela.debug_info+0x30: unknown relocation type 99 for x86-64");
}

// A big relocation section is applied in chunks of 65536 entries on several
// threads, each chunk copying and relocating its own bytes. The bytes and
// the error must still be what one pass in entry order gives: worked out
// here from the entries (R_X86_64_32 of a section symbol at 0: the addend).
TEST(ElfRelocate, ChunksGiveWhatOnePassGives) {
  set_jobs(2);
  constexpr size_t n = 3 * 65536 + 1000;
  auto addend = [](size_t i) { return static_cast<int64_t>(3 * i + 7); };
  auto entries = [&](auto&& edit) {
    std::vector<uint8_t> rela;
    rela.reserve((n + 1) * 24);
    for (size_t i = 0; i < n; i++) {
      uint64_t offset = 4 * i;
      uint32_t sym = 1, type = 10;
      int64_t a = addend(i);
      edit(i, offset, sym, type, a);
      auto e = rela64(offset, sym, type, a);
      rela.insert(rela.end(), e.begin(), e.end());
    }
    return rela;
  };
  const std::vector<uint8_t> info(4 * n + 8, 0);
  auto words = [](Bytes d) {
    std::vector<uint32_t> w(d.size() / 4);
    for (size_t i = 0; i < w.size(); i++) w[i] = load<uint32_t>(d.data() + 4 * i, false);
    return w;
  };
  std::vector<uint32_t> want(n + 2, 0);
  for (size_t i = 0; i < n; i++) want[i] = static_cast<uint32_t>(addend(i));

  {  // In offset order: relocated chunk by chunk.
    // (.debug_info allocated: symbol 1's relocations are relocation_section()'s.)
    Layout l = relocatable(entries([](size_t, uint64_t&, uint32_t&, uint32_t&, int64_t&) {}), info, elf::SHF_ALLOC);
    auto f = elf::ElfFile::parse(l.bytes, "t.o");
    const elf::Section* s = f->find_section(".debug_info");
    EXPECT_EQ(words(f->section_data(*s)), want);
    for (size_t i : {size_t{0}, size_t{65535}, size_t{65536}, size_t{70000}, n - 1})
      EXPECT_EQ(f->relocation_section(*s, 4 * i), 1u) << i;
    EXPECT_EQ(f->relocation_section(*s, 4 * 70000 + 2), 0u);
    EXPECT_EQ(f->relocation_section(*s, 4 * n), 0u);
  }
  {  // The same relocations against a section that is not allocated: none.
    Layout l = relocatable(entries([](size_t, uint64_t&, uint32_t&, uint32_t&, int64_t&) {}), info);
    auto f = elf::ElfFile::parse(l.bytes, "t.o");
    const elf::Section* s = f->find_section(".debug_info");
    EXPECT_EQ(words(f->section_data(*s)), want);
    EXPECT_EQ(f->relocation_section(*s, 4 * 70000), 0u);
  }
  {  // One more entry at the end aimed at offset 20, which an earlier chunk
     // owns: out of order, so one pass; it comes last and wins.
    std::vector<uint8_t> rela = entries([](size_t, uint64_t&, uint32_t&, uint32_t&, int64_t&) {});
    auto extra = rela64(20, 1, 10, 0xdead);
    rela.insert(rela.end(), extra.begin(), extra.end());
    Layout l = relocatable(rela, info, elf::SHF_ALLOC);
    auto f = elf::ElfFile::parse(l.bytes, "t.o");
    const elf::Section* s = f->find_section(".debug_info");
    std::vector<uint32_t> w = want;
    w[5] = 0xdead;
    EXPECT_EQ(words(f->section_data(*s)), w);
    EXPECT_EQ(f->relocation_section(*s, 20), 1u);
    EXPECT_EQ(f->relocation_section(*s, 4 * 70000), 1u);
  }
  {  // Bad entries in the second and the fourth chunk: the first is reported.
    Layout l = relocatable(entries([](size_t i, uint64_t&, uint32_t& sym, uint32_t& type, int64_t&) {
                             if (i == 70000) sym = 9;
                             if (i == 200000) type = 99;
                           }),
                           info);
    EXPECT_EQ(error_of(l.bytes, ".debug_info"), "t.o: .rela.debug_info+0x19a280: symbol index 9 is out of range (2 symbols)");
  }
  {  // An entry out of place in the second chunk, a bad one in the third:
     // one pass meets the out-of-place entry first, applies it, and then
     // reports the bad one.
    Layout l = relocatable(entries([](size_t i, uint64_t& offset, uint32_t&, uint32_t& type, int64_t&) {
                             if (i == 70000) offset = 0;
                             if (i == 140000) type = 99;
                           }),
                           info);
    EXPECT_EQ(error_of(l.bytes, ".debug_info"), "t.o: .rela.debug_info+0x334500: unknown relocation type 99 for x86-64");
  }
  set_jobs(0);
}


// elf::PartRelocator (the encoder's unit-by-unit relocation): any part of
// a section, read on its own, must hold the bytes section_data() holds
// there, and part.targets relocation_section()'s answers, including where
// a relocation straddles an end of the part. 5,000 entries: five samples.
constexpr size_t kPartEntries = 5000;

// Entries at 4i: R_X86_64_32 mostly, every 7th an R_X86_64_64 (over the
// next entry's word too: entry order decides), every 11th R_X86_64_PC32,
// every 13th R_X86_64_NONE. `edit` may change any entry.
template <typename Edit>
Layout part_layout(Edit&& edit) {
  std::vector<uint8_t> rela;
  for (size_t i = 0; i < kPartEntries; i++) {
    uint64_t offset = 4 * i;
    uint32_t type = i % 7 == 0 ? 1 : i % 11 == 0 ? 2 : i % 13 == 0 ? 0 : 10;
    edit(i, offset, type);
    auto e = rela64(offset, 1, type, static_cast<int64_t>(3 * i + 0x1000));
    rela.insert(rela.end(), e.begin(), e.end());
  }
  // Bytes that are not zero, so that a relocation not applied shows.
  std::vector<uint8_t> info(4 * kPartEntries + 8);
  for (size_t i = 0; i < info.size(); i++) info[i] = static_cast<uint8_t>(i * 37 + 11);
  return relocatable(rela, info, elf::SHF_ALLOC);
}
Layout part_layout() {
  return part_layout([](size_t, uint64_t&, uint32_t&) {});
}

TEST(ElfRelocate, PartsGiveWhatTheWholeSectionGives) {
  Layout l = part_layout();
  auto f = elf::ElfFile::parse(l.bytes, "t.o");
  const elf::Section* s = f->find_section(".debug_info");
  auto parts = elf::PartRelocator::make(*f, *s);
  ASSERT_NE(parts, nullptr);
  const Bytes whole = f->section_data(*s);
  std::mt19937_64 rng(7);
  elf::PartRelocator::Part part;
  auto check = [&](uint64_t lo, uint64_t hi) {
    SCOPED_TRACE("part [" + std::to_string(lo) + ", " + std::to_string(hi) + ")");
    parts->read(lo, hi, part, false);
    ASSERT_EQ(part.bytes.size(), hi - lo);
    EXPECT_TRUE(std::equal(part.bytes.begin(), part.bytes.end(), whole.begin() + lo));
    for (uint64_t off = lo; off < hi; off++) {
      ASSERT_EQ(elf::ElfFile::target_section(part.targets, off), f->relocation_section(*s, off)) << "at " << off;
    }
  };
  check(0, whole.size());
  check(0, 0);
  check(whole.size(), whole.size());
  check(4 * 1024 - 2, 4 * 1024 + 3);  // around a sample, cutting both ends
  for (int k = 0; k < 100; k++) {
    uint64_t a = rng() % (whole.size() + 1), b = rng() % (whole.size() + 1);
    check(std::min(a, b), std::max(a, b));
  }
}

// Counted reads must say whether every relocation was applied: parts that
// tile the section without cutting a relocation do; a part left out or
// read twice, a relocation cut in two, or entries out of order do not (the
// encoder then relocates the whole section).
TEST(ElfRelocate, CountedPartsTellWhetherEveryRelocationWasApplied) {
  struct Case {
    const char* name;
    Layout layout;
    std::vector<uint64_t> cuts;        // parts [cuts[k], cuts[k + 1])
    std::vector<int> how;              // per part: 1 read, 0 count() only, -1 left out, 2 read twice
    bool complete;
    bool in_order = true;
  };
  const uint64_t size = 4 * kPartEntries + 8;
  // Cuts where no relocation straddles: between entries 1500 and 1501
  // (1500 is an R_X86_64_32, as 1500 % 7 and 1500 % 11 are not 0).
  const std::vector<uint64_t> clean = {0, 4 * 1501, 4 * 3001, size};
  std::vector<Case> cases = {
      {"tiled", part_layout(), clean, {1, 1, 1}, true},
      {"one part counted only", part_layout(), clean, {1, 0, 1}, true},
      {"a part left out", part_layout(), clean, {1, -1, 1}, false},
      {"a part read twice", part_layout(), clean, {1, 2, 1}, false},
      // Entry 1498 (an R_X86_64_64 at 5992) reaches 6000.
      {"a relocation cut in two", part_layout(), {0, 5996, size}, {1, 1}, false},
      // Two entries swapped inside the first sample's run: the samples are
      // in order, the entries are not.
      {"entries out of order", part_layout([](size_t i, uint64_t& offset, uint32_t&) {
         if (i == 100) offset = 4 * 900;
         if (i == 900) offset = 4 * 100;
       }), clean, {1, 1, 1}, false, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto f = elf::ElfFile::parse(c.layout.bytes, "t.o");
    const elf::Section* s = f->find_section(".debug_info");
    auto parts = elf::PartRelocator::make(*f, *s);
    ASSERT_NE(parts, nullptr);
    const Bytes whole = f->section_data(*s);
    elf::PartRelocator::Part part;
    for (size_t k = 0; k + 1 < c.cuts.size(); k++) {
      const uint64_t lo = c.cuts[k], hi = c.cuts[k + 1];
      if (c.how[k] == 0) parts->count(lo, hi);
      for (int r = 0; r < c.how[k]; r++) {
        parts->read(lo, hi, part, true);
        // Entries in order give the right bytes, whatever the count says.
        if (c.in_order) {
          EXPECT_TRUE(std::equal(part.bytes.begin(), part.bytes.end(), whole.begin() + lo)) << k;
        }
      }
    }
    EXPECT_EQ(parts->complete(), c.complete);
  }
}

// Files the parts cannot serve are left to section_data(): entries out of
// order at a sample, two relocation sections, REL entries.
TEST(ElfRelocate, PartsOnlyForOneSortedRelaSection) {
  auto make = [](const Layout& l) {
    auto f = elf::ElfFile::parse(l.bytes, "t.o");
    return elf::PartRelocator::make(*f, *f->find_section(".debug_info")) != nullptr;
  };
  EXPECT_TRUE(make(part_layout()));
  EXPECT_FALSE(make(part_layout([](size_t i, uint64_t& offset, uint32_t&) {
    if (i == 2048) offset = 4;  // the third sample before the second
  })));
  Layout rel = part_layout();
  put32(rel.bytes, rel.header(kRela) + 4, elf::SHT_REL);
  EXPECT_FALSE(make(rel));
  // A second relocation section aimed at .debug_info.
  std::vector<uint8_t> symtab(48, 0);
  symtab[24 + 4] = elf::STT_SECTION;
  put16(symtab, 24 + 6, kInfo);
  Layout two = encode({{".debug_info", elf::SHT_PROGBITS, 0, std::vector<uint8_t>(16, 0)},
                       {".symtab", elf::SHT_SYMTAB, 0, symtab, 3, 2, 24},
                       {".strtab", elf::SHT_STRTAB, 0, {0}},
                       {".rela.debug_info", elf::SHT_RELA, 0, rela64(0, 1, 10, 1), kSymtab, kInfo, 24},
                       {".rela.debug_info", elf::SHT_RELA, 0, rela64(4, 1, 10, 2), kSymtab, kInfo, 24}});
  EXPECT_FALSE(make(two));
  // A linked file has nothing to relocate.
  Layout exec = part_layout();
  put16(exec.bytes, 16, elf::ET_EXEC);
  EXPECT_FALSE(make(exec));
}

}  // namespace
}  // namespace btfc
