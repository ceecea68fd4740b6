// pahole 1.31's encoding options: the --btf_features table and the
// command-line parser (pahole-rules.md sections 5.1 and 5.2). The parser
// accepts argp's spellings pahole users write: `--opt=V` and `--opt V` for
// options with a mandatory value, `-jN`/`--jobs=N` only attached for the
// optional one, short flags bundled as `-Jj`.
#include "convert/options.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "dwarf/constants.h"

namespace btfc::convert {

namespace {

struct Feature {
  std::string_view name;
  bool EncodeOptions::*field;
  bool in_default;
};

// pahole's table order (what --supported_btf_features prints).
constexpr Feature kFeatures[] = {
    {"encode_force", &EncodeOptions::encode_force, true},
    {"var", &EncodeOptions::var, true},
    {"float", &EncodeOptions::float_, true},
    {"decl_tag", &EncodeOptions::decl_tag, true},
    {"type_tag", &EncodeOptions::type_tag, true},
    {"enum64", &EncodeOptions::enum64, true},
    {"optimized_func", &EncodeOptions::optimized_func, true},
    {"consistent_func", &EncodeOptions::consistent_func, true},
    {"decl_tag_kfuncs", &EncodeOptions::decl_tag_kfuncs, true},
    {"reproducible_build", &EncodeOptions::reproducible_build, false},
    {"distilled_base", &EncodeOptions::distilled_base, false},
    {"global_var", &EncodeOptions::global_var, false},
    {"attributes", &EncodeOptions::attributes, false},
};

void split_list(std::string_view list, std::vector<std::string>& out) {
  while (!list.empty()) {
    size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    if (!item.empty()) out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
}

void check_languages(const std::vector<std::string>& names, const char* option) {
  for (const std::string& n : names)
    if (language_code(n) < 0) throw OptionError(std::string(option) + ": unknown language '" + n + "'");
}

// pahole options btfc does not implement. In pahole mode they are named in
// the error rather than being silently ignored: a kernel build that passes
// one would otherwise get different BTF without noticing.
constexpr std::string_view kPaholeOnly[] = {
    "-a", "--anon_include", "-A", "--nested_anon_include", "-B", "--bit_holes", "--classes_as_structs",
    "--compile", "--contains_enumerator", "--count", "-c", "--cacheline_size", "-C", "--class_name", "-d",
    "--recursive", "-D", "--decl_exclude", "-E", "--expand_types", "--first_obj_only",
    "--fixup_silly_bitfields", "--flat_arrays", "-f", "--find_pointers_to", "-F", "--format_path",
    "--hashbits", "--header_type", "--hex", "-H", "--holes", "-i", "--contains", "-I", "--show_decl_info",
    "-l", "--show_first_biggest_size_base_type_member", "-m", "--nr_methods", "-M",
    "--show_only_data_members", "-n", "--nr_members", "-N", "--class_name_len", "--packed", "--padding_ge",
    "--prettify", "--ptr_table_stats", "-p", "--expand_pointers", "-P", "--packable", "--range",
    "--running_kernel_vmlinux", "-r", "--rel_offset", "-R", "--reorganize", "--seek_bytes",
    "--show_private_classes", "--size_bytes", "--skip", "--skip_emitting_atomic_typedefs",
    "--skip_missing", "--sort", "--structs", "--suppress_aligned_attribute", "--suppress_force_paddings",
    "--suppress_packed", "-s", "--sizes", "-S", "--show_reorg_steps", "-t", "--separator", "-T",
    "--nr_definitions", "--unions", "-u", "--defined_in", "--with_embedded_flexible_array",
    "--with_flexible_array", "-w", "--word_size", "-x", "--exclude", "-X", "--cu_exclude", "-y",
    "--prefix_filter", "-z", "--hole_size_ge", "-Z", "--ctf_encode", "-e", "--expand"};

}  // namespace

std::string supported_btf_features() {
  std::string s;
  for (const Feature& f : kFeatures) {
    if (!s.empty()) s += ',';
    s += f.name;
  }
  return s;
}

int language_code(std::string_view name) { return dwarf::language_code(name); }

bool language_excluded(const EncodeOptions& o, uint16_t lang) {
  auto in = [&](const std::vector<std::string>& list) {
    for (const std::string& n : list)
      if (language_code(n) == lang) return true;
    return false;
  };
  if (!o.lang_include.empty() && !in(o.lang_include)) return true;
  return in(o.lang_exclude);
}

void apply_btf_features(std::string_view list, EncodeOptions& o, bool strict) {
  if (!o.btf_features_seen) {
    // The first --btf_features resets every switch: a feature not listed
    // is off, even the legacy defaults (var, decl_tag, type_tag, enum64).
    for (const Feature& f : kFeatures) o.*f.field = false;
    o.btf_features_seen = true;
  }
  std::string_view rest = list;
  if (!rest.empty() && rest[0] == '+') {
    for (const Feature& f : kFeatures)
      if (f.in_default) o.*f.field = true;
    rest.remove_prefix(1);
  }
  std::vector<std::string> names;
  split_list(rest, names);
  for (const std::string& n : names) {
    if (n == "default") {
      for (const Feature& f : kFeatures)
        if (f.in_default) o.*f.field = true;
      continue;
    }
    bool known = false;
    for (const Feature& f : kFeatures) {
      if (f.name == n) {
        o.*f.field = true;
        known = true;
      }
    }
    if (!known && strict)
      throw OptionError("Feature '" + n + "' in '" + std::string(list) +
                        "' is not supported.  Supported BTF features are:\n" + supported_btf_features());
  }
}

void parse_encode_args(const std::vector<std::string_view>& args, EncodeOptions& o, bool pahole_mode) {
  if (const char* env = std::getenv("PAHOLE_LANG_EXCLUDE")) split_list(env, o.lang_exclude);
  if (const char* env = std::getenv("BTFC_BASE_CACHE")) o.base_cache_dir = env;
  bool encode_asked = false;  // -J, --btf_encode or --btf_encode_detached (pahole encodes only then)
  auto parse_jobs = [&](std::string_view v) {
    if (v.empty()) {
      o.jobs = 0;
      return;
    }
    unsigned n = 0;
    for (char c : v) {
      if (c < '0' || c > '9' || n > 100000) throw OptionError("-j: '" + std::string(v) + "' is not a number");
      n = n * 10 + static_cast<unsigned>(c - '0');
    }
    o.jobs = n;  // 0 means every core, as pahole's default
  };

  // Several FILEs (or a directory) are btfc's batch mode; pahole takes one.
  auto add_input = [&](std::string_view a) {
    if (pahole_mode && !o.input.empty())
      throw OptionError("more than one FILE ('" + o.input + "', '" + std::string(a) + "')");
    if (o.input.empty()) o.input = a;
    o.inputs.emplace_back(a);
  };

  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view a = args[i];
    // Splits "--name=value"; `value_of` also takes the next argument for
    // options whose value is mandatory.
    std::string_view name = a, value;
    bool has_value = false;
    if (a.size() > 2 && a.substr(0, 2) == "--") {
      size_t eq = a.find('=');
      if (eq != std::string_view::npos) {
        name = a.substr(0, eq);
        value = a.substr(eq + 1);
        has_value = true;
      }
    }
    auto value_of = [&]() -> std::string_view {
      if (has_value) return value;
      if (i + 1 == args.size()) throw OptionError(std::string(name) + " needs a value");
      return args[++i];
    };
    // A file or folder name: an empty one (`--btf_encode_detached=`) would
    // otherwise mean "none given", and an encode meant for a detached file
    // would rewrite FILE in place.
    auto path_of = [&]() -> std::string_view {
      std::string_view v = value_of();
      if (v.empty()) throw OptionError(std::string(name) + " needs a file name, not an empty one");
      return v;
    };
    auto no_value = [&] {
      if (has_value) throw OptionError(std::string(name) + " takes no value");
    };

    if (a == "--") {
      for (++i; i < args.size(); ++i) add_input(args[i]);
      break;
    }
    if (a.empty() || a[0] != '-' || a == "-") {
      // `-j 2`: pahole's -j takes its count attached only, so the 2 is a
      // FILE; said plainly rather than as a second FILE (no such file).
      const std::string_view prev = i ? args[i - 1] : std::string_view();
      const bool after_jobs =
          prev == "--jobs" || (prev.size() >= 2 && prev[0] == '-' && prev[1] != '-' && prev.back() == 'j');
      std::error_code ec;
      if (after_jobs && a.find_first_not_of("0123456789") == std::string_view::npos &&
          !std::filesystem::exists(std::string(a), ec))
        throw OptionError(std::string(prev) + " takes its count attached, as pahole's: " +
                          (prev == "--jobs" ? "--jobs=" : "-j") + std::string(a) + " (a separate '" + std::string(a) +
                          "' is a FILE)");
      add_input(a);
      continue;
    }
    if (a.size() >= 2 && a[1] != '-') {
      // Short options, possibly bundled: -J, -j[N], -V.
      for (size_t k = 1; k < a.size(); ++k) {
        char c = a[k];
        if (c == 'J') {
          encode_asked = true;
          continue;
        } else if (c == 'V') {
          o.verbose = true;
        } else if (c == 'j') {
          parse_jobs(a.substr(k + 1));
          break;
        } else {
          std::string opt = std::string("-") + c;
          if (pahole_mode)
            throw OptionError("pahole option " + opt + " is not supported by btfc when encoding (-J)");
          throw OptionError("unknown option '" + opt + "'");
        }
      }
      continue;
    }

    if (name == "--btf_encode") {
      no_value();
      encode_asked = true;
    } else if (name == "--btf_encode_detached") {
      o.detached_path = path_of();
      encode_asked = true;
    } else if (name == "--btf_base") {
      o.base_path = path_of();
    } else if (name == "--jobs") {
      parse_jobs(has_value ? value : std::string_view());
    } else if (name == "--btf_features" || name == "--features") {
      apply_btf_features(value_of(), o, false);
    } else if (name == "--btf_features_strict") {
      apply_btf_features(value_of(), o, true);
    } else if (name == "--supported_btf_features") {
      o.action = Action::SupportedFeatures;
    } else if (name == "--version") {
      o.action = Action::Version;
    } else if (name == "--numeric_version") {
      o.action = Action::NumericVersion;
    } else if (name == "--btf_gen_floats") {
      o.float_ = true;
    } else if (name == "--btf_gen_optimized") {
      o.optimized_func = true;
    } else if (name == "--btf_gen_all") {
      // 1.31 passes the word "all" to its feature parser, which resets every
      // switch and enables nothing (fixed in 1.32). That silently drops
      // VARs; btfc takes the intent instead: every default feature.
      apply_btf_features("default", o, false);
    } else if (name == "--btf_encode_force") {
      o.encode_force = true;
    } else if (name == "--btf_attributes") {
      o.attributes = true;
    } else if (name == "--skip_encoding_btf_vars") {
      o.var = false;
    } else if (name == "--skip_encoding_btf_decl_tag") {
      o.decl_tag = false;
    } else if (name == "--skip_encoding_btf_type_tag") {
      o.type_tag = false;
    } else if (name == "--skip_encoding_btf_enum64") {
      o.enum64 = false;
    } else if (name == "--skip_encoding_btf_inconsistent_proto") {
      o.consistent_func = true;
    } else if (name == "--encode_btf_global_vars") {
      o.global_var = true;
    } else if (name == "--reproducible_build") {
      o.reproducible_build = true;
    } else if (name == "--lang") {
      split_list(value_of(), o.lang_include);
      check_languages(o.lang_include, "--lang");
    } else if (name == "--lang_exclude") {
      split_list(value_of(), o.lang_exclude);
      check_languages(o.lang_exclude, "--lang_exclude");
    } else if (name == "--kabi_prefix") {
      o.kabi_prefix = value_of();
    } else if (name == "--output-dir" && !pahole_mode) {
      o.output_dir = path_of();
    } else if (name == "--stats") {
      o.stats = true;
    } else if (name == "--verbose") {
      o.verbose = true;
    } else if (name == "--quiet") {
      // nothing is printed on success anyway
    } else {
      bool pahole_option = false;
      for (std::string_view p : kPaholeOnly) pahole_option |= (p == name);
      if (pahole_option)
        throw OptionError("pahole option " + std::string(name) + " is not supported by btfc when encoding (-J)");
      throw OptionError("unknown option '" + std::string(name) + "'");
    }
  }
  if (o.action == Action::Encode && o.input.empty()) throw OptionError("missing FILE");
  // pahole without them prints FILE's type layouts (cli/layout.cc takes
  // such command lines before they come here): encoding (in place, into
  // FILE) instead would change a file the user only meant to look at.
  if (pahole_mode && o.action == Action::Encode && !encode_asked)
    throw OptionError("pahole without -J or --btf_encode_detached prints type layouts, not BTF; nothing was "
                      "written");
  if (o.inputs.size() > 1 && !o.detached_path.empty())
    throw OptionError("--btf_encode_detached names one output: use --output-dir with several FILEs");
  // A folder is batch mode too, which without --output-dir writes into
  // every module found: not what a detached output asks for.
  std::error_code ec;
  if (!pahole_mode && !o.detached_path.empty() && std::filesystem::is_directory(o.input, ec))
    throw OptionError("--btf_encode_detached names one output, and '" + o.input +
                      "' is a folder: use --output-dir for the modules under it");
  if (!o.output_dir.empty() && !o.detached_path.empty())
    throw OptionError("--output-dir and --btf_encode_detached exclude each other");
}

}  // namespace btfc::convert
