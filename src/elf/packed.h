// Whole files compressed as distributions install kernel modules
// (`foo.ko.xz`, `foo.ko.zst`, `foo.ko.gz`: the kernel's
// CONFIG_MODULE_COMPRESS_*), which pahole reads through elfutils as if
// they were plain. ElfFile::open and the BTF readers open files through
// FileBytes, which unpacks such a file into memory to read from there:
//
//   elf::FileBytes f = elf::FileBytes::open(path);  // f.bytes: plain ELF or BTF
//
// The format is told by its magic, not by the file name. Concatenated
// streams (gzip members, xz streams, zstd frames) are read one after the
// other, as the tools that write them do.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/mapped_file.h"
#include "base/page_buffer.h"
#include "base/reader.h"

namespace btfc::elf {

enum class Packing : uint8_t { None, Gzip, Xz, Zstd };

// By the first bytes: gzip 1f 8b, xz fd '7zXZ' 00, zstd 28 b5 2f fd.
Packing packing_of(Bytes bytes);
// "gzip", "xz", "zstd" ("" for None).
std::string_view packing_name(Packing p);

// The most a packed file may unpack to, as a multiple of its own size: an
// ELF file with DWARF packs 4 to 10 times smaller (wireguard.ko: 5.8 with
// xz), and a stream that claims more (a "bomb" of zeros) is refused before
// it takes memory past this bound.
inline constexpr uint64_t kMaxUnpackRatio = 256;

// The contents of `in` unpacked. Throws btfc::Error naming the stream
// ("xz stream", ...) and the offset in `in` where it went wrong: corrupt or
// truncated data, or more than kMaxUnpackRatio times in.size() bytes.
PageBuffer unpack(Bytes in, Packing p);

// A file's bytes as its readers take them (ElfFile, BtfFile): the file
// mapped, or, when it is packed, what it unpacks to (and no mapping).
struct FileBytes {
  MappedFile file;      // not mapped for a packed file
  PageBuffer unpacked;  // a packed file's contents
  Packing packing = Packing::None;
  Bytes bytes;          // the file's bytes, or the unpacked ones

  // Maps `path`, unpacked into memory if packed; errors name `path`.
  static FileBytes open(const std::string& path);
  // Bytes the caller keeps alive (tests, fuzzing), unpacked if packed;
  // errors name the stream only.
  static FileBytes of(Bytes in);
};

}  // namespace btfc::elf
