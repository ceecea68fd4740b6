// The encoder's passes (see encode.h). Each pass is a block with its
// PhaseTimer; the only parallel one is the per-unit conversion.
#include "convert/encode.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <set>
#include <system_error>
#include <thread>
#include <utility>

#include <sys/stat.h>

#include "base/allocator.h"
#include "base/atomic_file.h"
#include "base/mapped_file.h"
#include "base/parallel.h"
#include "base/timer.h"
#include "base/trace.h"
#include "btf/base_cache.h"
#include "btf/dedup.h"
#include "btf/kernel_order.h"
#include "btf/merge.h"
#include "btf/reader.h"
#include "btf/writer.h"
#include "convert/elf_output.h"
#include "convert/unit_types.h"
#include "dwarf/constants.h"
#include "dwarf/debug_file.h"
#include "dwarf/dwarf_file.h"
#include "elf/elf_file.h"
#include "elf/write_section.h"

namespace btfc::convert {

namespace {

// pahole skips partial units (dwz) and skeleton units (split DWARF) with a
// warning, and drops units of excluded languages entirely (1.1).
bool skip_unit(const dwarf::Unit& u, const EncodeOptions& o) {
  if (u.root_tag == 0) return true;
  if (u.root_tag == dwarf::DW_TAG_partial_unit || u.root_tag == dwarf::DW_TAG_skeleton_unit) return true;
  return language_excluded(o, u.language);
}

// Units in groups of consecutive units, each about kGroupBytes of DWARF
// (the last group may be smaller); skipped units belong to none. Fixed
// sizes, not the thread count, decide the groups, so the output does not
// depend on -j. The size trades the final serial dedup against memory:
// on the corpus vmlinux, 4 MB groups (43) leave it 300k types, 8 MB (22)
// 227k, for the same peak RSS at -j2; 16 MB leave 185k but cost 35 MB.
constexpr uint64_t kGroupBytes = uint64_t{8} << 20;

template <typename Skip>
std::vector<std::vector<size_t>> group_units(const std::vector<dwarf::Unit>& units, Skip&& skip) {
  std::vector<std::vector<size_t>> groups;
  uint64_t bytes = kGroupBytes;
  for (size_t i = 0; i < units.size(); i++) {
    if (skip(i)) continue;
    if (bytes >= kGroupBytes) {
      groups.emplace_back();
      bytes = 0;
    }
    groups.back().push_back(i);
    bytes += units[i].end - units[i].offset;
  }
  return groups;
}

// The base of split BTF, if any: read and indexed for dedup already (batch
// mode, where modules share both), or read from `path` and indexed during
// the read phase, beside the file's own reads (a single module: its base
// then costs no wall time of its own). Owns what it reads; the result of
// build() points into it.
struct BaseInput {
  const btf::Btf* btf = nullptr;
  const btf::DedupBase* prepared = nullptr;
  std::string path{};  // read when `btf` is null; empty: no base
  std::string cache_dir{};  // the base cache's directory for reading `path` (empty: none)
  // Read without a cache for one small file: its dedup indexes the base's
  // types itself, of those its names can meet (DedupBase::IndexPerTable),
  // and the base's strings are indexed for its names only
  // (Btf::index_strings_for).
  bool index_per_table = false;
  std::optional<btf::Btf> read{};
  std::optional<btf::DedupBase> index{};
  btf::BaseCacheUse cache_use = btf::BaseCacheUse::Off;

