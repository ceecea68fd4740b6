// btfc's dedup, every way it can run, against libbpf's btf__dedup (the
// system's libbpf, 1.1 on Debian 12), on raw bytes: for the random-graph
// test (tests/btf/dedup_graph_test.cc) and the fuzz target
// dedup_vs_libbpf, which is why it needs no GoogleTest.
#pragma once

#include <bpf/btf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/flat_bytes.h"
#include "base/parallel.h"
#include "btf/dedup.h"
#include "btf/reader.h"
#include "btf/writer.h"

namespace btfc::btf::testing {

struct LibbpfFree {
  void operator()(struct btf* b) const { btf__free(b); }
};
using LibbpfTable = std::unique_ptr<struct btf, LibbpfFree>;

// `t` as libbpf parses it, split on `lbase` if given: through a memfd,
// since Debian's libbpf.so lacks btf__new_split. Null if libbpf refuses.
inline LibbpfTable libbpf_table(const Btf& t, struct btf* lbase = nullptr) {
  const std::vector<uint8_t> raw = write_raw(t);
  if (!lbase) return LibbpfTable(btf__new(raw.data(), static_cast<uint32_t>(raw.size())));
  const int fd = memfd_create("split.btf", 0);
  if (fd < 0) return nullptr;
  struct btf* b = nullptr;
  if (write(fd, raw.data(), raw.size()) == static_cast<ssize_t>(raw.size()))
    b = btf__parse_raw_split(("/proc/self/fd/" + std::to_string(fd)).c_str(), lbase);
  close(fd);
  return LibbpfTable(b);
}

// A libbpf table's raw bytes (its own part, for split BTF).
inline std::vector<uint8_t> libbpf_raw(const struct btf* b) {
  uint32_t size = 0;
  const auto* p = static_cast<const uint8_t*>(btf__raw_data(b, &size));
  return std::vector<uint8_t>(p, p + size);
}

// libbpf's dedup as raw bytes (not read back: a result may break a rule
// the reader holds, such as a 4-byte enum forward inside a struct resolved
// to an 8-byte ENUM64); nullopt if libbpf refuses the table or the dedup.
inline std::optional<std::vector<uint8_t>> libbpf_dedup_bytes(const Btf& t, struct btf* lbase = nullptr) {
  LibbpfTable lb = libbpf_table(t, lbase);
  if (!lb || btf__dedup(lb.get(), nullptr) != 0) return std::nullopt;
  return libbpf_raw(lb.get());
}

// btfc's dedup of a copy of `t` as raw bytes; nullopt if it throws.
inline std::optional<std::vector<uint8_t>> dedup_bytes(const Btf& t, const DedupOptions& options) {
  try {
    Btf b = read_raw(write_raw(t), t.base());
    dedup(b, options);
    return write_raw(b);
  } catch (const Error&) {
    return std::nullopt;
  }
}

// The first way btfc's dedup of `split` (a table the reader accepted; on
// its base if it has one, else standalone) differs from libbpf's, at -j1
// and -j2: alone; on a prepared base shared by several tables; on one
// rebuilt from its saved image (the base cache's); on a single small
// table's own index of the base types it can meet; in `stages` (first
// ids of parts that each refer only to the base and to themselves).
// "" when every way gives libbpf's bytes, or both refuse the table.
inline std::string dedup_difference(const Btf& split, const std::vector<TypeId>& stages = {}) {
  const Btf* base = split.base();
  LibbpfTable lbase;
  if (base && !(lbase = libbpf_table(*base))) return "libbpf refuses the base";
  const std::optional<std::vector<uint8_t>> theirs = libbpf_dedup_bytes(split, lbase.get());
  std::optional<DedupBase> shared, restored;
  if (base) {
    shared.emplace(*base);
    const std::vector<uint8_t> image = shared->save();
    FlatReader saved(image);
    restored.emplace(*base, saved);
  }
  std::string difference;
  for (unsigned jobs : {1u, 2u}) {
    set_jobs(jobs);
    auto check = [&](const char* way, const DedupOptions& options) {
      if (difference.empty() && dedup_bytes(split, options) != theirs)
        difference = std::string(way) + ", -j" + std::to_string(jobs) + (theirs ? "" : " (libbpf refused it)");
    };
    const DedupOptions alone{DedupCompat::Libbpf_1_1};
    check("alone", alone);
    if (!base) continue;
    DedupOptions on_shared = alone;
    on_shared.prepared_base = &*shared;
    check("on a prepared base", on_shared);
    check("on a prepared base, again", on_shared);
    DedupOptions on_restored = alone;
    on_restored.prepared_base = &*restored;
    check("on a base rebuilt from its image", on_restored);
    DedupBase single(*base, DedupBase::IndexPerTable{});
    DedupOptions on_single = alone;
    on_single.prepared_base = &single;
    on_single.last_use = true;
    check("on a single table's index of its base", on_single);
    DedupOptions staged = alone;
    staged.stages = stages;
    check("in stages", staged);
  }
  set_jobs(0);
  return difference;
}

}  // namespace btfc::btf::testing
