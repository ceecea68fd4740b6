#include "base/read_ahead.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace btfc {

namespace {

// Is the page at `at` in the page cache? A one-byte read that may not
// wait (RWF_NOWAIT) answers without waiting for the disk: EAGAIN when the
// page is not there (the kernel then starts reading around it, which a
// cold file wants anyway). Any other failure (a kernel or file system
// that does not know the flag) counts as cached: then nothing is read, as
// before this class existed. Not mincore(): it answers only to the
// file's owner or a writer, and a user encoding root's vmlinux is
// neither.
bool cached(int fd, uint64_t at) {
  char byte;
  iovec v{&byte, 1};
  ssize_t n;
  do n = preadv2(fd, &v, 1, static_cast<off_t>(at), RWF_NOWAIT);
  while (n < 0 && errno == EINTR);
  return !(n < 0 && errno == EAGAIN);
}

// Are the ranges in the page cache, by 16 pages spread over them?
bool looks_cached(int fd, const std::vector<ReadAhead::Range>& ranges, uint64_t total) {
  constexpr int kProbes = 16;
  for (int i = 0; i < kProbes; i++) {
    uint64_t at = total * static_cast<uint64_t>(i) / kProbes;
    for (const ReadAhead::Range& r : ranges) {
      if (at < r.size) {
        at += r.offset;
        break;
      }
      at -= r.size;
    }
    if (!cached(fd, at)) return false;
  }
  return true;
}

}  // namespace

ReadAhead::ReadAhead(int fd, std::vector<Range> ranges) {
  // Within the file: a section header may name any offset and size.
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) return;
  const uint64_t file_size = static_cast<uint64_t>(st.st_size);
  for (Range& r : ranges) r.size = std::min(r.size, file_size - std::min(r.offset, file_size));
  std::erase_if(ranges, [](const Range& r) { return r.size == 0; });
  uint64_t total = 0;
  for (const Range& r : ranges) total += r.size;
  if (total < kMinBytes || looks_cached(fd, ranges, total)) return;
  // In the order of the file, each range whole: one sequential stream
  // stays far ahead of the encode (amdgpu.ko: 330 MB in about 0.15 s),
  // where slices of every range in step were slower (1.05 s against 0.8).
  // readahead(2) a piece at a time: the kernel reads what is not cached
  // and copies nothing, where preads copied every byte, cached or not
  // (a module tree bigger than the page cache: about a second of CPU),
  // and skipping the pieces a probe found cached broke the kernel's own
  // read-ahead stream (amdgpu.ko cold back to 1.35 s).
  std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) { return a.offset < b.offset; });
  thread_ = std::jthread([fd, ranges = std::move(ranges)](std::stop_token stop) {
    constexpr uint64_t kPiece = uint64_t{512} << 10;
    for (const Range& r : ranges)
      for (uint64_t at = r.offset, end = r.offset + r.size; at < end; at += kPiece) {
        if (stop.stop_requested()) return;
        if (readahead(fd, static_cast<off64_t>(at), std::min(kPiece, end - at)) != 0) return;
      }
  });
}

ReadAhead::~ReadAhead() = default;  // std::jthread requests stop and joins

}  // namespace btfc
