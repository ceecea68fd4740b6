// Unpacking whole compressed files (see packed.h). Each decoder fills one
// output buffer that grows by doubling up to kMaxUnpackRatio times the
// input; the decoders' own memory is bounded too (their window or
// dictionary, which a stream's header states).
#include "elf/packed.h"

#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "base/error.h"

namespace btfc::elf {

namespace {

// The most memory a decoder may take for its window: xz's -9 uses a
// 64 MiB dictionary, zstd's default limit is a 128 MiB window.
constexpr uint64_t kDecoderMemory = uint64_t{256} << 20;

// An output buffer growing up to `cap` bytes; `produced` bytes are filled.
// A big one is its own mapping, grown and shrunk by mremap: no copy, and
// only the bytes written are resident (amdgpu.ko.zst, 355 MB unpacked:
// peak RSS 1.1 GB -> 0.6 GB with a vector's copies).
class Output {
 public:
  Output(Bytes in, const char* stream)
      : stream_(stream), cap_(std::max<uint64_t>(in.size(), 1) * kMaxUnpackRatio),
        buffer_(static_cast<size_t>(std::min<uint64_t>(cap_, std::max<uint64_t>(uint64_t{in.size()} * 4, 1 << 16)))) {}
  // Room after `produced`: grown when there is none, an error past the cap.
  std::span<uint8_t> room(size_t produced, uint64_t at) {
    if (produced == buffer_.size()) {
      if (buffer_.size() >= cap_)
        throw Error(stream_, at,
                    "unpacks to more than " + std::to_string(kMaxUnpackRatio) + " times its size (" +
                        std::to_string(cap_) + " bytes); not read further");
      buffer_.resize(static_cast<size_t>(std::min<uint64_t>(cap_, uint64_t{buffer_.size()} * 2)));
    }
    return buffer_.span().subspan(produced);
  }
  PageBuffer finish(size_t produced) {
    buffer_.resize(produced);
    return std::move(buffer_);
  }

 private:
  const char* stream_;
  uint64_t cap_;
  PageBuffer buffer_;
};

// zlib and xz take at most this much per call (their counters are 32-bit
// in zlib).
constexpr size_t kChunk = size_t{1} << 30;

PageBuffer gunzip(Bytes in) {
  constexpr char kStream[] = "gzip stream";
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw Error(kStream, 0, "cannot initialise zlib");
  struct Guard {
    z_stream* z;
    ~Guard() { inflateEnd(z); }
  } guard{&z};
  Output out(in, kStream);
  size_t used = 0, produced = 0;
  for (;;) {
    std::span<uint8_t> room = out.room(produced, used);
    z.next_in = const_cast<Bytef*>(in.data() + used);
    z.avail_in = static_cast<uInt>(std::min(in.size() - used, kChunk));
    z.next_out = room.data();
    z.avail_out = static_cast<uInt>(std::min(room.size(), kChunk));
    const uInt avail_in = z.avail_in, avail_out = z.avail_out;
    int rc = inflate(&z, Z_NO_FLUSH);
    used += avail_in - z.avail_in;
    produced += avail_out - z.avail_out;
    if (rc == Z_STREAM_END) {
      if (used == in.size()) return out.finish(produced);
      // Another member follows (gzip writes them concatenated), else the
      // rest is not gzip data.
      if (packing_of(in.subspan(used)) != Packing::Gzip)
        throw Error(kStream, used, "data that is not gzip after the end of the stream");
      inflateReset(&z);
      continue;
    }
    if (rc == Z_BUF_ERROR && used == in.size()) throw Error(kStream, used, "truncated");
    if (rc != Z_OK && rc != Z_BUF_ERROR)
      throw Error(kStream, used, std::string("corrupt data: ") + (z.msg ? z.msg : "zlib error " + std::to_string(rc)));
  }
}

PageBuffer unxz(Bytes in) {
  constexpr char kStream[] = "xz stream";
  lzma_stream s = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&s, kDecoderMemory, LZMA_CONCATENATED) != LZMA_OK)
    throw Error(kStream, 0, "cannot initialise liblzma");
  struct Guard {
    lzma_stream* s;
    ~Guard() { lzma_end(s); }
  } guard{&s};
  Output out(in, kStream);
  size_t produced = 0;
  s.next_in = in.data();
  s.avail_in = in.size();
  for (;;) {
    std::span<uint8_t> room = out.room(produced, s.total_in);
    s.next_out = room.data();
    s.avail_out = std::min(room.size(), kChunk);
    const size_t avail_out = s.avail_out;
    lzma_ret rc = lzma_code(&s, LZMA_FINISH);
    produced += avail_out - s.avail_out;
    switch (rc) {
      case LZMA_STREAM_END: return out.finish(produced);
      case LZMA_OK: continue;
      case LZMA_BUF_ERROR:
        if (s.avail_in == 0) throw Error(kStream, s.total_in, "truncated");
        continue;  // the output was full: more room
      case LZMA_MEMLIMIT_ERROR:
        throw Error(kStream, s.total_in,
                    "its dictionary needs more than " + std::to_string(kDecoderMemory >> 20) + " MiB to unpack");
      case LZMA_FORMAT_ERROR: throw Error(kStream, s.total_in, "not xz data");
      case LZMA_OPTIONS_ERROR: throw Error(kStream, s.total_in, "unsupported xz options");
      case LZMA_DATA_ERROR: throw Error(kStream, s.total_in, "corrupt data");
      default: throw Error(kStream, s.total_in, "liblzma error " + std::to_string(static_cast<int>(rc)));
    }
  }
}

