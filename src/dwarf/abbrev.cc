// Parsing of abbreviation tables and the per-form size table the fast
// attribute skipping relies on.
//
// A table is parsed declaration by declaration: each one's bytes are first
// scanned to find where it ends, then looked up in the AbbrevCache; only a
// declaration not seen before (with these form sizes) is parsed. A hit is
// exact: the parse of a declaration depends on its bytes and the form sizes
// only, and only declarations that parsed without error are kept, so a
// corrupt one is always parsed and reported.
#include "dwarf/abbrev.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "dwarf/constants.h"

namespace btfc::dwarf {

int form_fixed_size(uint32_t form, FormSizes s) {
  switch (form) {
    case DW_FORM_addr: return s.address_size;
    case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1: case DW_FORM_addrx1: return 1;
    case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2: return 2;
    case DW_FORM_strx3: case DW_FORM_addrx3: return 3;
    case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4: case DW_FORM_addrx4: case DW_FORM_ref_sup4: return 4;
    case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8: return 8;
    case DW_FORM_data16: return 16;
    case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset: case DW_FORM_strp_sup:
    case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt: return s.offset_size;
    case DW_FORM_ref_addr: return s.ref_addr_size;
    case DW_FORM_flag_present: case DW_FORM_implicit_const: return 0;
    case DW_FORM_string: case DW_FORM_block: case DW_FORM_block1: case DW_FORM_block2: case DW_FORM_block4:
    case DW_FORM_exprloc: case DW_FORM_sdata: case DW_FORM_udata: case DW_FORM_ref_udata: case DW_FORM_indirect:
    case DW_FORM_strx: case DW_FORM_addrx: case DW_FORM_loclistx: case DW_FORM_rnglistx:
    case DW_FORM_GNU_addr_index: case DW_FORM_GNU_str_index: return -1;
    default: return -2;
  }
}

bool is_type_attr(uint32_t name) {
  switch (name) {
    case DW_AT_name: case DW_AT_type: case DW_AT_byte_size: case DW_AT_bit_size: case DW_AT_data_bit_offset:
    case DW_AT_bit_offset: case DW_AT_data_member_location: case DW_AT_const_value: case DW_AT_upper_bound:
    case DW_AT_count: case DW_AT_encoding: case DW_AT_declaration: case DW_AT_external:
      return true;
    default:
      return false;
  }
}

namespace {

// The KeyOp for a type attribute `name` in `form` (and the number or flag
// it goes to). Each choice does what TypeAttrs::set does with the value
// read_value would give: constants are kUnsigned (data*) or kSigned
// (implicit_const), flags kFlag.
KeySpec key_op(uint32_t name, uint32_t form) {
  KeySpec k;
  int num = -1;  // the TypeAttrs number bit, for attributes that take constants
  switch (name) {
    case DW_AT_byte_size: num = 1; break;
    case DW_AT_bit_size: num = 2; break;
    case DW_AT_data_bit_offset: num = 3; break;
    case DW_AT_bit_offset: num = 4; break;
    case DW_AT_data_member_location: num = 5; break;
    case DW_AT_encoding: num = 6; break;
    case DW_AT_upper_bound: num = 7; break;
    case DW_AT_count: num = 8; break;
    default: break;
  }
  bool data = form == DW_FORM_data1 || form == DW_FORM_data2 || form == DW_FORM_data4 || form == DW_FORM_data8 ||
              form == DW_FORM_implicit_const;
  auto by_size = [&](uint8_t op1, uint8_t op2, uint8_t op4, uint8_t op8, uint8_t implicit) {
    switch (form) {
      case DW_FORM_data1: return op1;
      case DW_FORM_data2: return op2;
      case DW_FORM_data4: return op4;
      case DW_FORM_data8: return op8;
      default: return implicit;
    }
  };
  if (num >= 0 && data) {
    k.op = by_size(kKeyNum1, kKeyNum2, kKeyNum4, kKeyNum8, kKeyNumImplicit);
    k.field = static_cast<uint8_t>(num);
  } else if (name == DW_AT_const_value && data) {
    k.op = by_size(kKeyConst1, kKeyConst2, kKeyConst4, kKeyConst8, kKeyConstImplicit);
  } else if ((name == DW_AT_name || name == DW_AT_type) && data) {
    k.op = kKeyIgnore;
  } else if (name == DW_AT_type && form == DW_FORM_ref4) {
    k.op = kKeyTypeRef4;
  } else if (name == DW_AT_name && form == DW_FORM_strp) {
    k.op = kKeyNameStrp;
  } else if (name == DW_AT_name && form == DW_FORM_string) {
    k.op = kKeyNameString;
  } else if (name == DW_AT_declaration || name == DW_AT_external) {
    k.field = name == DW_AT_external;
    if (form == DW_FORM_flag_present) k.op = kKeyFlagTrue;
    else if (form == DW_FORM_flag) k.op = kKeyFlag;
    else if (data) k.op = kKeyFlagFalse;
  }
  return k;
}

// Forms read_value decodes without a check that can fail once the bytes
// are there.
bool cannot_fail(uint32_t form) {
  switch (form) {
    case DW_FORM_data1: case DW_FORM_data2: case DW_FORM_data4: case DW_FORM_data8: case DW_FORM_flag:
    case DW_FORM_flag_present: case DW_FORM_implicit_const: case DW_FORM_sec_offset: case DW_FORM_addr:
      return true;
    default:
      return false;
  }
}

}  // namespace

namespace {

// Nearly every code and tag fits one LEB128 byte: those are read inline,
// the rest (and every error) by Reader::uleb128.
inline uint64_t read_uleb(Reader& r) {
  if (!r.empty() && *r.data() < 0x80) {
    uint64_t v = *r.data();
    r.skip(1);
    return v;
  }
  return r.uleb128();
}

// Decodes the LEB128 value at p into v (bits past 64 dropped): the byte
// after it, or nullptr when it runs to `end` or past 10 bytes.
const uint8_t* scan_leb(const uint8_t* p, const uint8_t* end, uint64_t& v) {
  v = 0;
  for (unsigned shift = 0; p != end && shift < 70; shift += 7) {
    uint8_t b = *p++;
    v |= uint64_t{b & 0x7fu} << shift;
    if (!(b & 0x80)) return p;
  }
  return nullptr;
}

// The bytes of the declaration at `rest` after its code, from its tag to
// the end of its (0, 0) terminator, as parse_declaration reads them; empty
// when they do not scan (parse_declaration then says why). The cache needs
// no more: a key is always the exact bytes a successful parse consumed, so
// a scan that ended elsewhere would only miss.
Bytes scan_declaration(Bytes rest) {
  const uint8_t* p = rest.data();
  const uint8_t* end = p + rest.size();
  uint64_t tag, name, form, value;
  p = scan_leb(p, end, tag);
  if (!p || p == end) return {};
  p++;  // the children flag
  for (;;) {
    if (end - p >= 2 && (p[0] | p[1]) < 0x80) {
      name = p[0];
      form = p[1];
      p += 2;
    } else if (!(p = scan_leb(p, end, name)) || !(p = scan_leb(p, end, form))) {
      return {};
    }
    if (name == 0 && form == 0) return {rest.data(), p};
    if (form == DW_FORM_implicit_const && !(p = scan_leb(p, end, value))) return {};
  }
}

}  // namespace

AbbrevCache::AbbrevCache() {
  static std::atomic<uint64_t> caches{0};
  serial_ = ++caches;
}
AbbrevCache::~AbbrevCache() = default;

bool AbbrevCache::Key::operator==(const Key& o) const {
  return sizes == o.sizes && bytes.size() == o.bytes.size() &&
         std::memcmp(bytes.data(), o.bytes.data(), bytes.size()) == 0;
}

uint64_t AbbrevCache::hash_of(const Key& k) {
  // Keys are short (20 bytes on average in vmlinux): a multiply-mix over
  // 8-byte words, the last overlapping the one before it rather than read
  // byte by byte, then folded so that the low bits the index uses depend
  // on every byte.
  constexpr uint64_t kMul = 0x9e3779b97f4a7c15;
  const uint8_t* p = k.bytes.data();
  size_t n = k.bytes.size();
  uint64_t h = (n << 24 | uint64_t{k.sizes.address_size} << 16 | uint64_t{k.sizes.offset_size} << 8 |
                k.sizes.ref_addr_size) * kMul;
  auto mix = [&](uint64_t word) {
    h = (h ^ word) * kMul;
    h ^= h >> 29;
  };
  if (n >= 8) {
    for (size_t i = 0; i + 8 < n; i += 8) mix(load<uint64_t>(p + i, false));
    mix(load<uint64_t>(p + n - 8, false));
  } else {
    uint64_t word = 0;
    for (size_t i = 0; i < n; i++) word |= uint64_t{p[i]} << (8 * i);
    mix(word);
  }
  return h ^ h >> 32;
}

uint32_t AbbrevCache::find(const Key& key, uint64_t hash) const {
  if (slots_.empty()) return kAbsent;
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    uint32_t slot = slots_[i];
    if (slot == 0) return kAbsent;
    const Entry& e = entries_[slot - 1];
    if (e.hash == hash && e.key == key) return slot - 1;
  }
}

