// libbpf as the oracle of the dedup and diff tests: moving tables between
// btfc and libbpf (through raw bytes, so each side parses the other's
// output), running btf__dedup, and counting types per kind.
#pragma once

#include <bpf/btf.h>
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "btf/btf.h"
#include "btf/reader.h"
#include "btf/writer.h"
#include "support/dedup_ways.h"
#include "support/test_support.h"

namespace btfc::btf::testing {

using LibbpfBtf = LibbpfTable;

// Our table as libbpf parses it (split on `base` if given); a test failure
// if libbpf refuses it.
inline LibbpfBtf to_libbpf(const Btf& b, struct btf* base = nullptr) {
  LibbpfBtf lb = libbpf_table(b, base);
  EXPECT_NE(lb, nullptr) << "libbpf cannot parse our table";
  return lb;
}

// libbpf's table as our reader parses it.
inline Btf from_libbpf(const struct btf* lb, const Btf* base = nullptr) {
  std::vector<uint8_t> raw = libbpf_raw(lb);
  return read_raw(raw, base);
}

// What libbpf's btf__dedup makes of `b` (split on `base`/`lbase`).
inline Btf libbpf_dedup(const Btf& b, const Btf* base = nullptr, struct btf* lbase = nullptr) {
  LibbpfBtf lb = to_libbpf(b, lbase);
  if (!lb) return Btf();
  int err = btf__dedup(lb.get(), nullptr);
  EXPECT_EQ(err, 0) << "btf__dedup failed";
  return from_libbpf(lb.get(), base);
}

using KindCounts = std::array<uint32_t, KIND_MAX + 1>;

inline KindCounts kind_counts(const Btf& b) {
  KindCounts c{};
  for (TypeId id = b.start_id(); id < b.end_id(); ++id) ++c[static_cast<unsigned>(b.kind(id))];
  return c;
}

inline std::string format_counts(const KindCounts& c) {
  std::string s;
  for (unsigned k = 1; k <= KIND_MAX; ++k)
    if (c[k]) s += std::string(kind_name(static_cast<Kind>(k))) + " " + std::to_string(c[k]) + ", ";
  return s;
}

// A standalone copy of `in` holding the types `order` lists (old ids), in
// that order; references are renumbered. Types left out must not be
// referenced by those kept.
inline Btf reorder(const Btf& in, const std::vector<TypeId>& order) {
  std::vector<TypeId> pos(in.end_id(), 0);
  for (size_t k = 0; k < order.size(); ++k) pos[order[k]] = static_cast<TypeId>(k + 1);
  Btf out;
  for (TypeId old : order) {
    const uint32_t* r = in.record(old);
    std::vector<uint32_t> rec(r, r + in.type(old).word_count());
    visit_type_id_words(rec.data(), [&](uint32_t& id) { id = id ? pos[id] : 0; });
    visit_str_off_words(rec.data(), [&](uint32_t& off) { off = out.add_string(in.str(off)); });
    out.add_record(rec);
  }
  return out;
}

inline TypeId find_type(const Btf& b, Kind kind, std::string_view name) {
  for (TypeId id = b.start_id(); id < b.end_id(); ++id)
    if (b.kind(id) == kind && b.type(id).name() == name) return id;
  ADD_FAILURE() << "no " << kind_name(kind) << " " << name;
  return 0;
}

}  // namespace btfc::btf::testing
