// `btfc encode [FLAGS] FILE`: DWARF to BTF with pahole 1.31's flags, and
// pahole mode: when btfc runs under the name `pahole` (a symlink), it takes
// pahole's command line as a kernel build passes it (`pahole -J ...`,
// `pahole --version`) and refuses, by name, any pahole option it does not
// implement (exit status 2), so a build never gets different output
// silently; without -J or --btf_encode_detached it prints layouts, as
// pahole does (`btfc layout`'s options, layout.cc), never encoding into
// FILE.
#include <cstdio>
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "base/timer.h"
#include "cli/command.h"
#include "convert/encode.h"
#include "convert/options.h"

namespace btfc::cli {

int run_pahole_layout(std::span<const std::string_view> args);  // layout.cc

namespace {

// Whether a pahole command line encodes (-J, alone or bundled as the
// encoder takes it with -V and -j[N], --btf_encode, --btf_encode_detached)
// or asks what the encoder answers (versions, features); else pahole
// prints layouts.
bool for_the_encoder(std::span<const std::string_view> args) {
  for (std::string_view a : args) {
    if (a == "--") break;
    if (a == "--btf_encode" || a.starts_with("--btf_encode_detached") || a == "--version" ||
        a == "--numeric_version" || a == "--supported_btf_features")
      return true;
    if (a.size() < 2 || a[0] != '-' || a[1] == '-') continue;
    for (char c : a.substr(1)) {
      if (c == 'J') return true;
      if (c != 'V') break;  // -j's count, or another option: no -J in this bundle
    }
  }
  return false;
}

int run(Args args, bool pahole_mode) {
  std::vector<std::string_view> list(args.begin(), args.end());
  if (pahole_mode && !for_the_encoder(list)) return run_pahole_layout(list);
  convert::EncodeOptions o;
  try {
    convert::parse_encode_args(list, o, pahole_mode);
  } catch (const convert::OptionError& e) {
    throw UsageError{e.what()};
  }
  switch (o.action) {
    case convert::Action::SupportedFeatures:
      std::printf("%s\n", convert::supported_btf_features().c_str());
      return 0;
    case convert::Action::Version:
      std::printf(pahole_mode ? "v1.31\n" : "btfc 0.1.0 (follows pahole v1.31)\n");
      return 0;
    case convert::Action::NumericVersion:
      std::printf("131\n");
      return 0;
    case convert::Action::Encode:
      break;
  }
  // pahole takes one file; a folder is btfc's batch mode, which would
  // rewrite every module under it in place.
  std::error_code ec;
  if (pahole_mode && std::filesystem::is_directory(o.input, ec))
    throw Error("is a folder: pahole encodes one FILE (btfc encode takes folders)").with_file(o.input);
  record_phase_stats(o.stats);
  convert::EncodeStats s = convert::encode(o);
  if (o.stats) {
    if (s.files > 1) std::fprintf(stderr, "files        %zu (%zu written)\n", s.files, s.files_written);
    std::fprintf(stderr, "threads      %u\n", s.threads);
    if (s.pages.turned_off_later)
      std::fprintf(stderr,
                   "pages        huge, small after %u check%s (fresh memory: huge pages %.2f ms/MB, small %.2f ms/MB; "
                   "then huge %.2f ms/MB)\n",
                   s.pages.checks_passed + 1, s.pages.checks_passed ? "s" : "", s.pages.probe.huge_ms_per_mb,
                   s.pages.probe.small_ms_per_mb, s.pages.late_huge_ms_per_mb);
    else if (s.pages.probed)
      std::fprintf(stderr, "pages        %s (fresh memory: huge pages %.2f ms/MB, small %.2f ms/MB)\n",
                   s.pages.small_pages ? "small" : "huge", s.pages.probe.huge_ms_per_mb, s.pages.probe.small_ms_per_mb);
    else
      std::fprintf(stderr, "pages        huge (small input, no probe)\n");
    std::fprintf(stderr, "units        %zu (%zu skipped)\n", s.units, s.units_skipped);
    if (s.files_by_unit)
      std::fprintf(stderr, "by unit      %zu file%s relocated unit by unit\n", s.files_by_unit, s.files_by_unit > 1 ? "s" : "");
    if (s.files_copied)
      std::fprintf(stderr, "by unit      %zu file%s copied unit by unit\n", s.files_copied, s.files_copied > 1 ? "s" : "");
    if (s.files_redone)
      std::fprintf(stderr, "redone       %zu file%s deduplicated in stages had the type passes run again whole\n",
                   s.files_redone, s.files_redone > 1 ? "s" : "");
    if (s.files_names_by_offset)
      std::fprintf(stderr, "names        %zu file%s deduplicated in groups with .debug_str offsets as names\n",
                   s.files_names_by_offset, s.files_names_by_offset > 1 ? "s" : "");
    if (s.files_names_redone)
      std::fprintf(stderr, "names        %zu file%s encoded again with names by text (.debug_str names a text twice)\n",
                   s.files_names_redone, s.files_names_redone > 1 ? "s" : "");
    if (s.base_cache != btf::BaseCacheUse::Off)
      std::fprintf(stderr, "base cache   %s\n", btf::base_cache_use_name(s.base_cache));
    std::fprintf(stderr, "DIEs         %llu\n", static_cast<unsigned long long>(s.dies));
    std::fprintf(stderr, "types        %llu before dedup, %llu after\n",
                 static_cast<unsigned long long>(s.types_before_dedup),
                 static_cast<unsigned long long>(s.types_after_dedup));
    print_phase_stats(stderr);
  }
  return 0;
}

int run_encode(Args args) { return run(args, false); }

// The flags both modes take (pahole's spellings), for both helps.
#define BTFC_ENCODE_FLAGS                                                       \
  "  -J, --btf_encode             encode BTF (btfc encode always does)\n"       \
  "  --btf_encode_detached=OUT    write raw BTF to OUT; without it, FILE's\n"   \
  "                               .BTF section is replaced (through a\n"        \
  "                               temporary file renamed at the end)\n"         \
  "  --btf_base=BASE              split BTF on BASE (raw BTF or an ELF)\n"      \
  "  -j[N], --jobs[=N]            N threads (alone: the cores); a file gets\n"  \
  "                               at most one per MB of .debug_info; the\n"     \
  "                               output is the same for any N\n"               \
  "  --btf_features=LIST          features to encode: names (below),\n"        \
  "                               default, +LIST; unknown names ignored\n"      \
  "  --btf_features_strict=LIST   the same; an unknown name is an error\n"      \
  "  --supported_btf_features     print the feature names\n"                    \
  "  --btf_gen_floats  --btf_gen_optimized  --btf_gen_all\n"                    \
  "  --btf_encode_force  --btf_attributes  --encode_btf_global_vars\n"          \
  "  --reproducible_build\n"                                                    \
  "  --skip_encoding_btf_{vars,decl_tag,type_tag,enum64,inconsistent_proto}\n"  \
  "                               pahole's switches for single features\n"      \
  "  --lang=LIST, --lang_exclude=LIST\n"                                        \
  "                               only / not the units in these languages\n"    \
  "                               (also PAHOLE_LANG_EXCLUDE=LIST)\n"            \
  "  --kabi_prefix=PREFIX         as pahole\n"                                  \
  "  -V, --verbose, --quiet       accepted; nothing is printed on success\n"    \
  "  --version, --numeric_version the pahole version (v1.31, 131)\n"            \
  "Features: encode_force var float decl_tag type_tag enum64 optimized_func\n"  \
  "consistent_func decl_tag_kfuncs (the default ones), reproducible_build\n"    \
  "distilled_base global_var attributes.\n"

constexpr std::string_view kEncodeHelp =
    "DWARF to BTF as pahole 1.31 -J does, with its flags and encoding rules.\n"
    "Several FILEs, or a folder (searched for *.ko, *.ko.xz, .zst, .gz), are\n"
    "encoded in one process sharing the parsed base (batch mode), each as it\n"
    "would be alone: in place, or with --output-dir (--btf_encode_detached,\n"
    "one output, is refused). A packed FILE (.xz, .zst, .gz) is read unpacked.\n\n"
    BTFC_ENCODE_FLAGS
    "btfc's own:\n"
    "  --output-dir=DIR             batch mode: raw BTF into DIR/NAME.btf for\n"
    "                               each NAME.ko, FILEs left as they are\n"
    "  --stats                      units, DIEs, types, and per phase the wall\n"
    "                               and CPU time and peak RSS, on stderr\n"
    "BTFC_BASE_CACHE=DIR in the environment keeps what one run builds from BASE\n"
    "for the next (a kernel build's one run per module).\n";

RegisterCommand reg{{"encode", "encode [-J] [--btf_encode_detached=OUT] [--btf_base=BASE] [-j[N]] [--btf_features=LIST] "
                               "[pahole flags] [--stats] FILE | btfc encode [FLAGS] [--output-dir=DIR] FILE|DIR...",
                     "DWARF to BTF as pahole 1.31 -J does", run_encode, kEncodeHelp}};

}  // namespace

int run_pahole(Args args) { return run(args, true); }

extern const std::string_view kPaholeHelp;
const std::string_view kPaholeHelp =
    "Usage: pahole [OPTION...] FILE\n"
    "btfc in pahole mode: with -J or --btf_encode_detached, pahole 1.31's BTF\n"
    "encoder and its flags; without them, type layouts as pahole prints them\n"
    "(btfc layout), with the layout options below. pahole's other options are\n"
    "refused by name.\n\n"
    BTFC_ENCODE_FLAGS
    "Layouts (without -J):\n"
    "  -C, --class_name=NAMES       only these types (NAME,... or file://PATH)\n"
    "  -F, --format_path=LIST       dwarf, btf: the first that FILE has and\n"
    "                               reads (default: DWARF if FILE has it)\n"
    "  --btf_base=BASE              FILE's BTF, split on BASE\n"
    "  -i, --contains=NAME  -d, --recursive  -f, --find_pointers_to=NAME\n"
    "  -u, --defined_in  --skip_missing\n"
    "  -E, --expand_types  -q, --quiet  -r, --rel_offset  --hex  -s, --sizes\n"
    "  -n, --nr_members  -N, --class_name_len  -T, --nr_definitions\n"
    "  -m, --nr_methods  -R, --reorganize  -P, --packable  -S (alone)\n"
    "  -t, --separator=C  -V, --verbose  --sort  --flat_arrays  -a, --anon_include\n"
    "  -A, --nested_anon_include  --show_private_classes  --structs  --unions\n"
    "  --packed  --with_flexible_array  -x, --exclude=PREFIX\n"
    "  -y, --prefix_filter=PREFIX  -H, --holes=N  -B, --bit_holes=N\n"
    "  -z, --hole_size_ge=N  -X, --cu_exclude=PREFIX  --first_obj_only\n"
    "  -I, --show_decl_info  -D, --decl_exclude=PREFIX\n"
    "  -M, --show_only_data_members  --classes_as_structs\n"
    "  -l, --show_first_biggest_size_base_type_member\n"
    "  --suppress_aligned_attribute  --suppress_force_paddings\n"
    "  --suppress_packed  --cacheline_size=N  --lang=LIST  --lang_exclude=LIST\n"
    "  -j[N], --jobs[=N]            as pahole\n"
    "  No FILE: the running kernel's BTF; `pahole NAME`: NAME's layout there.\n"
    "  -?, --help, --usage          this text\n";

}  // namespace btfc::cli