PageBuffer unzstd(Bytes in) {
  constexpr char kStream[] = "zstd stream";
  ZSTD_DCtx* d = ZSTD_createDCtx();
  if (!d) throw Error(kStream, 0, "cannot initialise zstd");
  struct Guard {
    ZSTD_DCtx* d;
    ~Guard() { ZSTD_freeDCtx(d); }
  } guard{d};
  int window_log = 10;
  while ((uint64_t{1} << (window_log + 1)) <= kDecoderMemory) ++window_log;
  ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, window_log);
  Output out(in, kStream);
  ZSTD_inBuffer input{in.data(), in.size(), 0};
  size_t produced = 0, left = 1;  // left: 0 once a frame ends exactly here
  while (input.pos < input.size || left != 0) {
    std::span<uint8_t> room = out.room(produced, input.pos);
    ZSTD_outBuffer output{room.data(), room.size(), 0};
    const size_t before_in = input.pos;
    left = ZSTD_decompressStream(d, &output, &input);
    if (ZSTD_isError(left)) throw Error(kStream, input.pos, std::string("corrupt data: ") + ZSTD_getErrorName(left));
    produced += output.pos;
    // All input taken and the frame still open, with room to spare: it
    // stops short.
    if (left != 0 && input.pos == input.size && output.pos < output.size && input.pos == before_in)
      throw Error(kStream, input.pos, "truncated");
  }
  return out.finish(produced);
}

}  // namespace

FileBytes FileBytes::of(Bytes in) {
  FileBytes f;
  f.bytes = in;
  f.packing = packing_of(in);
  if (f.packing != Packing::None) {
    f.unpacked = unpack(in, f.packing);
    f.bytes = Bytes(f.unpacked.data(), f.unpacked.size());
  }
  return f;
}

FileBytes FileBytes::open(const std::string& path) {
  MappedFile file = MappedFile::open(path);
  FileBytes f;
  try {
    f = of(file.bytes());
  } catch (Error& e) {
    throw e.with_file(path);
  }
  if (f.packing == Packing::None) f.file = std::move(file);  // else dropped: read from memory now
  return f;
}

Packing packing_of(Bytes b) {
  auto starts = [&](std::string_view magic) {
    return b.size() >= magic.size() && std::memcmp(b.data(), magic.data(), magic.size()) == 0;
  };
  if (starts("\x1f\x8b")) return Packing::Gzip;
  if (starts(std::string_view("\xfd" "7zXZ\0", 6))) return Packing::Xz;
  if (starts("\x28\xb5\x2f\xfd")) return Packing::Zstd;
  return Packing::None;
}

std::string_view packing_name(Packing p) {
  switch (p) {
    case Packing::Gzip: return "gzip";
    case Packing::Xz: return "xz";
    case Packing::Zstd: return "zstd";
    case Packing::None: break;
  }
  return "";
}

PageBuffer unpack(Bytes in, Packing p) {
  switch (p) {
    case Packing::Gzip: return gunzip(in);
    case Packing::Xz: return unxz(in);
    case Packing::Zstd: return unzstd(in);
    case Packing::None: break;
  }
  PageBuffer copy(in.size());
  if (!in.empty()) std::memcpy(copy.data(), in.data(), in.size());
  return copy;
}

}  // namespace btfc::elf
