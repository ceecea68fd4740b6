// Appending one BTF table to another (see merge.h). One pass over the
// unit's words: copy each record, shift its ids, re-add its strings through
// a per-unit cache indexed by string offset.
#include "btf/merge.h"

#include <string>
#include <vector>

namespace btfc::btf {

TypeId append(Btf& out, const Btf& unit, std::span<const TypeId> base_ids) {
  TypeId first = out.end_id();
  TypeId unit_start = unit.start_id();
  TypeId unit_end = unit.end_id();
  if (!base_ids.empty() && base_ids.size() < unit_start)
    throw Error("BTF append: base id map has " + std::to_string(base_ids.size()) + " entries, need " +
                std::to_string(unit_start));
  if (uint64_t{first} + unit.type_count() - 1 > MAX_BUILD_TYPES)
    throw Error("BTF append: more than " + std::to_string(MAX_BUILD_TYPES) + " types");

  uint32_t str_start = unit.start_str_off();
  std::vector<uint32_t> str_cache(unit.strings().size(), UINT32_MAX);
  std::vector<uint32_t> rec;
  for (TypeId id = unit_start; id < unit_end; ++id) {
    const uint32_t* r = unit.record(id);
    rec.assign(r, r + unit.type(id).word_count());
    visit_type_id_words(rec.data(), [&](uint32_t& ref) {
      if (ref >= unit_start) {
        if (ref >= unit_end) throw Error("BTF append: type [" + std::to_string(id) + "] refers to " + std::to_string(ref) + ", past the last type");
        ref = ref - unit_start + first;
      } else if (!base_ids.empty()) {
        ref = base_ids[ref];
      }
    });
    visit_str_off_words(rec.data(), [&](uint32_t& off) {
      if (off < str_start) {
        // A base string (or ""): the same offset if out shares the base.
        if (off != 0 && !base_ids.empty()) off = out.add_string(unit.str(off));
        return;
      }
      uint32_t rel = off - str_start;
      if (rel >= str_cache.size()) throw Error("BTF append: string offset " + std::to_string(off) + " out of range");
      if (str_cache[rel] == UINT32_MAX) str_cache[rel] = out.add_string(unit.strings().at(rel));
      off = str_cache[rel];
    });
    out.add_record(rec);
  }
  return first;
}

}  // namespace btfc::btf
