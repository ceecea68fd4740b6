// Appending one BTF table to another (see merge.h). One pass over the
// unit's words: copy each record, shift its ids, re-add its strings through
// a per-unit cache indexed by string offset.
#include "btf/merge.h"

#include <algorithm>
#include <string>
#include <vector>

#include "base/parallel.h"

namespace btfc::btf {

SharedNames::Slot& SharedNames::probe(uint32_t key) {
  const size_t mask = slots_.size() - 1;
  size_t i = (key * 0x9e3779b1u) & mask;
  while (slots_[i].key && slots_[i].key != key) i = (i + 1) & mask;
  return slots_[i];
}

SharedNames::Slot& SharedNames::slot(uint32_t at) {
  if ((count_ + 1) * 2 > slots_.size()) {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& s : old)
      if (s.key) probe(s.key) = s;
  }
  const uint32_t key = at + 1;
  Slot& s = probe(key);
  if (!s.key) {
    ++count_;
    s = {key, 0, 0};
  }
  return s;
}

void SharedNames::named(uint32_t out_off) {
  if (out_off / 64 >= named_.size()) named_.resize(std::max<size_t>(out_off / 64 + 1, named_.size() * 2));
  uint64_t& word = named_[out_off / 64];
  const uint64_t bit = uint64_t{1} << (out_off % 64);
  if (word & bit) held_ = false;  // a second source in this table
  word |= bit;
  touched_.push_back(out_off);
}

void SharedNames::next_table() {
  for (uint32_t o : touched_) named_[o / 64] = 0;
  touched_.clear();
  ++table_;
}

TypeId append(Btf& out, const Btf& unit, std::span<const TypeId> base_ids, SharedNames* shared) {
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
      if (shared && unit.is_shared_str_off(off)) {
        SharedNames::Slot& s = shared->slot(off - Btf::SHARED_STR_BASE);
        if (s.out_off == 0) {
          const std::string_view text = unit.str(off);
          shared->held_ &= !text.empty();
          s.out_off = out.add_string(text);
        }
        if (s.table != shared->table_) {
          s.table = shared->table_;
          shared->named(s.out_off);
        }
        off = s.out_off;
        return;
      }
      if (off < str_start) {
        // A base string (or ""): the same offset if out shares the base.
        if (off != 0 && !base_ids.empty()) off = out.add_string(unit.str(off));
        return;
      }
      uint32_t rel = off - str_start;
      if (rel >= str_cache.size()) throw Error("BTF append: string offset " + std::to_string(off) + " out of range");
      if (str_cache[rel] == UINT32_MAX) {
        str_cache[rel] = out.add_string(unit.strings().at(rel));
        if (shared && str_cache[rel] != 0) shared->named(str_cache[rel]);
      }
      off = str_cache[rel];
    });
    out.add_record(rec);
  }
  if (shared) shared->next_table();
  return first;
}

namespace {

// Where merge_units moves one unit table's ids and own string offsets.
struct Shift {
  uint32_t id_limit;   // an id in [1, id_limit] is the table's own...
  uint32_t id_add;     // ...and gets this added (0 stays void)
  uint32_t str_limit;  // an own string offset in [1, str_limit]...
  uint32_t str_add;    // ...gets this added (0 stays "", shared ones stay)
  uint32_t shared_size;
};

// Shifts the ids and string offsets of one record in place, in one pass
// (visit_record_words; going through the two visitors with their checks,
// one call per word, was most of merging); false if a word is out of
// range, which the caller then reports through the visitors.
// kListOwn: `own_words` gets the index in out.words() of each word that
// names an own string (`tail` is out's RawTail).
template <bool kListOwn>
[[gnu::always_inline]] inline bool shift_record(uint32_t* rec, const Shift& s, const Btf::RawTail& tail,
                                                std::vector<uint32_t>* own_words) {
  bool ok = true;
  visit_record_words(
      rec,
      [&](uint32_t& r) {
        if (r - 1 < s.id_limit) r += s.id_add;
        else ok &= r == 0;
      },
      [&](uint32_t& o) __attribute__((always_inline)) {
        if (o - 1 < s.str_limit) {
          o += s.str_add;
          if constexpr (kListOwn) own_words->push_back(tail.first_word + static_cast<uint32_t>(&o - tail.words.data()));
        } else {
          ok &= o == 0 || o - Btf::SHARED_STR_BASE < s.shared_size;
        }
      });
  return ok;
}

}  // namespace

