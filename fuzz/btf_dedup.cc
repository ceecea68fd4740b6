// Fuzz target: bytes as raw BTF; whatever the reader accepts is
// deduplicated (both libbpf modes) and compared with the original. Bad
// input must end in btfc::Error, never a crash or hang; a table dedup
// accepts must come out valid (every id and string offset in range, as the
// reader checks) and must diff as equivalent to itself.
#include <cstddef>
#include <cstdint>

#include "base/error.h"
#include "btf/dedup.h"
#include "btf/diff.h"
#include "btf/reader.h"
#include "btf/writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace btfc::btf;
  try {
    Btf in = read_raw(btfc::Bytes(data, size));
    for (DedupCompat compat : {DedupCompat::Libbpf_1_1, DedupCompat::Libbpf_1_6}) {
      Btf out = read_raw(btfc::Bytes(data, size));
      try {
        dedup(out, DedupOptions{compat});
      } catch (const btfc::Error&) {
        continue;  // e.g. a kind dedup does not know
      }
      std::vector<uint8_t> raw = write_raw(out);
      Btf again;
      try {
        again = read_raw(raw);
      } catch (const btfc::Error&) {
        __builtin_trap();  // dedup broke a table the reader had accepted
      }
      if (!diff(again, again).equivalent) __builtin_trap();
      diff(in, out);
    }
  } catch (const btfc::Error&) {
  }
  return 0;
}
