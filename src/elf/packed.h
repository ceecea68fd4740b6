// Whole files compressed as distributions install kernel modules
// (`foo.ko.xz`, `foo.ko.zst`, `foo.ko.gz`: the kernel's
// CONFIG_MODULE_COMPRESS_*), which pahole reads through elfutils as if
// they were plain. ElfFile::open and the BTF readers unpack such a file
// into memory and read that.
//
//   if (elf::Packing p = elf::packing_of(bytes); p != elf::Packing::None)
//     PageBuffer plain = elf::unpack(bytes, p);
//
// The format is told by its magic, not by the file name. Concatenated
// streams (gzip members, xz streams, zstd frames) are read one after the
// other, as the tools that write them do.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/reader.h"
#include "base/page_buffer.h"

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

}  // namespace btfc::elf