uint32_t AbbrevCache::insert(const Key& key, uint64_t hash, const Abbrev& a) {
  entries_.push_back({key, hash});
  store_.push_back(a);
  if (entries_.size() * 2 > slots_.size()) {
    slots_.assign(std::max<size_t>(64, slots_.size() * 2), 0);
    for (size_t j = 0; j + 1 < entries_.size(); j++) {
      size_t i = entries_[j].hash & (slots_.size() - 1);
      while (slots_[i]) i = (i + 1) & (slots_.size() - 1);
      slots_[i] = static_cast<uint32_t>(j + 1);
    }
  }
  const size_t mask = slots_.size() - 1;
  size_t i = hash & mask;
  while (slots_[i]) i = (i + 1) & mask;
  slots_[i] = static_cast<uint32_t>(entries_.size());
  return static_cast<uint32_t>(entries_.size() - 1);
}

void AbbrevCache::finish(std::span<AbbrevTable> tables) {
  entries_ = {};
  slots_ = {};
  specs_ = {};
  keys_ = {};
  str_keys_ = {};
  skips_ = {};
  indexes_ = {};
  codes_ = {};
  decls_ = {};
  store_.shrink_to_fit();  // where the declarations stay
  for (AbbrevTable& t : tables) {
    t.abbrevs_.resize(t.unlinked_.size());
    for (size_t i = 0; i < t.unlinked_.size(); i++) t.abbrevs_[i] = &store_[t.unlinked_[i]];
    t.dense_.resize(t.unlinked_dense_.size());
    for (size_t c = 0; c < t.unlinked_dense_.size(); c++)
      t.dense_[c] = t.unlinked_dense_[c] ? t.abbrevs_[t.unlinked_dense_[c] - 1] : nullptr;
    t.unlinked_ = {};
    t.unlinked_dense_ = {};
    t.declarations_ = store_;
    t.cache_serial_ = serial_;
  }
}

