// DwarfFile: finding the sections, reading unit headers (DWARF 2-5, 32- and
// 64-bit), sharing abbreviation tables, reading each root DIE for the bases
// that strx/addrx need, loading the dwz alternate file, and random access to
// DIEs by global offset.
//
// Unit headers are read sequentially (a few thousand jumps by unit length);
// abbreviation tables are parsed in parallel, in runs of neighbouring
// tables that share a cache of declarations (see AbbrevCache), and a
// corrupt table gives the same message whatever -j is.
#include "dwarf/dwarf_file.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>

#include "base/parallel.h"
#include "dwarf/debug_file.h"

namespace btfc::dwarf {

namespace {

const elf::Section* find_any(const elf::ElfFile& elf, std::initializer_list<std::string_view> names) {
  for (std::string_view n : names)
    if (const elf::Section* s = elf.find_section(n)) return s;
  return nullptr;
}

// Drops the pages of consecutive byte ranges (units read once for now) a
// few megabytes at a time: one madvise, and one TLB shootdown across the
// threads, per batch instead of per unit (vmlinux has 2,352), while
// resident memory still grows by a batch at most.
class ReleaseBatch {
 public:
  explicit ReleaseBatch(const elf::ElfFile& elf) : elf_(elf) {}
  ~ReleaseBatch() { flush(); }
  ReleaseBatch(const ReleaseBatch&) = delete;
  ReleaseBatch& operator=(const ReleaseBatch&) = delete;

  void add(Bytes range) {
    if (range.data() != end_) {
      flush();
      begin_ = range.data();
    }
    end_ = range.data() + range.size();
    if (static_cast<size_t>(end_ - begin_) >= kBatch) flush();
  }
  void flush() {
    if (begin_ != end_) elf_.release({begin_, end_});
    begin_ = end_ = nullptr;
  }