  bool wanted() const { return btf || !path.empty(); }
  // Reads and indexes what is missing (one task of the read phase); a
  // base read here is indexed beside its checks, or taken from the cache.
  void complete() {
    if (!btf && !path.empty()) {
      if (index_per_table && cache_dir.empty())
        btf::read_file(path, nullptr, read.emplace(),
                       [&](const btf::Btf& b) { index.emplace(b, btf::DedupBase::IndexPerTable{}); },
                       btf::StringIndex::Deferred);
      else
        cache_use = btf::read_base_cached(path, cache_dir, read.emplace(), index);
      btf = &*read;
      prepared = &*index;
    }
    if (btf && !prepared) prepared = &index.emplace(*btf);
  }
};

// Thrown when a file read unit by unit turns out to need its relocations
// applied to the whole section (see elf::PartRelocator).
struct NotByUnit {};

// Thrown when a file whose groups were deduplicated with names taken by
// their .debug_str offset turns out to name a text at two offsets (or at
// one and in a unit's own strings) within a group: see build().
struct NamesNotDistinct {};

// How build_once reads and groups a file; see build().
struct Attempt {
  bool by_unit = true;          // relocate a module's units one by one
  bool names_by_offset = true;  // groups keep .debug_str offsets as names
  // Whose .BTF_ids names the kfuncs: the file itself, not the debug file
  // its DWARF came from, where the section is empty (null: the same).
  const elf::ElfFile* btf_ids_file = nullptr;
};

// `by_unit`: relocate a module's units one by one (DwarfFile::Options::
// relocate_by_unit); `used_by_unit` says whether the file allowed it, and
// `unit_checked` whether every relocation was then found applied (what
// follows reads the same bytes either way).
btf::Btf build_once(const EncodeOptions& o, const elf::ElfFile& elf, BaseInput& base_input, EncodeStats& stats,
                    const Attempt& attempt, bool& used_by_unit, bool& unit_checked) {
  const bool by_unit = attempt.by_unit;
  FunctionOptions fopts{.consistent_func = o.consistent_func, .decl_tag = o.decl_tag,
                        .decl_tag_kfuncs = o.decl_tag_kfuncs, .attributes = o.attributes};
  VariableOptions vopts{.percpu = o.var, .global_var = o.global_var, .encode_force = o.encode_force,
                        .decl_tag = o.decl_tag};
  std::optional<dwarf::DwarfFile> dw;
  std::optional<FunctionIndex> functions;
  std::optional<VariableIndex> variables;
  {
    PhaseTimer t("read");
    // Three independent reads of the file (units and abbreviations, and
    // the symbol table twice), and the base's, side by side: nothing else
    // runs yet. A file bad in two places reports the first in this order
    // (parallel_for rethrows the lowest index's error).
    parallel_for(base_input.wanted() ? 4 : 3, [&](size_t k) {
      if (k == 0) {
        dw.emplace(elf, dwarf::DwarfFile::Options{.load_alt = o.load_alt, .relocate_by_unit = by_unit, .copy_by_unit = true});
        used_by_unit = dw->by_unit();
      }
      if (k == 1)
        functions.emplace(elf, FunctionIndex::Options{.kfuncs = o.decl_tag_kfuncs, .btf_ids_file = attempt.btf_ids_file});
      if (k == 2) variables.emplace(elf, vopts);
      if (k == 3) base_input.complete();
    });
  }
  const btf::Btf* base = base_input.btf;
  const btf::DedupBase* prepared = base_input.prepared;
  stats.base_cache = base_input.cache_use;

  const std::vector<dwarf::Unit>& units = dw->units();
  std::vector<UnitResult> results(units.size());
  const char* int_name = nullptr;  // UnitContext::int_name, set for names by offset
  auto convert_unit = [&](size_t i) {
    UnitResult& r = results[i];
    // A unit is read into this thread's buffer, which stays in cache from
    // unit to unit: a module's relocated there (see elf::PartRelocator),
    // a linked file's copied (DwarfFile::copies_units).
    thread_local elf::PartRelocator::Part buffer;
    dwarf::UnitBytes bytes(*dw, units[i], buffer);
    const dwarf::Unit& unit = bytes.unit();
    // Names are mostly .debug_str strings: see Btf::share_strings.
    r.types.share_strings(dw->debug_str());
    UnitContext ctx{elf, *dw, unit, o, i, int_name};
    UnitTypes types(ctx, r.types);
    types.convert_all();  // types, the index `int`, struct/typedef decl tags
    // The unit-level subprograms and variables the type walk met.
    collect_functions(*dw, unit, types.subprograms(), *functions, types, fopts, r.funcs);
    collect_variables(*dw, unit, types.variables(), *variables, types, vopts, r.vars);  // VARs after the types
    r.dies = types.dies_walked();
  };
  // Done with a group's DWARF (another unit's reference brings a page
  // back): resident memory follows the groups in flight. One call per run
  // of units that follow one another in their section (a whole group,
  // unless it skips a unit or mixes .debug_info and .debug_types), not
  // per unit: each call makes the kernel flush the other threads' TLBs,
  // an interrupt per thread and a VM exit each on a virtual machine
  // (2,352 units in vmlinux).
  auto for_runs = [&](const std::vector<size_t>& g, auto&& done) {
    const uint8_t *begin = nullptr, *end = nullptr;
    for (size_t i : g) {
      Bytes b = units[i].reader.bytes();
      if (b.data() != end) {
        if (begin) done(Bytes(begin, end));
        begin = b.data();
      }
      end = b.data() + b.size();
    }
    if (begin) done(Bytes(begin, end));
  };
  // (Units relocated or copied into a buffer map no page of the file.)
  auto release_group = [&](const std::vector<size_t>& g) {
    if (!dw->by_unit() && !dw->copies_units()) for_runs(g, [&](Bytes b) { elf.release(b); });
  };
  // The records emit_functions and emit_variables may append for one
  // unit after the last merge (an upper bound: one FUNC per candidate,
  // each with its proto, tags and kfunc extras; a DATASEC entry per
  // variable).
  struct Room {
    size_t types = 0, words = 0;
  };
  auto funcs_room = [](const UnitResult& r) {
    return Room{6 * r.funcs.funcs.size() + r.funcs.tags.size() + 2 * r.vars.vars.size(),
                26 * r.funcs.funcs.size() + 2 * r.funcs.params.size() + 4 * r.funcs.tags.size() +
                    6 * r.vars.vars.size()};
  };
  // Room for those of every unit. Without it the first FUNC copies the
  // whole merged table into a bigger buffer: most of a module's page
  // faults. Capacity costs no memory until it is written.
  auto reserve_for = [&](btf::Btf& into, size_t types, size_t words) {
    for (const UnitResult& r : results) {
      Room room = funcs_room(r);
      types += room.types;
      words += room.words;
    }
    into.reserve_records(into.type_count() + types, into.words().size() + words);
  };
  // Merges the tables of results[which] into `into`; each unit's function
  // and variable ids follow their types, and the unit tables are freed.
  // `own_name_words`: see btf::merge_units.
  auto merge = [&](btf::Btf& into, const std::vector<size_t>& which, std::vector<uint32_t>* own_name_words = nullptr) {
    std::vector<const btf::Btf*> tables;
    for (size_t i : which) tables.push_back(&results[i].types);
    std::vector<btf::TypeId> first = btf::merge_units(into, tables, own_name_words);
    for (size_t k = 0; k < which.size(); k++) {
      UnitResult& r = results[which[k]];
      auto shift = [&](btf::TypeId id) { return id >= 1 ? id - 1 + first[k] : id; };
      r.remap_type_ids(shift);
      r.types = btf::Btf();
    }
  };

  std::vector<std::vector<size_t>> groups = group_units(units, [&](size_t i) {
    results[i].skipped = skip_unit(units[i], o);
    return results[i].skipped;
  });
  for (const UnitResult& r : results) {
    stats.units++;
    stats.units_skipped += r.skipped;
  }
  for (const dwarf::Unit& u : units) stats.units_split += u.root_tag == dwarf::DW_TAG_skeleton_unit;
  uint64_t total_bytes = 0;  // of the units' DWARF
  for (const std::vector<size_t>& g : groups)
    for (size_t i : g) total_bytes += units[i].end - units[i].offset;
  btf::Btf out = base ? btf::Btf(base) : btf::Btf();
  // Room in `out` for all of it, guessed from what the first group gives
  // for its `first_bytes` of DWARF, with a margin (growing past it copies
  // the table once more; unwritten room costs no memory), so that
  // appending the groups does not copy the table at every doubling.
  auto reserve_guessed = [&](Room first, uint64_t first_bytes, double margin) {
    if (!first_bytes) return;
    const double scale = margin * static_cast<double>(total_bytes) / static_cast<double>(first_bytes);
    out.reserve_records(static_cast<size_t>(first.types * scale), static_cast<size_t>(first.words * scale));
  };
  std::vector<btf::TypeId> stages;  // see btf::DedupOptions::stages
  if (base || groups.size() == 1) {
    // One dedup over all units (a small file, or split BTF:
    // deduplicating groups first can map a type to the base that a single
    // pass keeps in the module, kvm's gfn_to_pfn_cache, as a type's
    // equivalence depends on the other variants it is compared with).
    // The groups are only batches here: each is converted in parallel and
    // merged, and its unit tables are freed before the next, so one
    // batch's tables are alive beside the merged table instead of all of
    // them (amdgpu.ko: 1.8M types).
    PhaseTimer t("convert");
    uint64_t done_bytes = 0;
    for (size_t g = 0; g < groups.size(); g++) {
      // Fresh huge pages may run cold halfway (base/allocator.h).
      recheck_fresh_pages();
      parallel_for(groups[g].size(), [&](size_t k) { convert_unit(groups[g][k]); });
      release_group(groups[g]);
      size_t types = 0, words = 0;
      for (size_t i : groups[g]) {
        types += results[i].types.type_count();
        words += results[i].types.words().size();
        done_bytes += units[i].end - units[i].offset;
      }
      if (g == 0 && groups.size() > 1) reserve_guessed({types, words}, done_bytes, 1.25);
      if (g + 1 == groups.size()) reserve_for(out, types, words);
      // Each group's types refer only to the base and to themselves (a
      // unit's table is its own): dedup takes the groups as its stages.
      if (groups.size() > 1 && (stages.empty() || stages.back() != out.end_id())) stages.push_back(out.end_id());
      merge(out, groups[g]);
    }
    while (!stages.empty() && stages.back() >= out.end_id()) stages.pop_back();  // empty groups at the end
  } else if (groups.size() > 1) {
    // Many groups (vmlinux): each group is converted, merged and
    // deduplicated on its own, groups in parallel, so the type tables of
    // only a few groups are alive at a time and dedup runs on every core.
    // Groups start in order, and each output is appended to `out` as soon
    // as the groups before it are in, by the thread that finished the
    // group completing that prefix: the merge runs beside the other
    // groups' work, not after it. All of it is deduplicated once more
    // below.
    std::vector<btf::Btf> group_out(groups.size());
    std::vector<char> done(groups.size(), 0);
    btf::SharedNames names;  // the groups' shared names, as they are appended
    // Names that a dwz file (.gnu_debugaltlink) holds are copied as own
    // strings, and would meet the same texts of .debug_str: by text.
    const bool by_offset = attempt.names_by_offset && dw->alt_path().empty();
    if (by_offset) int_name = shared_int_name(*dw);
    size_t merged = 0;  // groups appended to `out`, a prefix
    std::mutex merge_mu;
    auto append_ready = [&] {
      for (; merged < groups.size() && done[merged]; merged++) {
        btf::Btf& table = group_out[merged];
        if (merged == 0) {
          // Room for every group's output and the FUNCs and VARs after
          // them: otherwise reserve_for also copies `out` once more after
          // the last group (vmlinux: 5.5 MB into fresh pages, 20 ms on
          // one core).
          Room room{table.type_count(), table.words().size()};
          uint64_t bytes = 0;
          for (size_t i : groups[0]) {
            Room f = funcs_room(results[i]);
            room.types += f.types;
            room.words += f.words;
            bytes += units[i].end - units[i].offset;
          }
          reserve_guessed(room, bytes, 1.5);
        }
        btf::TypeId first = btf::append(out, table, {}, &names);
        auto shift = [&](btf::TypeId id) { return id >= 1 ? id - 1 + first : id; };  // a standalone table's ids
        for (size_t i : groups[merged]) results[i].remap_type_ids(shift);
        table = btf::Btf();
      }
    };
    {
      PhaseTimer t("convert+group dedup");
      parallel_for_in_order(groups.size(), [&](size_t g) {
        const std::vector<size_t>& members = groups[g];
        recheck_fresh_pages();
        parallel_for(members.size(), [&](size_t k) { convert_unit(members[k]); });
        release_group(members);
        btf::Btf table;  // standalone: split BTF took the branch above
        std::vector<uint32_t> own_name_words;
        merge(table, members, by_offset ? &own_name_words : nullptr);
        std::vector<btf::TypeId> id_map;
        btf::dedup(table, {.own_name_words = by_offset ? &own_name_words : nullptr}, &id_map);
        for (size_t i : members) results[i].remap_type_ids([&](btf::TypeId id) { return id_map[id]; });
        table.shrink_to_fit();
        table.drop_string_index();  // btf::append reads the strings, not the index
        std::lock_guard lock(merge_mu);
        trace::Exclusive appending("append");
        group_out[g] = std::move(table);
        done[g] = 1;
        append_ready();
      });
    }
    if (!names.held()) throw NamesNotDistinct{};
    stats.files_names_by_offset = by_offset;
    PhaseTimer t("merge");
    reserve_for(out, 0, 0);  // every group is in: parallel_for threw otherwise
  }
  // Done with the DWARF for good. A relocated copy (a module's .debug_info:
  // amdgpu.ko 94 MB) gives its pages back now, not at exit: dedup's
  // tables, allocated next, reuse them, which costs less than fresh pages
  // (on a virtual machine, fresh ones are often a fault in the host too);
  // amdgpu.ko: peak RSS 481 -> 410 MB. Not group by group as the file
  // pages above (which release_group has dropped already): a reference
  // from a later unit would read zeros there.
  std::vector<size_t> all(units.size());
  std::iota(all.begin(), all.end(), size_t{0});
  for_runs(all, [&](Bytes b) { elf.discard(b); });
  if (dw->by_unit()) {
    // Were all relocations applied? The skipped units count theirs.
    for (size_t i = 0; i < units.size(); i++)
      if (results[i].skipped) dw->skip_unit(units[i]);
    if (!dw->by_unit_complete()) throw NotByUnit{};
    unit_checked = true;
    stats.files_by_unit = 1;
  }
  stats.files_copied = dw->copies_units();
  for (const UnitResult& r : results) stats.dies += r.dies;
  {
    PhaseTimer t("funcs");
    std::vector<const UnitFunctions*> uf;
    std::vector<const UnitVariables*> uv;
    for (const UnitResult& r : results) {
      if (r.skipped) continue;
      uf.push_back(&r.funcs);
      uv.push_back(&r.vars);
    }
    stats.functions = emit_functions(*functions, uf, fopts, out);
    emit_variables(*variables, uv, out);
  }
  stats.types_before_dedup = out.type_count();
  {
    PhaseTimer t("dedup");
    // A base read for this file alone is not needed after this dedup.
    btf::DedupReport report;
    // A base read with its string index deferred is indexed now, for the
    // names this dedup will look up in it (any other base: nothing to do).
    if (base_input.read) base_input.read->index_strings_for(out);
    if (out.type_count())
      btf::dedup(out, {.prepared_base = prepared, .last_use = base_input.index.has_value(), .stages = stages,
                       .report = &report});
    stats.files_redone = report.redone;
  }
  stats.types_after_dedup = out.type_count();
  return out;
}

// The DIEs whose names BTF keeps and requires to be C identifiers (not
// base types: INT names have spaces).
bool identifier_named(uint32_t tag) {
  switch (tag) {
    case dwarf::DW_TAG_structure_type: case dwarf::DW_TAG_class_type: case dwarf::DW_TAG_union_type:
    case dwarf::DW_TAG_enumeration_type: case dwarf::DW_TAG_typedef: case dwarf::DW_TAG_member:
    case dwarf::DW_TAG_enumerator: case dwarf::DW_TAG_subprogram: case dwarf::DW_TAG_formal_parameter:
    case dwarf::DW_TAG_variable:
      return true;
    default:
      return false;
  }
}

// Where a name the checks refused comes from: the first DIE, in unit
// order, of a kind identifier_named() and a language not left out, that
// bears it. Looked for only once the encode has failed, by reading the DWARF again:
// checking names while converting would read every name (vmlinux: 8.4M).
// nullopt if there is none or the DWARF cannot be read again.
std::optional<Error> at_named_die(const EncodeOptions& o, const elf::ElfFile& elf, const std::string& name) {
  try {
    dwarf::DwarfFile dw(elf, dwarf::DwarfFile::Options{.load_alt = o.load_alt});
    const std::vector<dwarf::Unit>& units = dw.units();
    std::vector<std::optional<dwarf::Die>> first(units.size());
    parallel_for(units.size(), [&](size_t i) {
      // Partial units too: their types are encoded where others refer to them.
      if (units[i].root_tag == 0 || language_excluded(o, units[i].language)) return;
      dwarf::DieCursor cursor(units[i]);
      dwarf::Die die;
      while (cursor.next(die)) {
        if (identifier_named(die.tag) && dw.attrs(die).name == name) {
          first[i] = die;
          return;
        }
      }
    });
    for (const std::optional<dwarf::Die>& die : first) {
      if (!die) continue;
      std::string what =
          dwarf::tag_name(die->tag) + " '" + shown_name(name) + "' cannot be encoded: BTF names are C identifiers";
      const uint16_t lang = die->unit->language;
      const std::string_view lang_name = dwarf::language_name(lang);
      const bool c = lang == dwarf::DW_LANG_C89 || lang == dwarf::DW_LANG_C || lang == dwarf::DW_LANG_C99 ||
                     lang == dwarf::DW_LANG_C11;
      if (!c && lang_name != "UNKNOWN")
        what += " (a " + std::string(lang_name) + " unit: --lang_exclude=" + std::string(lang_name) +
                " leaves such units out)";
      return Error(std::string(die->unit->section_name()), die->section_offset(), what);
    }
  } catch (const Error&) {
  }
  return std::nullopt;
}

// The encoded table passes the reader's checks (those read_raw applies to
// every BTF file) before anything is written: DWARF the compiler never
// emits (a struct holding itself by value, a loop of pointers) would
// otherwise give BTF that fails only when a kernel or libbpf loads it.
// Not validate_for_kernel's extra rules: pahole 1.31 itself writes
// overlapping DATASEC variables with global_var (vmlinux's .rodata), and
// btfc writes what pahole writes. Thrown as a problem of the input file.
//
// A name that is not a C identifier (a C++ template's, a damaged string)
// is reported at the DIE that bears it (see at_named_die), with the unit's
// language when that is not C.
void check_output(const btf::Btf& out, const EncodeOptions& o, const elf::ElfFile& elf) {
  try {
    btf::validate(out);
  } catch (const btf::InvalidName& e) {
    if (std::optional<Error> at_die = at_named_die(o, elf, e.name())) throw *at_die;
    throw Error(std::string("its DWARF gives invalid BTF: ") + e.what());
  } catch (const Error& e) {
    throw Error(std::string("its DWARF gives invalid BTF: ") + e.what());
  }
}

// Reading a module unit by unit is only an optimisation: when its
// relocations turn out not to allow it, or anything fails before every
// relocation was found applied, the file is encoded again with
// .debug_info relocated whole, the way that reports a bad file's first
// error. A failure after that (a cycle of typedefs in dedup, say) is the
// file's own, and is reported as it is (encoding again would also find
// a single module's base index spent by its one dedup).
//
// Names by offset are an optimisation too. A group's dedup folds equal
// names by text, and most names lie in .debug_str, at an offset that
// already tells their text where the linker merged the section (the
// corpus vmlinux: 7.8M of the groups' 8.4M names, 167k strings, no text
// twice): there, dedup leaves them as they are and folds only the units'
// own strings (DedupOptions::own_name_words), and btf::append checks
// that no group named a text two ways (btf::SharedNames). One that did is
// encoded again with names by text. A relocatable file's .debug_str holds
// each object's strings apart (ext4.ko: 137k of its 151k strings are
// repeats), so it goes by text from the start.
btf::Btf build_attempts(const EncodeOptions& o, const elf::ElfFile& elf, const elf::ElfFile* btf_ids_file,
                        BaseInput& base_input, EncodeStats& stats) {
  const EncodeStats before = stats;
  const bool linked = elf.type() != elf::ET_REL;
  Attempt attempt{.by_unit = true, .names_by_offset = linked, .btf_ids_file = btf_ids_file};
  for (;;) {
    stats = before;
    stats.files_names_redone = linked && !attempt.names_by_offset;
    bool used_by_unit = false, unit_checked = false;
    try {
      return build_once(o, elf, base_input, stats, attempt, used_by_unit, unit_checked);
    } catch (const NamesNotDistinct&) {
      attempt.names_by_offset = false;
    } catch (...) {
      if (!attempt.by_unit || !used_by_unit || unit_checked) throw;
      attempt.by_unit = false;
    }
  }
}

// The sections an encode reads, which a file read cold gets into the page
// cache beside the work (elf::ElfFile::read_ahead): amdgpu.ko cold 1.41 ->
// 0.96 s at -j2 (0.85 s warm). The symbol table (functions' and
// variables' addresses) is found by type; .symtab and .strtab are its
// names in every file that has one.
std::vector<std::string_view> sections_read() {
  std::vector<std::string_view> names(std::begin(dwarf::DwarfFile::kSectionNames),
                                      std::end(dwarf::DwarfFile::kSectionNames));
  names.insert(names.end(), std::begin(FunctionIndex::kSectionNames), std::end(FunctionIndex::kSectionNames));
  names.insert(names.end(), {".symtab", ".strtab"});
  return names;
}

// `elf` holds the DWARF: the file, or the debug file of a stripped one
// (`btf_ids_file`, whose .BTF_ids names the kfuncs).
btf::Btf build(const EncodeOptions& o, const elf::ElfFile& elf, BaseInput& base_input, EncodeStats& stats,
               const elf::ElfFile* btf_ids_file = nullptr) {
  // As pahole: a file without DWARF is an error, not an empty output.
  dwarf::DwarfFile::require(elf);
  elf.read_ahead(sections_read());
  btf::Btf out = build_attempts(o, elf, btf_ids_file, base_input, stats);
  {
    // The checks, and beside them the depth of the kernel's resolution,
    // which its order rarely takes past the limit (`int ***...*p` with
    // over 32 stars; 11 at most in Linux 6.1): both only read the table.
    PhaseTimer t("check");
    bool too_deep = false;
    parallel_for(2, [&](size_t k) {
      if (k == 0) check_output(out, o, elf);
      else too_deep = btf::kernel_resolution(out, /*with_order=*/false).max_depth > btf::KERNEL_MAX_RESOLVE_DEPTH;
    });
    if (too_deep) {  // renumbered, then checked again
      btf::order_for_kernel(out);
      check_output(out, o, elf);
    }
  }
  return out;
}

}  // namespace

btf::Btf build_btf(const EncodeOptions& o, const elf::ElfFile& elf, const btf::Btf* base, EncodeStats* stats) {
  EncodeStats local;
  BaseInput base_input{.btf = base};
  return build(o, elf, base_input, stats ? *stats : local);
}

btf::Btf build_btf(const EncodeOptions& o, const btf::Btf* base, EncodeStats* stats) {
  std::unique_ptr<elf::ElfFile> elf;
  try {
    elf = elf::ElfFile::open(o.input);
    return build_btf(o, *elf, base, stats);
  } catch (Error& e) {
    e.with_file(o.input);
    throw;
  }
}

namespace {

// The size of a file's .debug_info (0 without one): how much DWARF it has.
uint64_t debug_info_size(const elf::ElfFile& elf) {
  const elf::Section* s = elf.find_section(".debug_info");
  return s ? s->size : 0;
}

// The threads for a single file: those asked for (-jN; -j without a
// number: the cores), but no more than the file has megabytes of DWARF,
// and at least one. A kernel build runs pahole once per module, as many at
// once as make runs jobs, and passes each `-j` (Linux 6.1) or make's
// `-j$(JOBS)` (later releases); most modules are small: xfrm_algo.ko
// (33 KB of .debug_info) took 15 ms of CPU on one thread and 19 on two
// (29 on 16), for the same wall time, the idle workers spinning before
// they sleep; over a sample of 404 modules run two at a time, one thread
// each was 7% faster than -j, and 201 modules two at a time with -j8 took
// 11.8 s against 8.4 s with one thread each. A big file (ext4.ko's 4.6 MB:
// 71 -> 54 ms on two threads) keeps them. The output is the same for any
// count.
unsigned threads_for(const elf::ElfFile& elf, unsigned asked) {
  const uint64_t dwarf = debug_info_size(elf);
  unsigned most = asked ? asked : std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::clamp<uint64_t>(dwarf >> 20, 1, most));
}

// Whether a file alone on its base is small enough that its dedup should
// index the base itself, of the types its names can meet, rather than have
// all of the base's indexed beside the read (DedupBase::IndexPerTable).
// Looking its names up costs in proportion to the file; leaving out the
// base's other types saves in proportion to the base. ebt_dnat.ko (a
// median module) on vmlinux: the read phase 31.0 -> 21.8 ms, dedup 6.4 ->
// 12.6 ms, the run 40.6 -> 38.2 ms (medians of 15 traced runs); 201
// modules one after the other, 11.6 -> 11.4 s and 12.1 -> 11.4 s. Less
// than the 10 ms the base's full index took: what the index no longer
// faults in, the dedup's per-id arrays now do (fresh memory costs a host
// fault per page on these virtual machines). Under 2 MB of DWARF a file
// gets one thread (threads_for), so nothing runs beside the base's read;
// above, on two threads, the full index built beside the read does
// better (13 modules of 2-8 MB at -j2, summed: 1.05-1.24 s against
// 1.16-1.26 s in three alternating rounds).
bool small_for_its_base(const elf::ElfFile& elf) { return debug_info_size(elf) < (uint64_t{2} << 20); }

// From how much .debug_info a run probes whether its fresh memory should
// come in small pages (base/allocator.h says why). Each right after a
// pahole run on the same module, alternating, medians of 7 at -j2 (AMD
// EPYC host, session 45, small pages for large inputs without a probe):
// i915.ko (38 MB) 0.26 s with huge pages, 0.18 s without; btrfs.ko (8 MB)
// 0.055 s either way, the longest run 0.098 s against 0.073 s; e1000e.ko
// (1.7 MB) 29 ms with them, 35 ms without (-j1, medians of 15).
constexpr uint64_t kLargeDwarf = uint64_t{8} << 20;

// One file, the single-file path: build, then write detached (`out` set)
// or into the file's .BTF section. `set_threads`: the file alone is
// encoded, and -j (o.jobs) is applied once the file is open.
EncodeStats encode_file(const EncodeOptions& o, const std::string& input, const std::string& out_path,
                        BaseInput base_input, bool set_threads = false) {
  EncodeStats stats;
  stats.files = 1;
  std::unique_ptr<elf::ElfFile> elf;
  try {
    // Said by the first bytes, before the file is unpacked (seconds for a
    // big one, and a batch in place over an installed tree meets it for
    // every module): the output could only go into the copy in memory.
    if (out_path.empty())
      if (const elf::Packing p = elf::packing_of(MappedFile::open(input).bytes()); p != elf::Packing::None)
        throw Error("is packed (" + std::string(elf::packing_name(p)) +
                    "): its .BTF cannot be written in place; use --btf_encode_detached=OUT (or btfc encode "
                    "--output-dir)")
            .with_file(input);
    elf = elf::ElfFile::open(input);
    // A stripped file's types and symbols come from its debug file, as
    // pahole (libdwfl) finds it; the output still goes into the file.
    std::unique_ptr<elf::ElfFile> debug = dwarf::open_debug_file(*elf);
    const elf::ElfFile& source = debug ? *debug : *elf;
    if (set_threads) {
      set_jobs(threads_for(source, o.jobs));
      tune_allocator(jobs(), debug_info_size(source) >= kLargeDwarf);
      stats.threads = jobs();
      base_input.index_per_table = small_for_its_base(source);
    }
    btf::Btf out = build(o, source, base_input, stats, debug ? elf.get() : nullptr);
    if (set_threads) stats.pages = page_choice();  // tune_allocator's, as checks changed it
    // Not an error (the rest of the file is encoded), but the types of
    // these units are missing from the output: say so, as pahole does.
    if (stats.units_split)
      std::fprintf(stderr,
                   "btfc: %s: warning: %zu skeleton unit%s (split DWARF, -gsplit-dwarf) not encoded: the types are "
                   "in .dwo files, which btfc does not follow; encode the .dwo files instead\n",
                   input.c_str(), stats.units_split, stats.units_split > 1 ? "s" : "");
    // pahole writes nothing when there is nothing to encode (1.2).
    if (out.type_count() == 0) return stats;
    PhaseTimer t("write");
    if (!out_path.empty()) {
      // Detached output is the split BTF as is: pahole 1.31 ignores
      // distilled_base there (only its ELF path distills).
      btf::write_raw_file(out_path, out, elf->big_endian());
    } else {
      write_into_elf(*elf, out, input, o.distilled_base);
    }
    stats.written = true;
    stats.files_written = 1;
  } catch (Error& e) {
    e.with_file(input);
    throw;
  }
  return stats;
}

void add(EncodeStats& sum, const EncodeStats& s) {
  sum.units += s.units;
  sum.units_skipped += s.units_skipped;
  sum.units_split += s.units_split;
  sum.dies += s.dies;
  sum.types_before_dedup += s.types_before_dedup;
  sum.types_after_dedup += s.types_after_dedup;
  sum.files += s.files;
  sum.files_written += s.files_written;
  sum.files_by_unit += s.files_by_unit;
  sum.files_copied += s.files_copied;
  sum.files_redone += s.files_redone;
  sum.files_names_by_offset += s.files_names_by_offset;
  sum.files_names_redone += s.files_names_redone;
  sum.written |= s.written;
}

bool is_batch(const EncodeOptions& o) {
  if (o.inputs.size() > 1 || !o.output_dir.empty()) return true;
  std::error_code ec;
  return std::filesystem::is_directory(o.input, ec);
}

}  // namespace