template <typename T>
const T* AbbrevCache::keep(const std::vector<T>& v) {
  if (v.empty()) return nullptr;
  T* out = static_cast<T*>(arena_.allocate(v.size() * sizeof(T), alignof(T)));
  std::uninitialized_copy(v.begin(), v.end(), out);
  return out;
}

Abbrev AbbrevCache::parse_declaration(Reader& r, uint64_t code, FormSizes sizes) {
  Abbrev a;
  uint64_t tag_at = r.offset();
  uint64_t tag = r.uleb128();
  if (tag == 0 || tag > 0xffff)
    r.fail_at(tag_at, "abbreviation " + std::to_string(code) + " has invalid tag " + hex(tag));
  a.tag = static_cast<uint32_t>(tag);
  uint8_t children = r.u8();
  if (children > 1) r.fail_at(r.offset() - 1, "abbreviation " + std::to_string(code) + " has bad children flag " + std::to_string(children));
  a.has_children = children == 1;
  specs_.clear();
  keys_.clear();
  skips_.clear();
  str_keys_.clear();
  bool all_fixed = true;
  bool keys_fixed = true;
  uint64_t fixed = 0, keys_end = 0;
  // The runs of fixed-size attributes each variable-size one ends (see
  // Abbrev::skip_steps), and whether every run and form can be a step.
  uint64_t run = 0;
  bool steps_ok = true;
  // The layout around one DW_FORM_string (see Abbrev::str_pos): its
  // offset, the fixed bytes after it, the keys so placed, and whether the
  // abbreviation still qualifies.
  bool has_str = false, str_ok = true;
  uint64_t str_pos = 0, after = 0;
  for (;;) {
    uint64_t name_at = r.offset();
    uint64_t name = r.uleb128();
    uint64_t form_at = r.offset();
    uint64_t form = r.uleb128();
    if (name == 0 && form == 0) break;
    if (name == 0 || name > 0xffff) r.fail_at(name_at, "abbreviation " + std::to_string(code) + " has invalid attribute " + std::to_string(name));
    AttrSpec s;
    s.name = static_cast<uint16_t>(name);
    s.form = form > 0xffff ? 0xffff : static_cast<uint16_t>(form);  // 0xffff: no such form
    int size = form_fixed_size(s.form, sizes);
    if (size == -2) r.fail_at(form_at, "unknown form " + hex(form) + " in abbreviation " + std::to_string(code));
    if (form == DW_FORM_implicit_const) s.implicit_const = r.sleb128();
    s.size = size;
    switch (form) {
      case DW_FORM_ref_addr: case DW_FORM_ref_sig8: case DW_FORM_ref_sup4: case DW_FORM_ref_sup8:
      case DW_FORM_GNU_ref_alt: case DW_FORM_indirect: refers_outside_unit_ = true; break;
      default: break;
    }
    if (name == DW_AT_sibling) {
      if (!a.has_sibling) a.sibling_form = s.form;
      a.has_sibling = true;
      if (all_fixed) a.sibling_pos = static_cast<int32_t>(fixed);
    }
    uint64_t index = specs_.size();
    if (is_type_attr(s.name)) {
      const KeySpec op = key_op(s.name, s.form);
      // DW_FORM_indirect names its form in the DIE: no fast path.
      if (all_fixed && s.form != DW_FORM_indirect && fixed <= 0xffff && index <= 0xffff) {
        KeySpec k = op;
        if (k.op == kKeyNameString) k.op = kKeyRead;  // its length is found with str_pos only
        k.spec = static_cast<uint16_t>(index);
        k.offset = static_cast<uint16_t>(fixed);
        keys_.push_back(k);
        keys_end = fixed + static_cast<uint64_t>(std::max(size, 0));
      } else {
        keys_fixed = false;
      }
      uint64_t at = has_str ? after : fixed;
      if (index > 0xffff || at > 0xffff) str_ok = false;
      if (str_ok && (size >= 0 || s.form == DW_FORM_string)) {
        KeySpec k = op;
        k.spec = static_cast<uint16_t>(index);
        k.offset = static_cast<uint16_t>(at);
        k.after_str = has_str;
        str_keys_.push_back(k);
      }
    } else if (size >= 0 && !cannot_fail(s.form)) {
      str_ok = false;
    }
    if (size < 0) {
      if (all_fixed && s.form == DW_FORM_string) {
        has_str = true;
        str_pos = fixed;
      } else {
        str_ok = false;
      }
      all_fixed = false;
      steps_ok &= s.form != DW_FORM_indirect && run <= 0xffff;
      skips_.push_back({static_cast<uint16_t>(run), s.form});
      run = 0;
    } else {
      fixed += static_cast<uint64_t>(size);
      run += static_cast<uint64_t>(size);
      if (has_str) after += static_cast<uint64_t>(size);
    }
    specs_.push_back(s);
  }
  a.num_attrs = static_cast<uint32_t>(specs_.size());
  a.all_fixed = all_fixed;
  if (!all_fixed) {
    // The last run, after the last variable-size attribute. With
    // DW_FORM_indirect or a run too long for a step: no steps, the cursor
    // goes attribute by attribute.
    steps_ok &= run <= 0xffff;
    skips_.push_back({static_cast<uint16_t>(run), 0});
    if (!steps_ok) skips_.clear();
  }
  a.num_skip = static_cast<uint32_t>(skips_.size());
  if (keys_end > 0xffff) keys_fixed = false;
  if (!keys_fixed) keys_.clear();
  if (!keys_fixed && has_str && str_ok && str_pos < Abbrev::kNoStr && after <= 0xffff) {
    keys_fixed = true;
    keys_ = str_keys_;
    a.str_pos = static_cast<uint16_t>(str_pos);
    keys_end = after;
  }
  a.keys_fixed = keys_fixed;
  a.num_keys = static_cast<uint16_t>(keys_.size());
  a.keys_end = static_cast<uint16_t>(keys_end);
  a.fixed_size = all_fixed ? static_cast<uint32_t>(fixed) : 0;
  a.attrs = keep(specs_);
  a.keys = keep(keys_);
  a.skip = keep(skips_);
  return a;
}

