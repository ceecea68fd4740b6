// Reading and validating BTF: raw BTF bytes (either byte order), a raw .btf
// file, or the .BTF section of an ELF file; standalone or split on a base.
//
//   btf::Btf vmlinux = btf::read_file("vmlinux");
//   btf::Btf ext4 = btf::read_file("ext4.ko", &vmlinux);   // split BTF
//
// Everything is checked before anyone looks at a record, along the lines of
// the kernel's btf.c (header, sections, string table, every record's kind,
// vlen, name offsets, ids, sizes and offsets, datasec order, reference
// cycles), so code using a Btf from here can index records and strings
// without checks. Names are not held to C's syntax here, as libbpf does
// not (bpftool dumps pahole's BTF of C++ code, `box<int>`); validate()
// adds that rule for what btfc writes.
// A problem is one btfc::Error: section ".BTF", the byte offset in it, and
// the type it concerns, e.g.
//   FILE: .BTF+0x1234: type [42] STRUCT 'foo': member 'bar' type id 99999 out of range
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "base/error.h"
#include "base/reader.h"
#include "btf/btf.h"
#include "elf/packed.h"

namespace btfc::elf {
class ElfFile;
struct Section;
}  // namespace btfc::elf

namespace btfc::btf {

// True if `bytes` start with the BTF magic in either byte order.
bool is_raw_btf(Bytes bytes);

// Parses and validates raw BTF (header + type and string sections). The
// error offsets are relative to `bytes`, named after `section`.
Btf read_raw(Bytes bytes, const Btf* base = nullptr, std::string_view section = ".BTF");

// A raw BTF file, or an ELF file's .BTF section. Errors name the file.
// An ELF file that also has .BTF.base (a module encoded with
// distilled_base) needs `base`: its .BTF is relocated onto it (relocate()
// in btf/distill.h), as libbpf 1.5 does when given a base.
Btf read_file(const std::string& path, const Btf* base = nullptr);
// read_file of an ELF file already open (its .BTF, relocated onto `base`
// when it has .BTF.base). Errors name the file.
Btf read_elf(const elf::ElfFile& elf, const Btf* base = nullptr);

// A file's BTF as read_file finds it: the whole file when it is raw BTF,
// else the ELF file's .BTF section, and .BTF.base if it has one. The file
// stays mapped, and `bytes` valid, while this lives. open() throws
// btfc::Error (the caller adds the file's name) when there is no .BTF.
struct BtfFile {
  static BtfFile open(const std::string& path);
  BtfFile();
  BtfFile(BtfFile&&) noexcept;
  ~BtfFile();

  elf::FileBytes contents;                       // raw BTF's (an ELF file's are elf's)
  std::unique_ptr<elf::ElfFile> elf;             // null for raw BTF
  Bytes bytes;                                   // the BTF (.BTF's bytes in an ELF file)
  const elf::Section* distilled_base = nullptr;  // .BTF.base, if any
};

// What a caller builds from a table while it is being read (a module's
// base: dedup's index of it, which a single small module waits for): run
// beside the checks of the records, with the table in its place and every
// record lying inside it, but nothing else checked yet, so what it builds
// is for after the read returns (and is to be dropped if it throws).
using BesideChecks = std::function<void(const Btf&)>;

// Whether a table read gets its string index at once, or when it is
// looked up (Btf::defer_string_index: a single small module's base).
enum class StringIndex { Built, Deferred };

// read_file into `out`, which stays where it is: `beside` runs beside the
// checks (after them for a module relocated from its distilled base).
void read_file(const std::string& path, const Btf* base, Btf& out, const BesideChecks& beside,
               StringIndex string_index = StringIndex::Built);

// read_raw of standalone BTF into `out` (which stays where it is), with
// `beside` run beside the checks, as read_file.
void read_raw(Btf& out, Bytes bytes, const BesideChecks& beside);

// The same for bytes that passed all of read_raw's checks before, in this
// very binary: the base cache (btf/base_cache.h) knows them by their hash.
// Only the header and record layout are checked again; the string index
// is read from the image StringTable::save_index() made of them. Throws
// btfc::Error if the image does not fit.
void read_raw_checked_before(Btf& out, Bytes bytes, FlatReader& saved_strings, const BesideChecks& beside);

// What validate() throws for a name that is not a C identifier where BTF
// wants one (a C++ template's name, a damaged string): the Error, and the
// name, by which the encoder finds the DIE it came from.
class InvalidName : public Error {
 public:
  InvalidName(Error error, std::string name) : Error(std::move(error)), name_(std::move(name)) {}
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

// The semantic checks read_raw runs, for tables built in memory too, and
// names as the kernel wants them: C identifiers (with '.') where BTF
// wants one, printable section names, none longer than 512 bytes.
// `types_offset`: where word 0 of the records sits in the section, for
// error offsets (24 for what write_raw produces).
void validate(const Btf& btf, std::string_view section = ".BTF", uint64_t types_offset = HEADER_SIZE);

// validate() plus the rules only the kernel applies, for BTF meant to be
// loaded (what btfc encodes): no extern FUNC or VAR linkage (BPF object
// files use them; libbpf resolves them before loading), no DATASEC of size
// 0 or with overlapping variables, type tags before the other modifiers
// of a chain, and no chain of references the kernel's id-order resolution
// takes more than 32 deep (btf/kernel_order.h). read_raw() lets those
// through so that every file bpftool dumps can be dumped.
void validate_for_kernel(const Btf& btf);

}  // namespace btfc::btf