std::optional<std::string_view> module_stem(std::string_view name) {
  // As the kernel installs them: plain, or packed (elf/packed.h).
  for (std::string_view suffix : {".ko", ".ko.xz", ".ko.zst", ".ko.gz"})
    if (name.size() > suffix.size() && name.ends_with(suffix)) return name.substr(0, name.size() - suffix.size());
  return std::nullopt;
}

std::vector<std::string> batch_inputs(const std::vector<std::string>& args) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const std::string& a : args) {
    std::error_code ec;
    if (!fs::is_directory(a, ec)) {
      if (!fs::exists(a, ec)) throw Error(a + ": no such file or directory");
      files.push_back(a);
      continue;
    }
    std::vector<std::string> found;
    fs::recursive_directory_iterator it(a, ec), end;
    if (ec) throw Error(a + ": " + ec.message());
    for (; it != end; it.increment(ec)) {
      if (ec) throw Error(a + ": " + ec.message());
      const fs::path& p = it->path();
      if (module_stem(p.filename().string()) && it->is_regular_file(ec)) found.push_back(p.string());
    }
    // A folder without modules is a wrong path far more often than a
    // wanted no-op: say so rather than succeed having done nothing.
    if (found.empty()) throw Error(a + ": no module (*.ko, or *.ko.xz, .zst, .gz packed) in this folder or below it");
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

namespace {

// The device and inode of `path` (following symlinks), {0, 0} if it does
// not exist.
std::pair<dev_t, ino_t> file_id(const std::string& path) {
  struct stat st;
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return {0, 0};
  return {st.st_dev, st.st_ino};
}

}  // namespace

std::string batch_output_path(const std::string& dir, const std::string& file) {
  std::string name = std::filesystem::path(file).filename().string();
  if (std::optional<std::string_view> stem = module_stem(name)) name = *stem;
  return (std::filesystem::path(dir) / (name + ".btf")).string();
}

EncodeStats encode(const EncodeOptions& o) {
  // A detached output over FILE or BASE would destroy what the user meant
  // to read (pahole writes over it and leaves FILE as raw BTF).
  if (const std::pair<dev_t, ino_t> out = file_id(o.detached_path); out.second) {
    for (const std::string* read : {&o.input, &o.base_path})
      if (file_id(*read) == out)
        throw Error(o.detached_path + ": the output file is " + (read == &o.input ? "FILE" : "the base") + " ('" +
                    *read + "'); name another file");
  }
  // A single module caches what it builds from its base for the next
  // run (a kernel build runs one per module); batch mode builds it once.
  if (!is_batch(o))
    return encode_file(o, o.input, o.detached_path, BaseInput{.path = o.base_path, .cache_dir = o.base_cache_dir},
                       /*set_threads=*/true);
  std::vector<std::string> files = batch_inputs(o.inputs);
  // In place, a file named twice (the same path again, a symlink, a hard
  // link) is encoded once: two threads would otherwise rewrite it at once,
  // one of them while the other reads it. Every name sees the result.
  if (o.output_dir.empty()) {
    std::set<std::pair<dev_t, ino_t>> seen;
    std::erase_if(files, [&](const std::string& f) {
      const std::pair<dev_t, ino_t> id = file_id(f);
      return id.second && !seen.insert(id).second;
    });
  }
  // A module file holds about four times its .debug_info (relocations,
  // the other debug sections): the batch's tables, modules one after the
  // other, are large once the files are (a sample of 403 small modules
  // after pahole: 0.72 -> 0.61 s in small pages).
  std::vector<uintmax_t> size(files.size());
  uintmax_t total_size = 0;
  for (size_t i = 0; i < files.size(); i++) {
    std::error_code ec;
    size[i] = std::filesystem::file_size(files[i], ec);
    if (ec) size[i] = 0;  // its error comes when it is opened
    total_size += size[i];
  }
  set_jobs(o.jobs);
  tune_allocator(jobs(), total_size >= 4 * kLargeDwarf);
  // Read and indexed for dedup once; every module's dedup starts from it.
  BaseInput shared_base{.path = o.base_path};
  if (shared_base.wanted()) {
    PhaseTimer t("base");
    shared_base.complete();
  }

  std::vector<std::string> outputs(files.size());
  if (!o.output_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.output_dir, ec);
    if (ec) throw Error(o.output_dir + ": " + ec.message());
    // Two modules of one name would overwrite each other's result, and an
    // output that is already an input or the base (`a.ko` writes `a.btf`,
    // given as an input too; a symlink) would be destroyed before it is read.
    std::set<std::string> seen;
    std::set<std::pair<dev_t, ino_t>> read;
    read.insert(file_id(o.base_path));
    for (const std::string& f : files) read.insert(file_id(f));
    for (size_t i = 0; i < files.size(); i++) {
      outputs[i] = batch_output_path(o.output_dir, files[i]);
      if (!seen.insert(outputs[i]).second)
        throw Error(files[i] + ": another input also writes " + outputs[i]);
      if (std::pair<dev_t, ino_t> id = file_id(outputs[i]); id.second && read.count(id))
        throw Error(files[i] + ": its output " + outputs[i] + " is an input or the base; choose another --output-dir");
    }
  }
  // Biggest files first: a long module started last would leave the other
  // threads idle at the end. The order of work changes no output.
  std::vector<size_t> order(files.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return size[a] > size[b]; });

  std::vector<EncodeStats> per(files.size());
  std::vector<std::string> errors(files.size());
  parallel_for(files.size(), [&](size_t k) {
    size_t i = order[k];
    try {
      per[i] = encode_file(o, files[i], outputs[i], BaseInput{.btf = shared_base.btf, .prepared = shared_base.prepared});
    } catch (const Error& e) {
      errors[i] = e.what();
    } catch (const std::bad_alloc&) {
      errors[i] = files[i] + ": out of memory";
    }
  });
  EncodeStats sum;
  size_t failed = 0;
  for (size_t i = 0; i < files.size(); i++) {
    add(sum, per[i]);
    if (errors[i].empty()) continue;
    std::fprintf(stderr, "btfc: %s\n", errors[i].c_str());
    failed++;
  }
  sum.files = files.size();
  sum.threads = jobs();
  sum.pages = page_choice();
  if (failed) throw Error(std::to_string(failed) + " of " + std::to_string(files.size()) + " files failed");
  return sum;
}

}  // namespace btfc::convert