 private:
  static constexpr size_t kBatch = size_t{8} << 20;
  const elf::ElfFile& elf_;
  const uint8_t* begin_ = nullptr;
  const uint8_t* end_ = nullptr;
};

}  // namespace

DwarfFile::DwarfFile(const elf::ElfFile& elf) : DwarfFile(elf, Options()) {}

bool DwarfFile::present(const elf::ElfFile& elf) {
  return find_any(elf, {".debug_info", ".zdebug_info", ".debug_info.dwo", ".debug_types", ".zdebug_types",
                        ".debug_types.dwo"}) != nullptr;
}

// Why a file has no DWARF to read, as pahole puts it, and where its debug
// file was looked for (debug_file.h).
void DwarfFile::require(const elf::ElfFile& elf) {
  if (present(elf)) return;
  std::string message = "no DWARF type information (no .debug_info section)";
  const std::vector<std::string> places = debug_file_candidates(elf);
  for (size_t i = 0; i < places.size(); i++)
    message += (i == 0 ? ", and no debug file of its build at " : i + 1 == places.size() ? " or " : ", ") +
               places[i];
  throw Error(message);
}

DwarfFile::DwarfFile(const elf::ElfFile& elf, Options options) : path_(elf.path()), elf_(&elf) {
  try {
    if (options.relocate_by_unit) {
      const elf::Section* info = nullptr;
      bool other = false;  // anything that rules it out
      for (const elf::Section& sec : elf.sections()) {
        if (sec.name == ".debug_info") {
          other |= info != nullptr;
          info = &sec;
        }
        other |= sec.name == ".debug_types" || sec.name.starts_with(".zdebug_info") ||
                 sec.name.starts_with(".zdebug_types") || sec.name == ".debug_info.dwo" ||
                 sec.name == ".gnu_debugaltlink" || sec.name == ".debug_sup";
      }
      if (info && !other && (parts_ = elf::PartRelocator::make(elf, *info))) parts_section_ = info;
    }
    read_sections(elf, main_);
    read_units(main_, false, units_);
    if (!units_.empty()) load_alt(elf, options);
    read_abbrevs(units_, main_);
    if (parts_ && has_cross_unit_forms()) {
      // Units read one another's DIEs: the section is relocated whole
      // after all (the abbreviation offsets were read relocated already).
      Reader whole(elf.section_data(*parts_section_), main_.info_name, main_.big_endian);
      main_.info[0] = whole.bytes();
      for (Unit& u : units_) u.reader = whole.sub(u.offset, u.end - u.offset);
      parts_.reset();
    }
    if (options.copy_by_unit && !parts_ && elf.type() != elf::ET_REL) {
      // Only bytes of the mapping are worth a copy (not a decompressed or
      // relocated one), and a relocatable file's units may need their
      // relocations' targets, which a copy does not carry.
      const Bytes mapped = elf.bytes();
      auto in_mapping = [&](Bytes b) {
        return b.empty() || (b.data() >= mapped.data() && b.data() + b.size() <= mapped.data() + mapped.size());
      };
      copy_units_ = std::all_of(main_.info.begin(), main_.info.end(), in_mapping) &&
                    std::all_of(main_.types.begin(), main_.types.end(), in_mapping);
    }
    for (const Unit& u : units_)
      if (u.is_type_unit()) signatures_.emplace_back(u.type_signature, &u);
    std::sort(signatures_.begin(), signatures_.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const Unit& u : units_) by_offset_.push_back(&u);
    for (const Unit& u : alt_units_) by_offset_.push_back(&u);
    // Reading a header or a root DIE in place maps the pages around it
    // (the kernel's fault-around: a whole vmlinux for one page per unit);
    // they are dropped again so that resident memory grows with the units
    // being converted only. Where units are relocated or copied, roots are
    // read from a window of their own instead, and no page is mapped.
    // Roots are read in parallel, in runs of neighbouring
    // units; a bad root reports the same whatever -j is (parallel_for
    // rethrows the lowest run's error, and a run stops at its first).
    constexpr size_t kRootRun = 64;
    parallel_for((units_.size() + kRootRun - 1) / kRootRun, [&](size_t run) {
      ReleaseBatch read(elf);
      elf::PartRelocator::Part part;
      for (size_t i = run * kRootRun; i < std::min(units_.size(), (run + 1) * kRootRun); i++) {
        if (parts_ || copy_units_) {
          read_root_windowed(units_[i], part);
          continue;
        }
        read_root(units_[i]);
        read.add(units_[i].reader.bytes());
      }
    });
    // Unrelocated bytes are read through UnitBytes only: a read elsewhere
    // fails rather than seeing them.
    if (parts_)
      for (Unit& u : units_) u.reader = Reader(Bytes(), main_.info_name, main_.big_endian, u.offset);
  } catch (Error& e) {
    throw e.with_file(path_);
  }
}

DwarfFile::~DwarfFile() = default;

Bytes DwarfFile::line_section() const {
  const elf::Section* s = main_.split ? nullptr : find_any(*elf_, {".debug_line", ".zdebug_line"});
  return s ? elf_->section_data(*s) : Bytes();
}

// Reads what kSectionNames lists: a section added here goes there too.
void DwarfFile::read_sections(const elf::ElfFile& elf, Sections& s) {
  s.file = elf.path();
  s.big_endian = elf.big_endian();
  bool dwo = !find_any(elf, {".debug_info", ".zdebug_info"}) && elf.find_section(".debug_info.dwo");
  s.split = dwo;
  auto names = [&](std::string_view name) {
    std::string z = ".z" + std::string(name.substr(1));
    std::string d = std::string(name) + ".dwo";
    return dwo ? std::vector<std::string>{d} : std::vector<std::string>{std::string(name), z};
  };
  auto get = [&](Bytes& out, std::string_view name) {
    for (const std::string& n : names(name))
      if (const elf::Section* sec = elf.find_section(n)) {
        out = elf.section_data(*sec);
        return;
      }
  };
  // Every section of that name, in section header order.
  auto get_all = [&](std::vector<Bytes>& out, std::string_view name) {
    std::vector<std::string> ns = names(name);
    for (const elf::Section& sec : elf.sections())
      if (std::find(ns.begin(), ns.end(), sec.name) != ns.end()) out.push_back(elf.section_data(sec));
  };
  if (&s == &main_ && parts_) s.info.push_back(elf.raw_data(*parts_section_));
  else get_all(s.info, ".debug_info");
  get_all(s.types, ".debug_types");
  get(s.abbrev, ".debug_abbrev");
  get(s.str, ".debug_str");
  get(s.line_str, ".debug_line_str");
  auto end_of_strings = [](Bytes b) -> size_t {
    for (size_t i = b.size(); i > 0; i--)
      if (b[i - 1] == 0) return i;
    return 0;
  };
  s.str_end = end_of_strings(s.str);
  s.line_str_end = end_of_strings(s.line_str);
  get(s.str_offsets, ".debug_str_offsets");
  get(s.addr, ".debug_addr");
}

void DwarfFile::read_units(Sections& s, bool is_alt, std::vector<Unit>& out) {
  s.info_base = global_size_;
  for (int types = 0; types < 2; types++)
  for (Bytes bytes : types ? s.types : s.info) {
    std::string_view name = types ? s.types_name : s.info_name;
    uint64_t base = global_size_;
    global_size_ += bytes.size();
    Reader whole(bytes, name, s.big_endian);
    // Headers are copied out, 4 KB at a time: read in place, every unit's
    // would map the pages around it, a page fault per unit on one thread
    // (vmlinux: 2,352 units, 14-26 ms), and a window serves the next
    // headers too when units are small (type units). The longest header
    // is 40 bytes.
    std::array<uint8_t, 4096> window;
    uint64_t window_at = 0, window_len = 0;
    elf::PartRelocator::Part header_part;
    for (uint64_t next = 0; next < bytes.size();) {
      const size_t got = std::min<uint64_t>(64, bytes.size() - next);
      if (next < window_at || next + got > window_at + window_len) {
        window_at = next;
        window_len = std::min<uint64_t>(window.size(), bytes.size() - next);
        elf_->copy_out(bytes.data() + next, {window.data(), window_len});
      }
      const uint8_t* head = window.data() + (next - window_at);
      Reader r(Bytes(head, got), name, s.big_endian, next);
      Unit u;
      u.sections = &s;
      u.in_types = types;
      u.is_alt = is_alt;
      u.global_base = base;
      u.section_size = bytes.size();
      u.offset = r.offset();
      uint64_t len = r.u32();
      u.offset_size = 4;
      if (len == 0xffffffff) {
        len = r.u64();
        u.offset_size = 8;
      } else if (len >= 0xfffffff0) {
        r.fail_at(u.offset, "reserved unit length " + hex(len));
      }
      const uint64_t left = bytes.size() - r.offset();
      if (len > left)
        r.fail_at(u.offset, "unit length " + hex(len) + " runs past the end of the section (" + hex(left) +
                                " bytes left)");
      Reader h(Bytes(head + r.pos(), std::min<uint64_t>(len, r.remaining())), name, s.big_endian, r.offset());
      u.end = r.offset() + len;
      next = u.end;
      u.reader = whole.sub(u.offset, u.end - u.offset);
      uint64_t version_at = h.offset();
      u.version = h.u16();
      if (u.version < 2 || u.version > 5 || (types && u.version > 4))
        h.fail_at(version_at, "unsupported DWARF version " + std::to_string(u.version));
      uint64_t abbrev_at;
      if (u.version >= 5) {
        u.unit_type = h.u8();
        u.address_size = h.u8();
        abbrev_at = h.offset();
        u.abbrev_offset = h.uint(u.offset_size);
        switch (u.unit_type) {
          case DW_UT_compile:
          case DW_UT_partial: break;
          case DW_UT_type:
          case DW_UT_split_type:
            u.type_signature = h.u64();
            u.type_offset = h.uint(u.offset_size);
            break;
          case DW_UT_skeleton:
          case DW_UT_split_compile: u.dwo_id = h.u64(); break;
          default: h.fail_at(version_at + 2, "unknown unit type " + hex(u.unit_type));
        }
      } else {
        abbrev_at = h.offset();
        u.abbrev_offset = h.uint(u.offset_size);
        u.address_size = h.u8();
        u.unit_type = types ? DW_UT_type : DW_UT_compile;
        if (types) {
          u.type_signature = h.u64();
          u.type_offset = h.uint(u.offset_size);
        }
      }
      if (&s == &main_ && parts_) {
        // Read unrelocated (the section's bytes as they are in the file):
        // the abbreviation offset is the one field of a header that a
        // relocation sets.
        u.abbrev_offset = relocated(abbrev_at, abbrev_at + u.offset_size, header_part).uint(u.offset_size);
      }
      if (u.address_size != 1 && u.address_size != 2 && u.address_size != 4 && u.address_size != 8)
        h.fail_at(u.version >= 5 ? version_at + 3 : abbrev_at + u.offset_size,
                  "unsupported address size " + std::to_string(u.address_size));
      if (u.abbrev_offset >= s.abbrev.size())
        h.fail_at(abbrev_at, "abbreviation offset " + hex(u.abbrev_offset) + " is past the end of " +
                                 std::string(s.abbrev_name) + " (size " + hex(s.abbrev.size()) + ")");
      u.die_offset = h.offset();
      if (u.is_type_unit() && (u.type_offset < u.die_offset - u.offset || u.type_offset >= u.end - u.offset))
        h.fail_at(u.die_offset - u.offset_size, "type offset " + hex(u.type_offset) + " is outside the unit");
      if (s.split && u.version >= 5) u.str_offsets_base = u.offset_size == 8 ? 16 : 8;
      out.push_back(u);
    }
  }
}

void DwarfFile::read_abbrevs(std::vector<Unit>& units, const Sections& s) {
  using Key = std::tuple<const Sections*, uint64_t, FormSizes>;
  std::vector<Key> keys;
  auto key_of = [&](const Unit& u) {
    FormSizes f{u.address_size, u.offset_size, u.version <= 2 ? u.address_size : u.offset_size};
    return Key{u.sections, u.abbrev_offset, f};
  };
  for (const Unit& u : units) {
    auto [it, fresh] = abbrev_tables_.try_emplace(key_of(u));
    if (fresh) keys.push_back(it->first);
  }
  std::sort(keys.begin(), keys.end());
  // In runs of neighbouring tables, each run through its own cache: a
  // declaration is parsed once per run (vmlinux: 18k parses of 341k
  // declarations in 8 runs, 8.7k in one), and 8 runs are still enough to
  // spread over the threads. Files with few tables take one run.
  size_t runs = std::clamp<size_t>(keys.size() / 64, 1, 8);
  size_t first_cache = abbrev_caches_.size();
  for (size_t c = 0; c < runs; c++) abbrev_caches_.push_back(std::make_unique<AbbrevCache>());
  std::vector<AbbrevTable> parsed(keys.size());
  // A failing run stops at its first bad table, and parallel_for reports
  // the lowest run's error: the first bad table's, whatever -j is.
  parallel_for(runs, [&](size_t c) {
    AbbrevCache& cache = *abbrev_caches_[first_cache + c];
    const size_t begin = c * keys.size() / runs, end = (c + 1) * keys.size() / runs;
    for (size_t i = begin; i < end; i++) {
      auto [sections, offset, sizes] = keys[i];
      Reader r(sections->abbrev, sections->abbrev_name, sections->big_endian);
      r.seek(offset);
      parsed[i] = AbbrevTable::parse(r, sizes, cache);
    }
    cache.finish(std::span(parsed).subspan(begin, end - begin));
  });
  for (size_t i = 0; i < keys.size(); i++)
    abbrev_tables_[keys[i]] = std::make_unique<AbbrevTable>(std::move(parsed[i]));
  for (Unit& u : units) u.abbrevs = abbrev_tables_[key_of(u)].get();
}

void DwarfFile::read_root(Unit& u) {
  if (u.die_offset == u.end) return;
  Reader r = u.reader;
  r.seek(u.die_offset - u.offset);
  uint64_t code = r.uleb128();
  if (code == 0) return;
  const Abbrev* a = u.abbrevs->find(code);
  if (!a) r.fail_at(u.die_offset, "abbreviation code " + std::to_string(code) + " does not exist");
  u.root_tag = a->tag;
  if (u.version < 5 && a->tag == DW_TAG_partial_unit) u.unit_type = DW_UT_partial;
  // First pass: the bases, which strx and addrx values of the root itself
  // may need; they are sec_offset (or data in pre-standard producers).
  FormSizes sizes = u.abbrevs->sizes();
  for (const AttrSpec& s : a->specs()) {
    bool base = s.name == DW_AT_str_offsets_base || s.name == DW_AT_addr_base || s.name == DW_AT_GNU_addr_base;
    if (base && (s.form == DW_FORM_sec_offset || s.form == DW_FORM_data4 || s.form == DW_FORM_data8)) {
      uint64_t v = r.uint(static_cast<unsigned>(s.size));
      (s.name == DW_AT_str_offsets_base ? u.str_offsets_base : u.addr_base) = v;
    } else {
      skip_value(r, s, sizes);
    }
  }
  Die root = die_in(u, u.die_offset);
  Attr at;
  for (AttrIter it(*this, root); it.next(at);) {
    if (at.name == DW_AT_language && at.value.is_constant()) u.language = static_cast<uint16_t>(at.value.u);
    if (at.name == DW_AT_name && at.value.kind == Value::kString) u.name = at.value.str();
    if (at.name == DW_AT_producer && at.value.kind == Value::kString) u.producer = at.value.str();
    if (at.name == DW_AT_comp_dir && at.value.kind == Value::kString) u.comp_dir = at.value.str();
    if (at.name == DW_AT_stmt_list && (at.value.kind == Value::kSecOffset || at.value.is_constant()))
      u.stmt_list = at.value.u;
  }
}

// A root DIE is read from a window of its unit's start, relocated or
// copied: a few hundred bytes usually, the whole unit if need be. A name
// in the window (DW_FORM_string, never relocated) is taken from the
// file's bytes, which outlive the window.
void DwarfFile::read_root_windowed(Unit& u, elf::PartRelocator::Part& part) {
  const Reader kept = u.reader;  // the file's bytes
  for (uint64_t want = 1024;; want *= 16) {
    const uint64_t hi = want < u.end - u.die_offset ? u.die_offset + want : u.end;
    u.reader = kept;  // what unit_part copies from, and what a failure leaves
    u.reader = unit_part(u, u.offset, hi, part);
    try {
      read_root(u);
      break;
    } catch (const Error&) {
      if (hi == u.end) {
        u.reader = kept;
        throw;
      }
    }
  }
  auto in_file = [&](std::string_view& v) {
    const uint8_t* p = reinterpret_cast<const uint8_t*>(v.data());
    const Bytes window = u.reader.bytes();
    if (!v.empty() && p >= window.data() && p < window.data() + window.size())
      v = {reinterpret_cast<const char*>(kept.bytes().data() + (p - window.data())), v.size()};
  };
  in_file(u.name);
  in_file(u.producer);
  in_file(u.comp_dir);
  u.reader = kept;
}

bool DwarfFile::has_cross_unit_forms() const {
  for (const std::unique_ptr<AbbrevCache>& c : abbrev_caches_)
    if (c->refers_outside_unit()) return true;
  return false;
}

Reader DwarfFile::relocated(uint64_t lo, uint64_t hi, elf::PartRelocator::Part& buffer, bool count) const {
  parts_->read(lo, hi, buffer, count);
  return Reader(Bytes(buffer.bytes.data(), buffer.bytes.size()), main_.info_name, main_.big_endian, lo);
}

Reader DwarfFile::unit_part(const Unit& u, uint64_t lo, uint64_t hi, elf::PartRelocator::Part& buffer,
                            bool count) const {
  if (parts_) return relocated(lo, hi, buffer, count);
  buffer.bytes.resize(hi - lo);
  elf_->copy_out(u.reader.bytes().data() + (lo - u.offset), buffer.bytes);
  buffer.targets.clear();
  return Reader(Bytes(buffer.bytes.data(), buffer.bytes.size()), u.section_name(), u.sections->big_endian, lo);
}

void DwarfFile::skip_unit(const Unit& u) const {
  if (!parts_ || u.is_alt) return;
  parts_->count(u.offset, u.end);
  parts_->release(u.offset, u.end);
}

uint32_t DwarfFile::relocation_section(const Unit& unit, const uint8_t* at) const {
  if (unit.is_alt) return 0;
  if (parts_) {
    // Only the unit being read has its relocations at hand.
    const elf::PartRelocator::Part* part = UnitBytes::current_part(*this, unit);
    if (!part) return 0;
    return elf::ElfFile::target_section(part->targets,
                                        unit.offset + static_cast<uint64_t>(at - unit.reader.bytes().data()));
  }
  for (const elf::Section& s : elf_->sections()) {
    if (s.name != unit.section_name()) continue;
    Bytes d = elf_->section_data(s);
    if (at >= d.data() && at < d.data() + d.size())
      return elf_->relocation_section(s, static_cast<uint64_t>(at - d.data()));
  }
  return 0;
}

namespace {
thread_local const UnitBytes* t_unit_bytes = nullptr;  // the innermost in effect
}  // namespace

UnitBytes::UnitBytes(const DwarfFile& dw, const Unit& unit, elf::PartRelocator::Part& buffer)
    : dw_(dw), unit_(unit), part_(buffer) {
  if (unit.is_alt || !(dw.by_unit() || dw.copies_units())) return;
  copy_.emplace(unit);
  copy_->reader = dw.unit_part(unit, unit.offset, unit.end, buffer, /*count=*/true);
  outer_ = t_unit_bytes;
  t_unit_bytes = this;
}

UnitBytes::~UnitBytes() {
  if (copy_) t_unit_bytes = outer_;
}

const Unit* UnitBytes::current(const DwarfFile& dw, uint64_t offset) {
  for (const UnitBytes* b = t_unit_bytes; b; b = b->outer_)
    if (&b->dw_ == &dw && offset >= b->unit_.global_offset() && offset < b->unit_.global_end()) return &*b->copy_;
  return nullptr;
}

const elf::PartRelocator::Part* UnitBytes::current_part(const DwarfFile& dw, const Unit& unit) {
  for (const UnitBytes* b = t_unit_bytes; b; b = b->outer_)
    if (&b->dw_ == &dw && &*b->copy_ == &unit) return &b->part_;
  return nullptr;
}

void DwarfFile::load_alt(const elf::ElfFile& elf, const Options& options) {
  // .gnu_debugaltlink: file name, NUL, build-id. .debug_sup (DWARF 5):
  // version, is_supplementary, file name, checksum.
  std::string_view name;
  Bytes build_id;
  if (!options.load_alt) return;
  if (const elf::Section* s = elf.find_section(".gnu_debugaltlink")) {
    Reader r(elf.section_data(*s), ".gnu_debugaltlink", elf.big_endian());
    name = r.cstr();
    build_id = r.take(r.remaining());
  } else if (const elf::Section* s = elf.find_section(".debug_sup")) {
    Reader r(elf.section_data(*s), ".debug_sup", elf.big_endian());
    r.u16();
    if (r.u8() != 0) return;  // this file is itself the supplementary file
    name = r.cstr();
  } else {
    return;
  }
  namespace fs = std::filesystem;
  std::vector<std::string> candidates;
  fs::path p(name);
  if (p.is_absolute()) candidates.push_back(p.string());
  else candidates.push_back((fs::path(path_).parent_path() / p).string());
  candidates.push_back((fs::path(options.debug_dir) / ".dwz" / p.filename()).string());
  if (std::string by_id = build_id_path(options.debug_dir, build_id); !by_id.empty())
    candidates.push_back(std::move(by_id));
  std::error_code ec;
  for (const std::string& c : candidates) {
    if (!fs::is_regular_file(c, ec)) continue;
    alt_elf_ = elf::ElfFile::open(c);
    alt_path_ = c;
    break;
  }
  if (!alt_elf_)
    throw Error(".gnu_debugaltlink", 0, "cannot find the alternate file '" + std::string(name) + "' (looked at " +
                                            candidates.front() + " and in " + options.debug_dir + ")");
  alt_elf_->read_ahead(kSectionNames);
  try {
    read_sections(*alt_elf_, alt_);
  } catch (Error& e) {
    throw e.with_file(alt_path_);
  }
  // Messages about the alternate file's bytes name it in the section.
  alt_section_names_.reserve(7);
  auto rename = [&](std::string_view& n) {
    alt_section_names_.push_back(alt_path_ + ":" + std::string(n));
    n = alt_section_names_.back();
  };
  rename(alt_.info_name);
  rename(alt_.types_name);
  rename(alt_.abbrev_name);
  rename(alt_.str_name);
  rename(alt_.line_str_name);
  rename(alt_.str_offsets_name);
  rename(alt_.addr_name);
  alt_.types.clear();
  if (alt_.info.size() > 1) alt_.info.resize(1);
  has_alt_ = true;
  read_units(alt_, true, alt_units_);
  read_abbrevs(alt_units_, alt_);
  for (Unit& u : alt_units_) read_root(u);
}

const Unit& DwarfFile::unit_at(uint64_t offset) const {
  if (parts_ || copy_units_)
    if (const Unit* u = UnitBytes::current(*this, offset)) return *u;
  auto it = std::upper_bound(by_offset_.begin(), by_offset_.end(), offset,
                             [](uint64_t o, const Unit* u) { return o < u->global_offset(); });
  if (it == by_offset_.begin() || offset >= (*(it - 1))->global_end()) {
    throw Error(std::string(main_.info_name), offset, "DIE offset " + hex(offset) + " is outside every unit");
  }
  return **(it - 1);
}

Die DwarfFile::die_at(uint64_t offset) const {
  const Unit& u = unit_at(offset);
  return die_in(u, offset - u.global_base);
}

Die DwarfFile::die_in(const Unit& u, uint64_t so) const {
  if (so < u.die_offset) u.reader.fail_at(so, "reference to " + hex(so) + " points into the unit header");
  Reader r = u.reader;
  r.seek(so - u.offset);
  uint64_t code = r.uleb128();
  if (code == 0) r.fail_at(so, "reference to " + hex(so) + " points at a null entry");
  const Abbrev* a = u.abbrevs->find(code);
  if (!a) r.fail_at(so, "abbreviation code " + std::to_string(code) + " does not exist");
  Die d;
  d.offset = u.global_base + so;
  d.tag = a->tag;
  d.has_children = a->has_children;
  d.abbrev = a;
  d.unit = &u;
  d.attr_pos = r.pos();
  if (a->has_sibling) d.sibling = read_sibling(r, u, *a) + u.global_base;
  return d;
}

Die DwarfFile::root(const Unit& u) const {
  if (u.die_offset == u.end) return Die{.unit = &u};
  Reader r = u.reader;
  r.seek(u.die_offset - u.offset);
  if (r.uleb128() == 0) return Die{.unit = &u};
  return die_in(u, u.die_offset);
}

const Unit* DwarfFile::type_unit(uint64_t signature) const {
  auto it = std::lower_bound(signatures_.begin(), signatures_.end(), signature,
                             [](const auto& p, uint64_t s) { return p.first < s; });
  return it != signatures_.end() && it->first == signature ? it->second : nullptr;
}

uint64_t DwarfFile::read_sibling_slow(Reader r, const Unit& u, const Abbrev& a) {
  FormSizes sizes = u.abbrevs->sizes();
  if (a.sibling_pos >= 0) {
    r.skip(static_cast<uint64_t>(a.sibling_pos));
  } else {
    for (const AttrSpec& s : a.specs()) {
      if (s.name == DW_AT_sibling) break;
      skip_value(r, s, sizes);
    }
  }
  uint64_t at = r.offset();
  switch (a.sibling_form) {
    case DW_FORM_ref1: return u.offset + r.u8();
    case DW_FORM_ref2: return u.offset + r.u16();
    case DW_FORM_ref4: return u.offset + r.u32();
    case DW_FORM_ref8: return u.offset + r.u64();
    case DW_FORM_ref_udata: return u.offset + r.uleb128();
    case DW_FORM_ref_addr: return r.uint(sizes.ref_addr_size);
    default: r.fail_at(at, "DW_AT_sibling has form " + form_name(a.sibling_form) + ", not a reference within the unit");
  }
}

const uint8_t* DwarfFile::string_at(Bytes section, size_t end, std::string_view name, uint64_t offset,
                                    const Reader& at, uint64_t where) {
  if (offset >= section.size())
    at.fail_at(where, "string offset " + hex(offset) + " is past the end of " + std::string(name) + " (size " +
                          hex(section.size()) + ")");
  if (offset >= end) throw Error(std::string(name), offset, "string is not NUL-terminated");
  return section.data() + offset;
}

uint64_t DwarfFile::address_at(const Unit& u, uint64_t index, uint64_t where) const {
  const Sections& s = *u.sections;
  uint64_t size = s.addr.size();
  if (index > size / u.address_size || u.addr_base > size - index * u.address_size ||
      size - index * u.address_size - u.addr_base < u.address_size)
    u.reader.fail_at(where, "address index " + std::to_string(index) + " is past the end of " +
                                std::string(s.addr_name) + " (base " + hex(u.addr_base) + ", size " + hex(size) + ")");
  Reader r(s.addr, s.addr_name, s.big_endian);
  r.seek(u.addr_base + index * u.address_size);
  return r.uint(u.address_size);
}

void DwarfFile::skip_value(Reader& r, const AttrSpec& spec, const FormSizes& sizes) {
  if (spec.size >= 0) {
    r.skip(static_cast<uint64_t>(spec.size));
    return;
  }
  switch (spec.form) {
    case DW_FORM_indirect: {
      uint64_t at = r.offset();
      uint64_t form = r.uleb128();
      if (form == DW_FORM_indirect || form == DW_FORM_implicit_const || form > 0xffff)
        r.fail_at(at, "DW_FORM_indirect names form " + hex(form));
      AttrSpec inner{spec.name, static_cast<uint16_t>(form), form_fixed_size(static_cast<uint32_t>(form), sizes), 0};
      if (inner.size == -2) r.fail_at(at, "unknown form " + hex(form));
      skip_value(r, inner, sizes);
      return;
    }
    default: skip_variable(r, spec.form); return;
  }
}

void DwarfFile::read_value(Reader& r, const Unit& u, uint32_t form, int64_t implicit_const, Value& v) const {
  const Sections& s = *u.sections;
  uint64_t at = r.offset();
  auto ref_in_unit = [&](uint64_t off) {
    if (off >= u.end - u.offset)
      r.fail_at(at, "reference " + hex(off) + " is outside its unit (length " + hex(u.end - u.offset) + ")");
    v.kind = Value::kRef;
    v.u = u.global_base + u.offset + off;
  };
  auto strx = [&](uint64_t index) {
    uint64_t os = u.offset_size, size = s.str_offsets.size();
    if (index > size / os || u.str_offsets_base > size - index * os || size - index * os - u.str_offsets_base < os)
      r.fail_at(at, "string index " + std::to_string(index) + " is past the end of " +
                        std::string(s.str_offsets_name) + " (base " + hex(u.str_offsets_base) + ", size " + hex(size) +
                        ")");
    Reader o(s.str_offsets, s.str_offsets_name, s.big_endian);
    o.seek(u.str_offsets_base + index * os);
    v.kind = Value::kString;
    v.ptr = string_at(s.str, s.str_end, s.str_name, o.uint(static_cast<unsigned>(os)), r, at);
    v.len = Value::kNulTerminated;
  };
  auto string = [&](std::string_view str) {
    v.kind = Value::kString;
    v.ptr = reinterpret_cast<const uint8_t*>(str.data());
    v.len = str.size();
  };
  auto pooled = [&](const uint8_t* p) {
    v.kind = Value::kString;
    v.ptr = p;
    v.len = Value::kNulTerminated;
  };
  auto block = [&](uint64_t n) {
    Bytes b = r.take(n);
    v.kind = Value::kBlock;
    v.ptr = b.data();
    v.len = b.size();
  };
  auto addrx = [&](uint64_t index) {
    if (s.split) {
      v.kind = Value::kAddrIndex;
      v.u = index;
    } else {
      v.kind = Value::kAddress;
      v.u = address_at(u, index, at);
    }
  };
  auto need_alt = [&](const char* what) {
    if (!has_alt_) r.fail_at(at, std::string(what) + " but there is no alternate file (.gnu_debugaltlink)");
  };
  switch (form) {
    case DW_FORM_addr: v.kind = Value::kAddress; v.u = r.uint(u.address_size); return;
    case DW_FORM_data1: v.kind = Value::kUnsigned; v.u = r.u8(); return;
    case DW_FORM_data2: v.kind = Value::kUnsigned; v.u = r.u16(); return;
    case DW_FORM_data4: v.kind = Value::kUnsigned; v.u = r.u32(); return;
    case DW_FORM_data8: v.kind = Value::kUnsigned; v.u = r.u64(); return;
    case DW_FORM_data16: block(16); return;
    case DW_FORM_udata: v.kind = Value::kUnsigned; v.u = r.uleb128(); return;
    case DW_FORM_sdata: v.kind = Value::kSigned; v.u = static_cast<uint64_t>(r.sleb128()); return;
    case DW_FORM_implicit_const: v.kind = Value::kSigned; v.u = static_cast<uint64_t>(implicit_const); return;
    case DW_FORM_flag: v.kind = Value::kFlag; v.u = r.u8() != 0; return;
    case DW_FORM_flag_present: v.kind = Value::kFlag; v.u = 1; return;
    case DW_FORM_string: string(r.cstr()); return;
    case DW_FORM_strp: pooled(string_at(s.str, s.str_end, s.str_name, r.uint(u.offset_size), r, at)); return;
    case DW_FORM_line_strp:
      pooled(string_at(s.line_str, s.line_str_end, s.line_str_name, r.uint(u.offset_size), r, at));
      return;
    case DW_FORM_strp_sup:
    case DW_FORM_GNU_strp_alt: {
      uint64_t off = r.uint(u.offset_size);
      need_alt("DW_FORM_GNU_strp_alt");
      pooled(string_at(alt_.str, alt_.str_end, alt_.str_name, off, r, at));
      return;
    }
    case DW_FORM_strx:
    case DW_FORM_GNU_str_index: strx(r.uleb128()); return;
    case DW_FORM_strx1: strx(r.u8()); return;
    case DW_FORM_strx2: strx(r.u16()); return;
    case DW_FORM_strx3: strx(r.uint(3)); return;
    case DW_FORM_strx4: strx(r.u32()); return;
    case DW_FORM_addrx:
    case DW_FORM_GNU_addr_index: addrx(r.uleb128()); return;
    case DW_FORM_addrx1: addrx(r.u8()); return;
    case DW_FORM_addrx2: addrx(r.u16()); return;
    case DW_FORM_addrx3: addrx(r.uint(3)); return;
    case DW_FORM_addrx4: addrx(r.u32()); return;
    case DW_FORM_block1: block(r.u8()); return;
    case DW_FORM_block2: block(r.u16()); return;
    case DW_FORM_block4: block(r.u32()); return;
    case DW_FORM_block:
    case DW_FORM_exprloc: block(r.uleb128()); return;
    case DW_FORM_ref1: ref_in_unit(r.u8()); return;
    case DW_FORM_ref2: ref_in_unit(r.u16()); return;
    case DW_FORM_ref4: ref_in_unit(r.u32()); return;
    case DW_FORM_ref8: ref_in_unit(r.u64()); return;
    case DW_FORM_ref_udata: ref_in_unit(r.uleb128()); return;
    case DW_FORM_ref_addr: {
      uint64_t off = r.uint(u.version <= 2 ? u.address_size : u.offset_size);
      // Within this unit's section: in a relocatable file each COMDAT
      // .debug_info is its own space.
      if (off >= u.section_size)
        r.fail_at(at, "DW_FORM_ref_addr " + hex(off) + " is past the end of " + std::string(u.section_name()));
      v.kind = Value::kRef;
      v.u = u.global_base + off;
      return;
    }
    case DW_FORM_ref_sup4:
    case DW_FORM_ref_sup8:
    case DW_FORM_GNU_ref_alt: {
      uint64_t off = form == DW_FORM_ref_sup4 ? r.u32() : form == DW_FORM_ref_sup8 ? r.u64() : r.uint(u.offset_size);
      need_alt("DW_FORM_GNU_ref_alt");
      if (alt_.info.empty() || off >= alt_.info[0].size())
        r.fail_at(at, form_name(form) + " " + hex(off) + " is past the end of " + std::string(alt_.info_name));
      v.kind = Value::kRef;
      v.u = alt_.info_base + off;
      return;
    }
    case DW_FORM_ref_sig8: {
      uint64_t sig = r.u64();
      if (const Unit* tu = type_unit(sig)) {
        v.kind = Value::kRef;
        v.u = tu->type_die();
      } else {
        v.kind = Value::kSignature;
        v.u = sig;
      }
      return;
    }
    case DW_FORM_sec_offset: v.kind = Value::kSecOffset; v.u = r.uint(u.offset_size); return;
    case DW_FORM_loclistx:
    case DW_FORM_rnglistx: v.kind = Value::kSecOffset; v.u = r.uleb128(); return;
    default: r.fail_at(at, "unknown form " + hex(form));
  }
}

AttrIter::AttrIter(const DwarfFile& file, const Die& die)
    : file_(&file), unit_(die.unit), spec_(die.abbrev ? die.abbrev->attrs : nullptr),
      spec_end_(die.abbrev ? die.abbrev->attrs + die.abbrev->num_attrs : nullptr), r_(die.unit->reader) {
  if (die.abbrev) r_.seek(die.attr_pos);
}

void AttrIter::next_slow(const AttrSpec& s, Attr& a) {
  a.value = Value{};
  if (s.form == DW_FORM_indirect) {
    uint64_t form = r_.uleb128();
    if (form == DW_FORM_indirect || form == DW_FORM_implicit_const || form > 0xffff)
      r_.fail_at(a.offset, "DW_FORM_indirect names form " + hex(form));
    a.form = static_cast<uint32_t>(form);
  }
  file_->read_value(r_, *unit_, a.form, s.implicit_const, a.value);
}

}  // namespace btfc::dwarf
