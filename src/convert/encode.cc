// The encoder's passes (see encode.h). Each pass is a block with its
// PhaseTimer; the only parallel one is the per-unit conversion.
#include "convert/encode.h"

#include <memory>
#include <optional>

#include "base/atomic_file.h"
#include "base/parallel.h"
#include "base/timer.h"
#include "btf/dedup.h"
#include "btf/merge.h"
#include "btf/reader.h"
#include "btf/writer.h"
#include "convert/unit_types.h"
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

btf::Btf build(const EncodeOptions& o, const elf::ElfFile& elf, const btf::Btf* base, EncodeStats& stats) {
  FunctionOptions fopts{.consistent_func = o.consistent_func, .decl_tag = o.decl_tag,
                        .decl_tag_kfuncs = o.decl_tag_kfuncs, .attributes = o.attributes};
  VariableOptions vopts{.percpu = o.var, .global_var = o.global_var, .encode_force = o.encode_force,
                        .decl_tag = o.decl_tag};
  std::optional<dwarf::DwarfFile> dw;
  std::optional<FunctionIndex> functions;
  std::optional<VariableIndex> variables;
  {
    PhaseTimer t("read");
    dw.emplace(elf);
    functions.emplace(elf, FunctionIndex::Options{.kfuncs = o.decl_tag_kfuncs});
    variables.emplace(elf, vopts);
  }

  const std::vector<dwarf::Unit>& units = dw->units();
  std::vector<UnitResult> results(units.size());
  {
    PhaseTimer t("convert");
    parallel_for(units.size(), [&](size_t i) {
      UnitResult& r = results[i];
      if (skip_unit(units[i], o)) {
        r.skipped = true;
        return;
      }
      UnitContext ctx{elf, *dw, units[i], o, i};
      UnitTypes types(ctx, r.types);
      types.convert_all();  // types, the index `int`, struct/typedef decl tags
      collect_functions(*dw, units[i], *functions, types, fopts, r.funcs);
      collect_variables(*dw, units[i], *variables, types, vopts, r.vars);  // VARs after the types
      r.dies = types.dies_walked();
    });
  }

  btf::Btf out = base ? btf::Btf(base) : btf::Btf();
  {
    PhaseTimer t("merge");
    size_t words = 0, strings = 0, types = 0;
    for (const UnitResult& r : results) {
      words += r.types.words().size();
      strings += r.types.strings().size();
      types += r.types.type_count();
    }
    out.reserve(types, words, strings / 4);
    for (UnitResult& r : results) {
      stats.units++;
      if (r.skipped) {
        stats.units_skipped++;
        continue;
      }
      stats.dies += r.dies;
      // Unit ids >= start_id() move to where the unit lands in `out`.
      btf::TypeId start = r.types.start_id();
      btf::TypeId first = btf::append(out, r.types);
      auto shift = [&](btf::TypeId id) { return id >= start ? id - start + first : id; };
      r.funcs.remap_type_ids(shift);
      r.vars.remap_type_ids(shift);
      r.types = btf::Btf();  // free the unit's table as soon as it is merged
    }
  }
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
    if (out.type_count()) btf::dedup(out);
  }
  stats.types_after_dedup = out.type_count();
  return out;
}

}  // namespace

btf::Btf build_btf(const EncodeOptions& o, const btf::Btf* base, EncodeStats* stats) {
  EncodeStats local;
  std::unique_ptr<elf::ElfFile> elf;
  try {
    elf = elf::ElfFile::open(o.input);
    return build(o, *elf, base, stats ? *stats : local);
  } catch (Error& e) {
    e.with_file(o.input);
    throw;
  }
}

EncodeStats encode(const EncodeOptions& o) {
  EncodeStats stats;
  set_jobs(o.jobs);
  std::optional<btf::Btf> base;
  if (!o.base_path.empty()) {
    PhaseTimer t("base");
    base = btf::read_file(o.base_path);
  }
  std::unique_ptr<elf::ElfFile> elf;
  try {
    elf = elf::ElfFile::open(o.input);
    btf::Btf out = build(o, *elf, base ? &*base : nullptr, stats);
    // pahole writes nothing when there is nothing to encode (1.2).
    if (out.type_count() == 0) return stats;
    PhaseTimer t("write");
    std::vector<uint8_t> bytes = btf::write_raw(out, elf->big_endian());
    if (!o.detached_path.empty()) {
      write_file_atomic(o.detached_path, bytes);
    } else {
      elf::write_with_section(*elf, ".BTF", bytes, o.input);
    }
    stats.written = true;
  } catch (Error& e) {
    e.with_file(o.input);
    throw;
  }
  return stats;
}

}  // namespace btfc::convert