std::vector<TypeId> merge_units(Btf& out, std::span<const Btf* const> units, std::vector<uint32_t>* own_name_words) {
  // Where each table lands: prefix sums of types, words and own strings.
  size_t n = units.size();
  std::vector<TypeId> first(n);
  std::vector<size_t> word_at(n), type_at(n), str_at(n);
  size_t types = 0, words = 0, str_bytes = 0;
  std::span<const char> shared;
  for (size_t i = 0; i < n; i++) {
    const Btf& u = *units[i];
    if (u.base() || u.start_id() != 1) throw Error("BTF merge: unit table " + std::to_string(i) + " is split BTF");
    if (!u.shared_strings().empty()) {
      if (!shared.empty() && shared.data() != u.shared_strings().data())
        throw Error("BTF merge: unit tables share different string regions");
      shared = u.shared_strings();
    }
    type_at[i] = types;
    word_at[i] = words;
    str_at[i] = str_bytes;
    types += u.type_count();
    words += u.words().size();
    str_bytes += u.strings().size();
  }
  // Shared names keep their offsets: `out` shares the region too (no copy
  // of a 75 MB .debug_str), until dedup rewrites every string.
  if (!shared.empty()) {
    if (!out.shared_strings().empty() && out.shared_strings().data() != shared.data())
      throw Error("BTF merge: the output shares another string region");
    out.share_strings(shared);
  }
  // Unit string bytes, copied back to back; a unit's offset o lands at
  // own_off + str_at[i] + o.
  out.reserve_string_bytes(str_bytes);
  uint32_t own_off = out.end_str_off();
  for (const Btf* u : units) out.append_strings_raw(u->strings().bytes());

  TypeId out_first = out.end_id();
  Btf::RawTail tail = out.extend_raw(types, words);
  // Per table: its words naming own strings, as indices into out.words().
  std::vector<std::vector<uint32_t>> own_words(own_name_words ? n : 0);
  parallel_for(n, [&](size_t i) {
    const Btf& u = *units[i];
    TypeId base_id = out_first + static_cast<TypeId>(type_at[i]);
    TypeId end = u.end_id();
    uint32_t str_base = own_off + static_cast<uint32_t>(str_at[i]);
    uint32_t own_size = u.strings().size();
    std::span<const uint32_t> src = u.words();
    uint32_t* dst = tail.words.data() + word_at[i];
    std::copy(src.begin(), src.end(), dst);
    std::span<const uint32_t> offs = u.offsets();
    uint32_t word_base = tail.first_word + static_cast<uint32_t>(word_at[i]);
    const Shift shift{end - 1, base_id - 1, own_size ? own_size - 1 : 0, str_base,
                      static_cast<uint32_t>(u.shared_strings().size())};
    uint32_t* out_offs = tail.offsets.data() + type_at[i];
    std::vector<uint32_t>* own = own_name_words ? &own_words[i] : nullptr;
    for (size_t k = 0; k < offs.size(); k++) {
      out_offs[k] = word_base + offs[k];
      if (own ? shift_record<true>(dst + offs[k], shift, tail, own) : shift_record<false>(dst + offs[k], shift, tail, own))
          [[likely]]
        continue;
      // A word out of range: the record again from the source, through
      // the visitors, which say which word.
      const size_t rec_end = k + 1 < offs.size() ? offs[k + 1] : src.size();
      std::copy(src.begin() + offs[k], src.begin() + static_cast<ptrdiff_t>(rec_end), dst + offs[k]);
      uint32_t* rec = dst + offs[k];
      visit_type_id_words(rec, [&](uint32_t& ref) {
        if (ref == 0) return;
        if (ref >= end)
          throw Error("BTF merge: type [" + std::to_string(k + 1) + "] of unit table " + std::to_string(i) +
                      " refers to " + std::to_string(ref) + ", past the last type");
        ref = ref - 1 + base_id;
      });
      visit_str_off_words(rec, [&](uint32_t& off) {
        if (off == 0) return;
        if (u.is_shared_str_off(off)) {
          return;
        } else if (off < own_size) {
          off = str_base + off;
        } else {
          throw Error("BTF merge: string offset " + std::to_string(off) + " of unit table " + std::to_string(i) +
                      " out of range");
        }
      });
    }
  });
  for (size_t i = 0; i < n; i++) first[i] = out_first + static_cast<TypeId>(type_at[i]);
  if (own_name_words) {
    size_t count = own_name_words->size();
    for (const std::vector<uint32_t>& v : own_words) count += v.size();
    own_name_words->reserve(count);
    for (const std::vector<uint32_t>& v : own_words) own_name_words->insert(own_name_words->end(), v.begin(), v.end());
  }
  return first;
}

}  // namespace btfc::btf
