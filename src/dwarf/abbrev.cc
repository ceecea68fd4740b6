// Parsing of abbreviation tables and the per-form size table the fast
// attribute skipping relies on.
#include "dwarf/abbrev.h"

#include <algorithm>

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

AbbrevTable AbbrevTable::parse(Reader r, FormSizes sizes) {
  AbbrevTable t;
  t.offset_ = r.offset();
  t.sizes_ = sizes;
  uint64_t max_code = 0;
  // Attribute specs go to one vector; Abbrev::attrs is set once it stops growing.
  std::vector<uint32_t> first_spec, first_key, first_skip;
  std::vector<uint64_t> codes, decls;  // of each abbreviation, for the duplicate check
  std::vector<KeySpec> str_keys;       // of one abbreviation, placed around its DW_FORM_string
  while (!r.empty()) {
    uint64_t decl = r.offset();
    uint64_t code = r.uleb128();
    if (code == 0) break;
    Abbrev a;
    codes.push_back(code);
    decls.push_back(decl);
    uint64_t tag_at = r.offset();
    uint64_t tag = r.uleb128();
    if (tag == 0 || tag > 0xffff)
      r.fail_at(tag_at, "abbreviation " + std::to_string(code) + " has invalid tag " + hex(tag));
    a.tag = static_cast<uint32_t>(tag);
    uint8_t children = r.u8();
    if (children > 1) r.fail_at(r.offset() - 1, "abbreviation " + std::to_string(code) + " has bad children flag " + std::to_string(children));
    a.has_children = children == 1;
    first_spec.push_back(static_cast<uint32_t>(t.specs_.size()));
    first_key.push_back(static_cast<uint32_t>(t.keys_.size()));
    bool all_fixed = true;
    bool keys_fixed = true;
    uint64_t fixed = 0, keys_end = 0;
    // The layout around one DW_FORM_string (see Abbrev::str_pos): its
    // offset, the fixed bytes after it, the keys so placed, and whether the
    // abbreviation still qualifies.
    bool has_str = false, str_ok = true;
    uint64_t str_pos = 0, after = 0;
    str_keys.clear();
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
      if (name == DW_AT_sibling) {
        if (!a.has_sibling) a.sibling_form = s.form;
        a.has_sibling = true;
        if (all_fixed) a.sibling_pos = static_cast<int32_t>(fixed);
      }
      uint64_t index = t.specs_.size() - first_spec.back();
      if (is_type_attr(s.name)) {
        const KeySpec op = key_op(s.name, s.form);
        // DW_FORM_indirect names its form in the DIE: no fast path.
        if (all_fixed && s.form != DW_FORM_indirect && fixed <= 0xffff && index <= 0xffff) {
          KeySpec k = op;
          if (k.op == kKeyNameString) k.op = kKeyRead;  // its length is found with str_pos only
          k.spec = static_cast<uint16_t>(index);
          k.offset = static_cast<uint16_t>(fixed);
          t.keys_.push_back(k);
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
          str_keys.push_back(k);
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
      } else {
        fixed += static_cast<uint64_t>(size);
        if (has_str) after += static_cast<uint64_t>(size);
      }
      t.specs_.push_back(s);
    }
    a.num_attrs = static_cast<uint32_t>(t.specs_.size() - first_spec.back());
    first_skip.push_back(static_cast<uint32_t>(t.skips_.size()));
    if (!all_fixed) {
      // Runs of fixed-size attributes, each followed by a variable-size one.
      bool ok = true;
      uint64_t run = 0;
      for (const AttrSpec* s = t.specs_.data() + first_spec.back(); s != t.specs_.data() + t.specs_.size(); s++) {
        if (s->size >= 0) {
          run += static_cast<uint64_t>(s->size);
          continue;
        }
        ok &= s->form != DW_FORM_indirect && run <= 0xffff;
        t.skips_.push_back({static_cast<uint16_t>(run), s->form});
        run = 0;
      }
      ok &= run <= 0xffff;
      t.skips_.push_back({static_cast<uint16_t>(run), 0});
      if (!ok) t.skips_.resize(first_skip.back());
    }
    a.num_skip = static_cast<uint32_t>(t.skips_.size() - first_skip.back());
    a.all_fixed = all_fixed;
    if (keys_end > 0xffff) keys_fixed = false;
    if (!keys_fixed) t.keys_.resize(first_key.back());
    if (!keys_fixed && has_str && str_ok && str_pos < Abbrev::kNoStr && after <= 0xffff) {
      keys_fixed = true;
      t.keys_.insert(t.keys_.end(), str_keys.begin(), str_keys.end());
      a.str_pos = static_cast<uint16_t>(str_pos);
      keys_end = after;
    }
    a.keys_fixed = keys_fixed;
    a.num_keys = static_cast<uint16_t>(t.keys_.size() - first_key.back());
    a.keys_end = static_cast<uint16_t>(keys_end);
    a.fixed_size = all_fixed ? static_cast<uint32_t>(fixed) : 0;
    if (code > max_code) max_code = code;
    t.abbrevs_.push_back(a);
  }
  // Exact sizes: vmlinux has a table per unit, all alive for the whole run.
  t.specs_.shrink_to_fit();
  t.abbrevs_.shrink_to_fit();
  t.keys_.shrink_to_fit();
  t.skips_.shrink_to_fit();
  for (size_t i = 0; i < t.abbrevs_.size(); i++) {
    t.abbrevs_[i].attrs = t.specs_.data() + first_spec[i];
    t.abbrevs_[i].keys = t.keys_.data() + first_key[i];
    t.abbrevs_[i].skip = t.skips_.data() + first_skip[i];
  }

  // Dense when codes fit a vector a few times the table's size (always, in
  // practice); otherwise only the codes that do go to the vector.
  size_t n = t.abbrevs_.size();
  size_t dense_limit = std::min<uint64_t>(max_code, 4 * n + 64) + 1;
  // Pointers rather than indexes: the cursor looks up every DIE's code, and
  // this saves it a dependent load. They stay valid when the table moves.
  t.dense_.assign(dense_limit, nullptr);
  for (size_t i = 0; i < n; i++) {
    uint64_t code = codes[i];
    bool dup;
    if (code < dense_limit) {
      dup = t.dense_[code] != nullptr;
      t.dense_[code] = &t.abbrevs_[i];
    } else {
      dup = !t.sparse_.emplace(code, static_cast<uint32_t>(i)).second;
    }
    if (dup) r.fail_at(decls[i], "duplicate abbreviation code " + std::to_string(code));
  }
  return t;
}

}  // namespace btfc::dwarf
