// Decompression of debug sections: the gABI form (SHF_COMPRESSED, a
// Elf32_Chdr/Elf64_Chdr header then a zlib or zstd stream) and the legacy
// GNU form (.zdebug_* sections: "ZLIB", 8-byte big-endian size, zlib).
//
// The header states the decompressed size, but it is data from a stranger:
// the output buffer grows with what the stream actually produces and never
// past the stated size, so a lying header costs neither memory nor time,
// and a stream that ends short of (or runs past) the size is an error.
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "elf/elf_file.h"

namespace btfc::elf {

namespace {

constexpr uint32_t ELFCOMPRESS_ZLIB = 1, ELFCOMPRESS_ZSTD = 2;

// Next capacity for an output buffer that must end at exactly `size` bytes:
// start near a typical debug-info ratio, double after that.
size_t grow(size_t current, size_t input, uint64_t size) {
  uint64_t next = current ? uint64_t{current} * 2 : std::max<uint64_t>(uint64_t{input} * 4, 1 << 16);
  return static_cast<size_t>(std::min(next, size));
}

void size_mismatch(const std::string& section, uint64_t offset, uint64_t got, uint64_t want) {
  throw Error(section, offset,
              "decompressed size mismatch: the stream holds " + std::to_string(got) + " bytes, the header says " +
                  std::to_string(want));
}

// Both decoders follow the same plan: fill `out` (grown on demand, never past
// `size`); once it holds `size` bytes, offer a one-byte probe buffer to see
// whether the stream has more to give (an error) or ends there.
void inflate_into(const std::string& section, uint64_t offset, Bytes in, uint64_t size, std::vector<uint8_t>& out) {
  z_stream z{};
  if (inflateInit(&z) != Z_OK) throw Error(section, offset, "cannot initialise zlib");
  struct Guard {
    z_stream* z;
    ~Guard() { inflateEnd(z); }
  } guard{&z};
  const uint8_t* in_end = in.data() + in.size();
  z.next_in = const_cast<Bytef*>(in.data());
  size_t produced = 0;
  out.clear();
  for (;;) {
    if (produced == out.size() && out.size() < size) out.resize(grow(out.size(), in.size(), size));
    uint8_t probe;
    bool full = produced == out.size();
    z.next_out = full ? &probe : out.data() + produced;
    z.avail_out = full ? 1 : static_cast<uInt>(std::min<size_t>(out.size() - produced, 1u << 30));
    z.avail_in = static_cast<uInt>(std::min<size_t>(in_end - z.next_in, 1u << 30));
    int rc = inflate(&z, Z_NO_FLUSH);
    if (full) {
      if (z.avail_out == 0) throw Error(section, offset, "decompressed data is larger than the header's size " + std::to_string(size));
    } else {
      produced = static_cast<size_t>(z.next_out - out.data());
    }
    if (rc == Z_STREAM_END) {
      if (produced != size) size_mismatch(section, offset, produced, size);
      out.resize(produced);
      return;
    }
    if (rc == Z_BUF_ERROR && z.next_in == in_end) throw Error(section, offset, "truncated zlib stream");
    if (rc != Z_OK) throw Error(section, offset, std::string("bad zlib stream: ") + (z.msg ? z.msg : "error"));
  }
}

void zstd_into(const std::string& section, uint64_t offset, Bytes in, uint64_t size, std::vector<uint8_t>& out) {
  ZSTD_DStream* d = ZSTD_createDStream();
  if (!d) throw Error(section, offset, "cannot initialise zstd");
  struct Guard {
    ZSTD_DStream* d;
    ~Guard() { ZSTD_freeDStream(d); }
  } guard{d};
  ZSTD_inBuffer input{in.data(), in.size(), 0};
  size_t produced = 0;
  out.clear();
  for (;;) {
    if (produced == out.size() && out.size() < size) out.resize(grow(out.size(), in.size(), size));
    uint8_t probe;
    bool full = produced == out.size();
    ZSTD_outBuffer output = full ? ZSTD_outBuffer{&probe, 1, 0} : ZSTD_outBuffer{out.data(), out.size(), produced};
    size_t rc = ZSTD_decompressStream(d, &output, &input);
    if (ZSTD_isError(rc)) throw Error(section, offset, std::string("bad zstd stream: ") + ZSTD_getErrorName(rc));
    if (full) {
      if (output.pos) throw Error(section, offset, "decompressed data is larger than the header's size " + std::to_string(size));
    } else {
      produced = output.pos;
    }
    // rc == 0: a frame ended. More input means another frame follows.
    if (rc == 0 && input.pos == input.size) {
      if (produced != size) size_mismatch(section, offset, produced, size);
      out.resize(produced);
      return;
    }
    bool room_left = full ? output.pos == 0 : output.pos < output.size;
    if (rc != 0 && input.pos == input.size && room_left) throw Error(section, offset, "truncated zstd stream");
  }
}

}  // namespace

Bytes ElfFile::decompressed_data(const Section& s, std::vector<uint8_t>& owned) const {
  Bytes raw = raw_data(s);
  std::string name(s.name);
  if (s.flags & SHF_COMPRESSED) {
    Reader r(raw, s.name, big_endian_);
    uint32_t type;
    uint64_t size;
    if (is_64_) {
      if (raw.size() < 24) r.fail_at(0, "compression header is truncated (" + std::to_string(raw.size()) + " bytes)");
      type = r.u32();
      r.u32();  // ch_reserved
      size = r.u64();
      r.u64();  // ch_addralign
    } else {
      if (raw.size() < 12) r.fail_at(0, "compression header is truncated (" + std::to_string(raw.size()) + " bytes)");
      type = r.u32();
      size = r.u32();
      r.u32();
    }
    Bytes stream = raw.subspan(r.pos());
    if (type == ELFCOMPRESS_ZLIB)
      inflate_into(name, r.pos(), stream, size, owned);
    else if (type == ELFCOMPRESS_ZSTD)
      zstd_into(name, r.pos(), stream, size, owned);
    else
      throw Error(name, 0, "unknown compression type " + std::to_string(type));
    return owned;
  }
  if (s.name.starts_with(".zdebug_")) {
    if (raw.size() < 12 || std::memcmp(raw.data(), "ZLIB", 4) != 0)
      throw Error(name, 0, "missing \"ZLIB\" header of a .zdebug section");
    uint64_t size = load<uint64_t>(raw.data() + 4, /*big_endian=*/true);
    inflate_into(name, 12, raw.subspan(12), size, owned);
    return owned;
  }
  return raw;
}

}  // namespace btfc::elf
