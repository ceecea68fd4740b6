// Fuzz target: bytes as split BTF (a module's .BTF) on a small base, read
// the way `btfc dump/diff/layout --base` and module encoding read it. The
// first byte picks the path:
//  - even: the rest is split BTF on the base; whatever the reader accepts
//    is dumped (raw and C), written and read back, compared with itself,
//    laid out, deduplicated, and distilled (pahole's distilled_base) and
//    relocated back onto the base;
//  - 1 mod 4: the rest is a distilled base (.BTF.base: its length in the
//    next two bytes) then split BTF on it, relocated onto the base as the
//    kernel (and `btfc diff` of such a module) does;
//  - 3 mod 4: the rest is the base (a vmlinux BTF that is not the one the
//    module was built for, or a damaged one), and a module's own types
//    (the small base's types, as split BTF on it) are
//    deduplicated on it as `btfc encode --btf_base` does, with the base's
//    index built once (DedupBase), built by the dedup of the base types
//    the module's names can meet (DedupBase::IndexPerTable), and without:
//    the three must give the same bytes.
// Bad input must end in btfc::Error, never a crash, a hang or unbounded
// memory; a table the reader accepts must come out of every step valid.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"
#include "btf/dedup.h"
#include "btf/diff.h"
#include "btf/distill.h"
#include "btf/dump.h"
#include "btf/reader.h"
#include "btf/writer.h"
#include "layout/layout.h"
#include "small_base.h"

using namespace btfc;
using namespace btfc::btf;

namespace {

template <typename F>
void may_fail(F&& f) {
  try {
    f();
  } catch (const Error&) {
  }
}

void use_split(const Btf& split, const Btf& base) {
  std::string out;
  dump_raw(split, out);
  may_fail([&] { dump_c(split, out); });  // e.g. an anonymous struct pointing to itself
  std::vector<uint8_t> raw = write_raw(split);
  Btf again = read_raw(raw, &base);  // what was accepted writes out valid
  if (!diff(split, again).equivalent) __builtin_trap();
  may_fail([&] { layout::layout_btf(split, layout::LayoutOptions{}); });
  may_fail([&] {
    Btf d = read_raw(raw, &base);
    dedup(d);
    read_raw(write_raw(d), &base);
  });
  may_fail([&] {
    DistilledBtf d = distill_base(split);
    relocate(d.split, base);
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const Btf& base = fuzz::small_base();
  try {
    if ((data[0] & 1) == 0) {
      Btf split = read_raw(Bytes(data + 1, size - 1), &base);
      use_split(split, base);
    } else if ((data[0] & 3) == 3) {
      Btf hostile = read_raw(Bytes(data + 1, size - 1));
      std::vector<uint8_t> first;  // the first variant's bytes, if it got that far
      for (int variant = 0; variant < 3; ++variant) {
        Btf module(&hostile);
        fuzz::add_small_types(module);  // all equal to the small base's
        std::optional<DedupBase> index;
        if (variant == 1) index.emplace(hostile);
        if (variant == 2) index.emplace(hostile, DedupBase::IndexPerTable{});
        DedupOptions options;
        if (index) options.prepared_base = &*index;
        std::vector<uint8_t> bytes;
        may_fail([&] {
          dedup(module, options);
          bytes = write_raw(module);
          read_raw(bytes, &hostile);
        });
        if (variant == 0) first = bytes;
        else if (!first.empty() && !bytes.empty() && bytes != first) __builtin_trap();
      }
    } else {
      if (size < 3) return 0;
      size_t n = std::min<size_t>(data[1] | size_t{data[2]} << 8, size - 3);
      Btf distilled = read_raw(Bytes(data + 3, n), nullptr, ".BTF.base");
      Btf split = read_raw(Bytes(data + 3 + n, size - 3 - n), &distilled);
      Btf relocated = relocate(split, base);
      std::string out;
      dump_raw(relocated, out);
    }
  } catch (const Error&) {
  }
  return 0;
}
