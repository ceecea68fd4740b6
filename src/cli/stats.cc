// `btfc stats FILE`: how many DIEs of each tag FILE's DWARF holds, as
// `DW_TAG_<name> <count>` lines sorted by name, then `units N` and `dies N`.
// A stripped FILE's DWARF is its debug file's, found as encode finds it
// (dwarf/debug_file.h).
// The counts match what llvm-dwarfdump prints (the tests check that), so
// this is the quick proof that the reader sees every DIE.
//
// It is also a full validation pass: every attribute of every DIE is
// decoded, strings and references resolved, so bad input is reported here
// rather than later in a conversion. Units run in parallel; counts are kept
// per unit and per abbreviation and summed in unit order, so the output and
// the first error reported do not depend on -j.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "base/parallel.h"
#include "cli/command.h"
#include "dwarf/debug_file.h"
#include "dwarf/dwarf_file.h"
#include "elf/elf_file.h"

namespace btfc::cli {
namespace {

// Parses `-j N`, `-jN` and `--jobs N`; returns the remaining positional args.
std::vector<std::string> parse_jobs(Args args) {
  std::vector<std::string> rest;
  for (size_t i = 0; i < args.size(); i++) {
    std::string a = args[i];
    std::string value;
    if (a == "-j" || a == "--jobs") {
      if (i + 1 >= args.size()) throw UsageError{a + " needs a number"};
      value = args[++i];
    } else if (a.rfind("-j", 0) == 0 && a.size() > 2) {
      value = a.substr(2);
    } else if (a.rfind("--jobs=", 0) == 0) {
      value = a.substr(7);
    } else if (a.size() > 1 && a[0] == '-') {
      throw UsageError{"unknown option " + a};
    } else {
      rest.push_back(a);
      continue;
    }
    set_jobs(parse_number("-j", value, 4096));
  }
  return rest;
}

int run_stats(Args args) {
  std::vector<std::string> files = parse_jobs(args);
  if (files.size() != 1) throw UsageError{"expected one FILE"};
  const std::string& path = files[0];
  const std::unique_ptr<elf::ElfFile> source = dwarf::dwarf_source(elf::ElfFile::open(path));
  std::map<std::string, uint64_t> by_name;
  uint64_t dies = 0;
  size_t units = 0;
  try {
    dwarf::DwarfFile dw(*source);
    units = dw.units().size();
    // tags[i]: DIEs of unit i by tag, folded as each unit is walked from
    // decode_unit's counts by abbreviation, which span all the
    // declarations of the unit's abbreviation cache (one buffer per
    // thread, not one per unit).
    std::vector<std::map<uint32_t, uint64_t>> tags(units);
    parallel_for(units, [&](size_t i) {
      thread_local std::vector<uint64_t> counts;
      dwarf::decode_unit(dw, dw.units()[i], counts);
      std::span<const dwarf::Abbrev> abbrevs = dw.units()[i].abbrevs->declarations();
      for (size_t j = 0; j < counts.size(); j++)
        if (counts[j]) tags[i][abbrevs[j].tag] += counts[j];
    });
    std::map<uint32_t, uint64_t> by_tag;
    for (const std::map<uint32_t, uint64_t>& unit_tags : tags)
      for (auto [tag, n] : unit_tags) by_tag[tag] += n;
    for (auto [tag, n] : by_tag) {
      by_name[dwarf::tag_name(tag)] += n;
      dies += n;
    }
  } catch (Error& e) {
    throw e.with_file(source->path());  // the file the DWARF is in: the debug file, if one was found
  }
  for (const auto& [name, n] : by_name) std::printf("%s %llu\n", name.c_str(), static_cast<unsigned long long>(n));
  std::printf("units %zu\ndies %llu\n", units, static_cast<unsigned long long>(dies));
  return 0;
}

RegisterCommand reg{{"stats", "stats [-j N] FILE", "count DWARF DIEs per tag", run_stats,
                     "Decodes every attribute of every DIE of FILE's DWARF and prints\n"
                     "`DW_TAG_<name> <count>` lines sorted by name, then `units N` and `dies N`.\n"
                     "A stripped FILE's DWARF is read from its debug file, found by build ID or\n"
                     ".gnu_debuglink as encode finds it.\n"
                     "Bad DWARF gives one line naming the file, section and offset, exit 1.\n\n"
                     "  -j N, --jobs N   N threads (the output is the same for any N)\n"}};

}  // namespace
}  // namespace btfc::cli
