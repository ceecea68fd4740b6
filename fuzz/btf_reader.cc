// Fuzz target: bytes as raw BTF (the bytes of a .BTF section), read and
// validated, then dumped in bpftool's raw and C formats. Bad input must end in
// btfc::Error, never a crash, hang or unbounded allocation; when a blob is
// accepted, the dump and a rewrite must work on it, and the rewrite must
// read back (validation is what makes the unchecked accessors safe).
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/error.h"
#include "btf/dump.h"
#include "btf/reader.h"
#include "btf/writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    btfc::btf::Btf b = btfc::btf::read_raw(btfc::Bytes(data, size));
    std::string out;
    btfc::btf::dump_raw(b, out);
    out.clear();
    try {
      btfc::btf::dump_c(b, out);
    } catch (const btfc::Error&) {  // e.g. an anonymous struct pointing to itself
    }
    std::vector<uint8_t> again = btfc::btf::write_raw(b, true);
    btfc::btf::read_raw(again);
  } catch (const btfc::Error&) {
  }
  return 0;
}
