// What an encoding run does, and pahole 1.31's command line that says it.
//
//   convert::EncodeOptions o;
//   convert::parse_encode_args(args, o);   // "-J --btf_gen_floats -j ... FILE"
//   if (o.action == convert::Action::Encode) convert::encode(o);
//
// One bool per --btf_features feature, spelled as pahole spells the feature
// (`float_` because float is a keyword). The parser follows pahole's rules
// (pahole-rules.md 5.1, 5.2): without any --btf_features the legacy
// defaults hold and legacy flags toggle them; the first --btf_features
// resets every feature to off and enables the listed ones (`default`, or
// `+x` for default plus x); unknown feature names are ignored unless
// --btf_features_strict. The functions and variables code (`funcs`) reads
// these fields only.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace btfc::convert {

enum class Action {
  Encode,             // the normal run
  SupportedFeatures,  // --supported_btf_features: print the list, exit 0
  Version,            // --version (pahole mode prints v1.31)
  NumericVersion,     // --numeric_version
};

struct EncodeOptions {
  // -- --btf_features switches (legacy defaults: no --btf_features given) --
  bool encode_force = false;        // invalid variable names are skipped, not fatal
  bool var = true;                  // per-CPU variables (VAR + DATASEC)
  bool float_ = false;              // FLOAT kind (else floats are INT enc 0)
  bool decl_tag = true;             // DECL_TAG from btf_decl_tag annotations
  bool type_tag = true;             // TYPE_TAG from btf_type_tag annotations
  bool enum64 = true;               // ENUM64 for enums wider than 4 bytes
  bool optimized_func = false;      // no-op in 1.31
  bool consistent_func = false;     // drop inconsistent / unexpected-register / ambiguous functions
  bool decl_tag_kfuncs = false;     // bpf_kfunc DECL_TAGs from .BTF_ids
  bool reproducible_build = false;  // no-op: output never depends on -j
  bool distilled_base = false;      // split BTF into an ELF: also .BTF.base
  bool global_var = false;          // VARs of every PROGBITS/NOBITS section
  bool attributes = false;          // kind_flag=1 type tags (kfunc arena)

  // -- what to read and write --
  std::string input;                // FILE (the first one in batch mode)
  std::vector<std::string> inputs;  // every FILE given; several, or a directory: batch mode
  std::string output_dir;           // --output-dir=DIR: batch results as DIR/<module>.btf
  std::string detached_path;        // --btf_encode_detached=F; empty: into FILE's .BTF
  std::string base_path;            // --btf_base: raw BTF or an ELF with .BTF; split output
  std::string base_cache_dir;       // env BTFC_BASE_CACHE: where a single module's base is cached (btf/base_cache.h)
  std::vector<std::string> lang_include;  // --lang (DW_LANG names); empty = all
  std::vector<std::string> lang_exclude;  // --lang_exclude (+ env PAHOLE_LANG_EXCLUDE)
  std::string kabi_prefix;          // --kabi_prefix=S
  unsigned jobs = 1;                // threads (a small single file: fewer, encode()); 0: -j alone, the cores
  bool stats = false;               // --stats: counts, phase times, peak RSS on stderr
  bool verbose = false;             // -V
  bool load_alt = true;             // read the dwz file the input names (off for untrusted bytes: fuzzing)

  Action action = Action::Encode;
  bool btf_features_seen = false;   // a --btf_features* option reset the switches
};

// A command-line mistake; the front end prints it and exits with status 2.
struct OptionError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Fills `o` from the arguments after the command name (`btfc encode ARGS`,
// or pahole's argv[1..]). `pahole_mode`: options pahole has but btfc does
// not implement are reported by name ("pahole option --sort is not supported
// by btfc"), and as pahole encodes only when -J or --btf_encode_detached
// says so, their absence is an error too. Throws OptionError.
void parse_encode_args(const std::vector<std::string_view>& args, EncodeOptions& o, bool pahole_mode = false);

// Applies a --btf_features list ("default,global_var", "+attributes").
// Unknown names are ignored, or with `strict` an OptionError naming them.
void apply_btf_features(std::string_view list, EncodeOptions& o, bool strict);

// "encode_force,var,float,..." in pahole's table order (what
// --supported_btf_features prints, without the newline).
std::string supported_btf_features();

// The DW_LANG code of a --lang name ("c", "c89", "rust", "asm" ...), or -1.
int language_code(std::string_view name);

// True if a unit with DW_AT_language `lang` is dropped by --lang/--lang_exclude.
bool language_excluded(const EncodeOptions& o, uint16_t lang);

}  // namespace btfc::convert
