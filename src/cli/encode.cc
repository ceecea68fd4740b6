// `btfc encode [FLAGS] FILE`: DWARF to BTF with pahole 1.31's flags, and
// pahole mode: when btfc runs under the name `pahole` (a symlink), it takes
// pahole's command line as a kernel build passes it (`pahole -J ...`,
// `pahole --version`) and refuses, by name, any pahole option it does not
// implement (exit status 2), so a build never gets different output
// silently.
#include <cstdio>
#include <string_view>
#include <vector>

#include "base/timer.h"
#include "cli/command.h"
#include "convert/encode.h"
#include "convert/options.h"

namespace btfc::cli {

namespace {

int run(Args args, bool pahole_mode) {
  std::vector<std::string_view> list(args.begin(), args.end());
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
  convert::EncodeStats s = convert::encode(o);
  if (o.stats) {
    if (s.files > 1) std::fprintf(stderr, "files        %zu (%zu written)\n", s.files, s.files_written);
    std::fprintf(stderr, "threads      %u\n", s.threads);
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

RegisterCommand reg{{"encode", "encode [-J] [--btf_encode_detached=OUT] [--btf_base=BASE] [-j[N]] [--btf_features=LIST] "
                               "[pahole flags] [--stats] FILE | btfc encode [FLAGS] [--output-dir=DIR] FILE|DIR...",
                     "DWARF to BTF as pahole 1.31 -J does", run_encode}};

}  // namespace

int run_pahole(Args args) { return run(args, true); }

}  // namespace btfc::cli
