// Fuzz target: bytes as raw BTF (the bytes of a .BTF section), read and
// validated, then dumped in bpftool's raw and C formats. Bad input must end in
// btfc::Error, never a crash, hang or unbounded allocation; when a blob is
// accepted, the dump and a rewrite must work on it, and the rewrite must
// read back (validation is what makes the unchecked accessors safe). The
// kernel-order replay must take it too, and a renumbering (to depth 1, so
// that nearly every table is renumbered) must leave a table that reads
// back and is the same graph.
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/error.h"
#include "btf/diff.h"
#include "btf/dump.h"
#include "btf/kernel_order.h"
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

    btfc::btf::KernelResolution r = btfc::btf::kernel_resolution(b);
    if (r.order.size() != b.type_count()) __builtin_trap();
    btfc::btf::Btf renumbered = btfc::btf::read_raw(btfc::Bytes(data, size));
    try {
      btfc::btf::order_for_kernel(renumbered, 1);
    } catch (const btfc::Error&) {  // no order within depth 1: renumbered all the same
    }
    btfc::btf::Btf back;
    try {
      back = btfc::btf::read_raw(btfc::btf::write_raw(renumbered));
    } catch (const btfc::Error&) {
      __builtin_trap();  // renumbering broke a table the reader had accepted
    }
    if (!btfc::btf::diff(b, back).equivalent) __builtin_trap();
  } catch (const btfc::Error&) {
  }
  return 0;
}
