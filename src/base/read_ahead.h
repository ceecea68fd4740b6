// Reading the parts of a file an encode will use into the page cache
// ahead of their use, on a thread of its own.
//
// btfc reads its input through a mapping (and pread for a module's units)
// a few pages at a time, in the order the DWARF asks for them. From the
// page cache that costs nothing; from the disk (a file not read since
// boot, or evicted since), each fault waits for one small read:
// amdgpu.ko took 1.35 s cold against 0.85 s warm, where `cat` reads the
// whole 355 MB file cold in 0.16 s, and pahole, which reads its sections
// whole, is as fast cold as warm. A ReadAhead has the kernel read the
// given ranges (readahead(2), in file order) on a thread beside the
// encode, whose own reads then find their pages there or on their way
// (amdgpu.ko cold: 0.8-1.0 s). A file whose ranges are in the cache
// already (a few probes say so, without waiting for the disk) starts no
// thread.
#pragma once

#include <cstdint>
#include <thread>
#include <vector>

namespace btfc {

class ReadAhead {
 public:
  struct Range {
    uint64_t offset = 0;
    uint64_t size = 0;
  };

  // Starts reading `ranges` of the file open as `fd` (which must stay open
  // until this is destroyed), clipped to the file, unless they total less
  // than kMinBytes, look cached, or the kernel cannot tell whether they
  // are. An error while reading ends the thread silently: the encode
  // reads the same bytes and reports it.
  ReadAhead(int fd, std::vector<Range> ranges);
  // Stops after the read in flight, and waits for it: whoever owns this
  // is done with the file.
  ~ReadAhead();
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  // Whether a thread was started (for tests).
  bool started() const { return thread_.joinable(); }

  // Below this the reads would take less than starting a thread.
  static constexpr uint64_t kMinBytes = uint64_t{1} << 20;

 private:
  std::jthread thread_;
};

}  // namespace btfc