AbbrevTable AbbrevTable::parse(Reader r, FormSizes sizes, AbbrevCache& cache) {
  AbbrevTable t;
  t.offset_ = r.offset();
  t.sizes_ = sizes;
  std::vector<uint32_t>& indexes = cache.indexes_;
  std::vector<uint64_t>& codes = cache.codes_;
  std::vector<uint64_t>& decls = cache.decls_;
  indexes.clear();
  codes.clear();
  decls.clear();
  uint64_t max_code = 0;
  while (!r.empty()) {
    uint64_t decl = r.offset();
    uint64_t code = read_uleb(r);
    if (code == 0) break;
    codes.push_back(code);
    decls.push_back(decl);
    if (code > max_code) max_code = code;
    AbbrevCache::Key key{scan_declaration({r.data(), r.remaining()}), sizes};
    uint64_t hash = 0;
    if (!key.bytes.empty()) {
      hash = AbbrevCache::hash_of(key);
      if (uint32_t seen = cache.find(key, hash); seen != AbbrevCache::kAbsent) {
        indexes.push_back(seen);
        r.skip(key.bytes.size());
        continue;
      }
    }
    const uint8_t* start = r.data();
    Abbrev a = cache.parse_declaration(r, code, sizes);
    // The key is what the parse read: the scan's bytes, unless it failed.
    AbbrevCache::Key read{{start, r.data()}, sizes};
    indexes.push_back(cache.insert(read, read.bytes.size() == key.bytes.size() ? hash : AbbrevCache::hash_of(read), a));
  }
  // Exact size: vmlinux has a table per unit, all alive for the whole run.
  t.unlinked_.assign(indexes.begin(), indexes.end());

  // Dense when codes fit a vector a few times the table's size (always, in
  // practice); otherwise only the codes that do go to the vector. Linked
  // into pointers rather than indexes: the cursor looks up every DIE's
  // code, and this saves it a dependent load.
  size_t n = indexes.size();
  size_t dense_limit = std::min<uint64_t>(max_code, 4 * n + 64) + 1;
  t.unlinked_dense_.assign(dense_limit, 0);
  for (size_t i = 0; i < n; i++) {
    uint64_t code = codes[i];
    bool dup;
    if (code < dense_limit) {
      dup = t.unlinked_dense_[code] != 0;
      t.unlinked_dense_[code] = static_cast<uint32_t>(i + 1);
    } else {
      dup = !t.sparse_.emplace(code, static_cast<uint32_t>(i)).second;
    }
    if (dup) r.fail_at(decls[i], "duplicate abbreviation code " + std::to_string(code));
  }
  return t;
}

}  // namespace btfc::dwarf
