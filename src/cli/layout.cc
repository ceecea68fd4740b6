// `btfc layout [OPTIONS] FILE`: struct and union layouts as pahole prints
// them, from DWARF (-F dwarf, the default when FILE has DWARF) or BTF
// (-F btf: a raw .btf file or an ELF file's .BTF; --base for split BTF).
// `btfc btfdiff FILE [BTF]`: both sides with btfdiff's options, in one
// process, and a unified diff; exit 0 when they agree, 1 when they differ.
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>
#include <sys/stat.h>

#include "base/parallel.h"
#include "btf/reader.h"
#include "cli/command.h"
#include "dwarf/constants.h"
#include "dwarf/debug_file.h"
#include "dwarf/dwarf_file.h"
#include "elf/elf_file.h"
#include "elf/packed.h"
#include "layout/diff.h"
#include "layout/layout.h"

namespace btfc::cli {
namespace {

// -j / --jobs (every core), -jN, --jobs=N: sets the thread count and
// returns true; false for any other argument.
constexpr unsigned kMaxJobs = 4096;

bool take_jobs(const std::string& a) {
  if (a == "-j" || a == "--jobs") set_jobs(0);
  else if (a.rfind("-j", 0) == 0 && a.size() > 2 && a[2] != '-') set_jobs(parse_number("-j", a.substr(2), kMaxJobs));
  else if (a.rfind("--jobs=", 0) == 0) set_jobs(parse_number("--jobs", a.substr(7), kMaxJobs));
  else return false;
  return true;
}

bool write_out(const std::string& s) {
  if (std::fwrite(s.data(), 1, s.size(), stdout) != s.size() || std::fflush(stdout) != 0) {
    std::perror("btfc: writing the layout");
    return false;
  }
  return true;
}

// The non-empty items of a comma-separated list, appended to `out`.
void split_list(const std::string& arg, std::vector<std::string>& out) {
  for (size_t p = 0; p <= arg.size();) {
    size_t e = std::min(arg.find(',', p), arg.size());
    if (e > p) out.push_back(arg.substr(p, e - p));
    p = e + 1;
  }
}

// -C NAMES: a comma-separated list, or one name per line of a file given
// as pahole spells it (file://PATH) or, as a convenience, as a plain PATH
// that exists.
void add_names(std::vector<std::string>& names, const std::string& arg) {
  struct stat st;
  bool url = arg.rfind("file://", 0) == 0;
  std::string path = url ? arg.substr(7) : arg;
  if (url || (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode))) {
    std::ifstream in(path);
    if (!in) throw UsageError{"-C: cannot read '" + path + "'"};
    std::string line;
    while (std::getline(in, line)) {
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
      if (!line.empty()) names.push_back(line);
    }
    return;
  }
  split_list(arg, names);
}

void add_langs(std::vector<uint16_t>& out, const std::string& arg) {
  std::vector<std::string> names;
  split_list(arg, names);
  for (const std::string& name : names) {
    int id = dwarf::language_code(name);
    if (id < 0) throw UsageError{"unknown language '" + name + "'"};
    out.push_back(static_cast<uint16_t>(id));
  }
}

// What to print: the layouts of `file`, from the first of `formats` it
// holds (none given: DWARF if it has any, else BTF); `program` names the
// tool in the "type not found" line.
struct LayoutRequest {
  layout::LayoutOptions options;
  std::vector<std::string> formats;
  std::string file, base;
  std::string_view program = "btfc layout";
};

// FILE opened once for both sides: its bytes when it is raw BTF, else as
// ELF (with the debug file of a stripped one). Left empty when it is
// neither: each side then opens FILE itself, and says what is wrong in its
// own terms.
struct OpenedFile {
  std::unique_ptr<elf::ElfFile> elf;    // FILE, when it is ELF
  std::unique_ptr<elf::ElfFile> debug;  // its debug file, if stripped and found
  std::optional<elf::FileBytes> raw;    // FILE, when it is raw BTF

  static OpenedFile open(const std::string& path) {
    OpenedFile f;
    try {
      elf::FileBytes bytes = elf::FileBytes::open(path);  // unpacked, when packed
      if (btf::is_raw_btf(bytes.bytes)) {
        f.raw.emplace(std::move(bytes));
        return f;
      }
      f.elf = elf::ElfFile::parse(std::move(bytes), path);
      f.debug = dwarf::open_debug_file(*f.elf);
    } catch (Error&) {
      return OpenedFile{};
    }
    return f;
  }
  // Where FILE's DWARF is read from.
  const elf::ElfFile* dwarf() const { return debug ? debug.get() : elf.get(); }
};

// `source`: where the DWARF of the file at `path` is, if the caller has it open.
std::string dwarf_side(const std::string& path, const layout::LayoutOptions& o, std::string* missing = nullptr,
                       const elf::ElfFile* source = nullptr) {
  std::unique_ptr<elf::ElfFile> opened;
  if (!source) source = (opened = dwarf::dwarf_source(elf::ElfFile::open(path))).get();
  try {
    dwarf::DwarfFile::require(*source);
    dwarf::DwarfFile dw(*source);
    return layout::layout_dwarf(dw, !source->big_endian(), o, missing);
  } catch (Error& e) {
    throw e.with_file(path);
  }
}

// `file`: the file at `path`, if the caller has it open.
std::string btf_side(const std::string& path, const std::string& base_path, const layout::LayoutOptions& o,
                     std::string* missing = nullptr, const OpenedFile* file = nullptr) {
  std::optional<btf::Btf> base;
  if (!base_path.empty()) base = btf::read_file(base_path);
  const btf::Btf* on = base ? &*base : nullptr;
  btf::Btf b;
  if (file && file->elf) {
    b = btf::read_elf(*file->elf, on);
  } else if (file && file->raw) {
    try {
      b = btf::read_raw(file->raw->bytes, on);
    } catch (Error& e) {
      throw e.with_file(path);
    }
  } else {
    b = btf::read_file(path, on);
  }
  return layout::layout_btf(b, o, missing);
}

// -F LIST: formats in the order to try them.
void add_formats(std::vector<std::string>& out, const std::string& arg) {
  split_list(arg, out);
  if (out.empty()) throw UsageError{"-F needs a format (dwarf or btf)"};
}

// Does FILE hold `format` ("dwarf": DWARF, in it or in its debug file;
// "btf": raw BTF, or an ELF file's .BTF)?
bool has_format(const std::string& format, const OpenedFile& file) {
  if (format == "dwarf") return file.dwarf() && dwarf::DwarfFile::present(*file.dwarf());
  return !file.elf || file.elf->find_section_exact(".BTF");
}

int print_layouts(LayoutRequest& r) {
  // pahole -P --sort lists the packable structs, then prints their
  // layouts sorted as well: not a listing worth matching.
  if (r.options.packable && !r.options.verbose && r.options.sort)
    throw UsageError{"-P/--packable with --sort is not supported (without -V)"};
  // -S shows the steps of -R (alone it changes nothing, as in pahole);
  // pahole 1.24 crashes printing them: no output to match.
  if (r.options.show_reorg_steps && r.options.reorganize)
    throw UsageError{"-S/--show_reorg_steps with -R is not supported (pahole 1.24 crashes there)"};
  if (r.options.nr_methods && !r.options.class_names.empty())
    throw UsageError{"-m/--nr_methods lists every struct: it does not take -C, -i or -f (as pahole)"};
  r.options.file_name = r.file;
  const OpenedFile file = OpenedFile::open(r.file);
  const elf::ElfFile* source = file.dwarf();  // null when FILE is not ELF
  // Without -F, DWARF when FILE has it. (A stripped file has DWARF when its
  // debug file is found.) An ELF file with neither DWARF nor .BTF gets the
  // DWARF side's message, which names where its debug file was looked for.
  std::vector<std::string> formats = r.formats;
  if (formats.empty())
    formats = {source && (dwarf::DwarfFile::present(*source) || !file.elf->find_section_exact(".BTF")) ? "dwarf"
                                                                                                       : "btf"};
  // pahole's -F list: each format FILE has, in turn, until one reads (a
  // module's .BTF without its base does not: then its DWARF); when none
  // does, the first one's error.
  std::vector<std::string> tried;
  for (const std::string& f : formats) {
    if (f == "ctf") continue;  // pahole's third format: none here
    if (f != "dwarf" && f != "btf") throw UsageError{"unknown format '" + f + "' (dwarf or btf)"};
    tried.push_back(f);
  }
  if (tried.empty()) throw UsageError{"CTF is not supported (dwarf or btf)"};
  std::optional<Error> first_error;
  std::string text, missing;
  bool read = false;
  for (size_t i = 0; i < tried.size() && !read; ++i) {
    const std::string& f = tried[i];
    if (tried.size() > 1 && !has_format(f, file)) continue;
    try {
      text = f == "dwarf" ? dwarf_side(r.file, r.options, &missing, source)
                          : btf_side(r.file, r.base, r.options, &missing, &file);
      read = true;
    } catch (const Error& e) {
      if (!first_error) first_error = e;
    }
  }
  if (!read) {
    if (first_error) throw *first_error;
    // Listed formats, none of them in FILE: the first one's own message.
    text = tried[0] == "dwarf" ? dwarf_side(r.file, r.options, &missing) : btf_side(r.file, r.base, r.options, &missing);
  }
  if (!write_out(text)) return 1;
  // Like pahole: the first -C name that was not found, and still exit 0.
  if (!missing.empty())
    std::fprintf(stderr, "%.*s: type '%s' not found\n", static_cast<int>(r.program.size()), r.program.data(),
                 missing.c_str());
  return 0;
}

// The layout options both command lines take (`btfc layout`, pahole mode),
// by pahole's long name. A switch is applied by apply_switch; an option
// with a value by apply_valued, which reads the value (`value()`) only for
// a name it knows. Each returns false for any other name.
bool apply_switch(std::string_view name, layout::LayoutOptions& o) {
  using Listing = layout::LayoutOptions::Listing;
  if (name == "--sort") o.sort = true;
  else if (name == "--flat_arrays") o.flat_arrays = true;
  else if (name == "--suppress_aligned_attribute") o.suppress_aligned_attribute = true;
  else if (name == "--suppress_force_paddings") o.suppress_force_paddings = true;
  else if (name == "--suppress_packed") o.suppress_packed = true;
  else if (name == "--show_private_classes") o.show_private_classes = true;
  else if (name == "--expand_types") o.expand_types = true;
  else if (name == "--hex") o.hex = true;
  else if (name == "--sizes") o.listing = Listing::Sizes;
  else if (name == "--nr_members") o.listing = Listing::Members;
  else if (name == "--class_name_len") o.listing = Listing::NameLengths;
  else if (name == "--structs") o.just_structs = true;
  else if (name == "--unions") o.just_unions = true;
  else if (name == "--packed") o.just_structs = o.just_packed = true;
  else if (name == "--with_flexible_array") o.with_flexible_array = true;
  else if (name == "--quiet") o.quiet = true;
  else if (name == "--rel_offset") o.rel_offset = true;
  else if (name == "--classes_as_structs") o.classes_as_structs = true;
  // Nested types and methods are never printed (C has neither in a struct).
  else if (name == "--show_only_data_members") {}
  else if (name == "--recursive") o.recursive = true;
  else if (name == "--skip_missing") o.skip_missing = true;
  else if (name == "--anon_include") o.anon_include = true;
  else if (name == "--nr_definitions") o.nr_definitions = true, o.nr_methods = false, o.listing = Listing::Nothing;
  else if (name == "--nr_methods") o.nr_methods = true, o.nr_definitions = false;
  else if (name == "--verbose") o.verbose = true;
  else if (name == "--first_obj_only") o.first_obj_only = true;
  else if (name == "--show_first_biggest_size_base_type_member") o.first_biggest_member = true;
  else if (name == "--defined_in") o.defined_in = true;
  else if (name == "--nested_anon_include") o.nested_anon_include = true;
  else if (name == "--show_decl_info") o.show_decl_info = true;
  else if (name == "--reorganize") o.reorganize = true;
  else if (name == "--packable") o.packable = true;
  else if (name == "--show_reorg_steps") o.show_reorg_steps = true;
  else return false;
  return true;
}

template <typename Value>
bool apply_valued(std::string_view name, const Value& value, LayoutRequest& r) {
  layout::LayoutOptions& o = r.options;
  using Search = layout::LayoutOptions::Search;
  // -C, -i and -f name the types; the last of them given names them all,
  // as in pahole (-i or -f still decides what is printed of them).
  auto names = [&] {
    o.class_names.clear();
    add_names(o.class_names, value());
  };
  if (name == "--class_name") names();
  else if (name == "--contains") names(), o.search = Search::Containers;
  else if (name == "--find_pointers_to") {
    names();
    if (o.search != Search::Containers) o.search = Search::PointersTo;  // pahole: -i before -f, in any order
  }
  else if (name == "--format_path") add_formats(r.formats, value());
  else if (name == "--btf_base") r.base = value();
  else if (name == "--exclude") o.exclude_prefix = value();
  else if (name == "--prefix_filter") o.include_prefix = value();
  else if (name == "--holes") o.min_holes = parse_number(name, value(), 65535);
  else if (name == "--bit_holes") o.min_bit_holes = parse_number(name, value(), 65535);
  else if (name == "--separator") o.separator = value().c_str()[0];  // pahole's arg[0]
  else if (name == "--lang") add_langs(o.lang_include, value());
  else if (name == "--lang_exclude") add_langs(o.lang_exclude, value());
  else if (name == "--cacheline_size") o.cacheline_size = parse_number(name, value(), 1u << 16);
  else if (name == "--cu_exclude") o.cu_exclude = value();
  else if (name == "--decl_exclude") o.decl_exclude = value();
  else if (name == "--hole_size_ge") {
    o.hole_size_ge = parse_number(name, value(), 65535);
    // pahole lists the names then, unless -V came before.
    if (!o.verbose) o.listing = layout::LayoutOptions::Listing::Names;
  } else {
    return false;
  }
  return true;
}

// pahole's short letter of one of them ("" for none).
std::string_view long_name(char letter) {
  switch (letter) {
    case 'E': return "--expand_types";
    case 's': return "--sizes";
    case 'n': return "--nr_members";
    case 'N': return "--class_name_len";
    case 'C': return "--class_name";
    case 'F': return "--format_path";
    case 'x': return "--exclude";
    case 'y': return "--prefix_filter";
    case 'H': return "--holes";
    case 'B': return "--bit_holes";
    case 'z': return "--hole_size_ge";
    case 't': return "--separator";
    case 'q': return "--quiet";
    case 'a': return "--anon_include";
    case 'T': return "--nr_definitions";
    case 'm': return "--nr_methods";
    case 'R': return "--reorganize";
    case 'P': return "--packable";
    case 'S': return "--show_reorg_steps";
    case 'V': return "--verbose";
    case 'X': return "--cu_exclude";
    case 'u': return "--defined_in";
    case 'l': return "--show_first_biggest_size_base_type_member";
    case 'A': return "--nested_anon_include";
    case 'r': return "--rel_offset";
    case 'M': return "--show_only_data_members";
    case 'd': return "--recursive";
    case 'i': return "--contains";
    case 'f': return "--find_pointers_to";
    case 'I': return "--show_decl_info";
    case 'D': return "--decl_exclude";
    default: return "";
  }
}

int run_layout(Args args) {
  LayoutRequest r;
  std::string& file = r.file;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string a = args[i];
    if (take_jobs(a)) continue;
    if (a.empty() || a[0] != '-') {
      if (!file.empty()) throw UsageError{"more than one FILE"};
      file = a;
      continue;
    }
    // --NAME or --NAME=VALUE; -L or -LVALUE, L a letter of pahole's (but
    // -B, --base: btfc's, the base, as bpftool's; -B takes its value
    // separately); a value not attached is the next argument. A switch is
    // taken as spelled, never with a value.
    if (a.size() < 2 || (a.rfind("-B", 0) == 0 && a != "-B")) throw UsageError{"unknown option '" + a + "'"};
    const bool is_long = a[1] == '-';
    const size_t eq = is_long ? a.find('=') : std::string::npos;
    const std::string spelled = is_long ? a.substr(0, eq) : a.substr(0, 2);
    const std::string_view name = spelled == "-B" || spelled == "--base" ? std::string_view("--btf_base")
                                  : is_long                              ? std::string_view(spelled)
                                                                         : long_name(a[1]);
    auto value = [&]() -> std::string {
      if (eq != std::string::npos) return a.substr(eq + 1);
      if (!is_long && a.size() > 2) return a.substr(2);
      if (i + 1 >= args.size()) throw UsageError{spelled + " needs a value"};
      return args[++i];
    };
    if (a == spelled && apply_switch(name, r.options)) continue;
    if (!apply_valued(name, value, r)) throw UsageError{"unknown option '" + a + "'"};
  }
  if (file.empty()) throw UsageError{"missing FILE"};
  return print_layouts(r);
}

int run_btfdiff(Args args) {
  std::vector<std::string> files;
  std::string base;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    if (a == "--base" || a == "--btf_base") {
      if (i + 1 >= args.size()) throw UsageError{a + " needs a file"};
      base = args[++i];
    } else if (take_jobs(a)) {
      continue;
    } else if (!a.empty() && a[0] == '-') {
      throw UsageError{"unknown option '" + a + "'"};
    } else {
      files.push_back(a);
    }
  }
  if (files.empty() || files.size() > 2) throw UsageError{"expected FILE [BTF]"};
  // btfdiff's two pahole command lines.
  layout::LayoutOptions d;
  d.flat_arrays = d.sort = d.suppress_aligned_attribute = d.suppress_force_paddings = d.suppress_packed = true;
  d.show_private_classes = true;
  d.lang_exclude.push_back(dwarf::DW_LANG_Rust);
  layout::LayoutOptions b;
  b.sort = b.suppress_aligned_attribute = b.suppress_packed = true;
  d.total_order = b.total_order = true;
  d.flexible_multi_dim = b.flexible_multi_dim = true;
  std::string btf_path = files.size() == 2 ? files[1] : files[0];
  std::string dwarf_text = dwarf_side(files[0], d);
  // A split BTF file holds its base's types too; show only what the DWARF
  // side shows, as a module's btfdiff is about the module's own types.
  if (!base.empty()) {
    b.base_as_in_dwarf = true;
    for (std::string& n : layout::printed_names(dwarf_text)) b.only_names.insert(std::move(n));
    for (std::string& l : layout::printed_layouts(dwarf_text)) b.base_layouts.insert(std::move(l));
  }
  std::string btf_text = btf_side(btf_path, base, b);
  std::string diff = layout::unified_diff(dwarf_text, btf_text, files[0] + " (DWARF)", btf_path + " (BTF)");
  if (diff.empty()) return 0;
  write_out(diff);
  return 1;
}

RegisterCommand reg_layout{{"layout", "layout [-F dwarf|btf] [--base BASE] [-C NAMES] [--sort] [OPTIONS] FILE",
                            "print struct layouts as pahole does", run_layout,
                            "Prints the structs, unions, enums and typedefs of FILE in pahole's text\n"
                            "format, from its DWARF (the default when FILE has DWARF) or from BTF.\n\n"
                            "  -F, --format_path dwarf|btf   where the types come from (a list, dwarf,btf:\n"
                            "                                the first that FILE has and reads)\n"
                            "  -B, --base, --btf_base BASE   FILE's BTF is split BTF on BASE\n"
                            "  -C, --class_name NAMES        only these types (a comma-separated list,\n"
                            "                                or a file of names as file://PATH)\n"
                            "  --sort                        sorted by name\n"
                            "  -E, --expand_types            expand the types of members, as pahole -E\n"
                            "  --hex                         offsets, sizes and enumerator values in hex\n"
                            "  -s, --sizes                   NAME, size and number of holes per struct\n"
                            "  -n, --nr_members              NAME and number of members per struct\n"
                            "  -N, --class_name_len          NAME and its length per struct\n"
                            "  -t, --separator C             between those fields (default a tab)\n"
                            "  -q, --quiet                   no comments, offsets or summaries\n"
                            "  -r, --rel_offset              offsets in nested structs from their start\n"
                            "  --structs, --unions           only structs, only unions\n"
                            "  --packed                      only structs packed by their layout\n"
                            "  --with_flexible_array         only structs ending in one (unions all pass)\n"
                            "  -i, --contains NAME           the structs and unions with a member of type\n"
                            "                                NAME (-d, --recursive: and where in them)\n"
                            "  -f, --find_pointers_to NAME   STRUCT: MEMBER for members pointing to NAME\n"
                            "  --skip_missing                a -C name a unit lacks does not stop it\n"
                            "  -l, --show_first_biggest_size_base_type_member\n"
                            "                                a summary line naming that member\n"
                            "  -T, --nr_definitions          then NAME and the number of units defining it\n"
                            "  -R, --reorganize              with -C: each struct with its members moved\n"
                            "                                into holes, as pahole would (-V: the moves)\n"
                            "  -P, --packable                NAME, size, reorganized size and savings of\n"
                            "                                the structs -R would shrink (-V: layouts)\n"
                            "  -m, --nr_methods              only NAME and the number of function\n"
                            "                                parameters pointing to it, per struct\n"
                            "  -V, --verbose                 -i: the number of such members; -z after -V\n"
                            "                                filters without listing names\n"
                            "  -a, --anon_include            anonymous structs too, as their typedef's\n"
                            "  -A, --nested_anon_include     with -a, those without a typedef too\n"
                            "  -x, --exclude PREFIX          not the types whose name starts with PREFIX\n"
                            "  -y, --prefix_filter PREFIX    only the types whose name starts with PREFIX\n"
                            "  -H, --holes N, --bit_holes N  only structs with at least N byte (bit) holes\n"
                            "  -z, --hole_size_ge N          the names of the structs with a hole of at\n"
                            "                                least N bytes (then -s: their sizes)\n"
                            "  --flat_arrays, --suppress_aligned_attribute, --suppress_force_paddings,\n"
                            "  --suppress_packed, --show_private_classes, -M, --classes_as_structs\n"
                            "                                as pahole\n"
                            "  --cacheline_size=N            cache line size for the markers (default 64)\n"
                            "  --lang=LIST, --lang_exclude=LIST\n"
                            "                                only / not the units of these languages\n"
                            "  -X, --cu_exclude PREFIX       not the units whose name starts with PREFIX\n"
                            "  --first_obj_only              the first unit only\n"
                            "  -u, --defined_in              with -C: the unit each type is found in\n"
                            "  -I, --show_decl_info          before each type, its unit and where it is\n"
                            "                                declared (DIE offset, file and line)\n"
                            "  -D, --decl_exclude PREFIX     not the types declared in files whose name\n"
                            "                                starts with PREFIX (nor of unknown files)\n"
                            "  -j[N], --jobs[=N]             N threads reading DWARF\n"}};
RegisterCommand reg_btfdiff{{"btfdiff", "btfdiff [--base BASE] FILE [BTF]",
                             "diff the DWARF and BTF layouts of FILE (exit 1 if they differ)", run_btfdiff,
                             "pahole's btfdiff script in one process: FILE's layouts from its DWARF and\n"
                             "from its BTF (FILE's .BTF, or the raw BTF file named second), printed with\n"
                             "btfdiff's pahole options, and their unified diff. Exit 0 if they agree,\n"
                             "1 if they differ.\n\n"
                             "  --base, --btf_base BASE   the BTF is split BTF on BASE (a module's)\n"
                             "  -j[N], --jobs[=N]         N threads reading DWARF\n"}};

}  // namespace

// Pahole mode without -J or --btf_encode_detached: pahole prints layouts,
// and so does btfc, with pahole's spellings of the options `btfc layout`
// has (argp's: -C/-F values attached or next, short flags bundled, -j's
// count attached only). Another pahole option is refused by name, never
// ignored. No FILE: the running kernel's BTF, as pahole; and a lone
// argument that is no file is a type name there (`pahole task_struct`).
int run_pahole_layout(std::span<const std::string_view> args) {
  constexpr char kRunningKernel[] = "/sys/kernel/btf/vmlinux";
  LayoutRequest r;
  r.program = "pahole (btfc)";
  auto refuse = [](std::string_view option) {
    throw UsageError{"pahole option " + std::string(option) +
                     " is not supported by btfc when printing layouts (without -J)"};
  };
  std::vector<std::string> files;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string a(args[i]);
    if (a == "--") {
      files.insert(files.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    }
    if (a.size() < 2 || a[0] != '-') {
      files.push_back(a);
      continue;
    }
    // The rest of a short bundle, or the next argument.
    auto next = [&](std::string_view option) -> std::string {
      if (i + 1 >= args.size()) throw UsageError{std::string(option) + " needs a value"};
      return std::string(args[++i]);
    };
    if (a[1] != '-') {
      for (size_t k = 1; k < a.size(); ++k) {
        const char c = a[k];
        const std::string option = std::string("-") + c;
        if (c == 'j') {
          set_jobs(k + 1 < a.size() ? parse_number("-j", a.substr(k + 1), kMaxJobs) : 0);
          break;
        }
        const std::string_view name = long_name(c);
        if (apply_switch(name, r.options)) continue;
        auto value = [&] { return k + 1 < a.size() ? a.substr(k + 1) : next(option); };
        if (!apply_valued(name, value, r)) refuse(option);
        break;
      }
      continue;
    }
    const size_t eq = a.find('=');
    const std::string name = a.substr(0, eq);
    auto value = [&]() -> std::string { return eq != std::string::npos ? a.substr(eq + 1) : next(name); };
    if (name == "--jobs") {
      take_jobs(a);
    } else if (apply_switch(name, r.options)) {
      if (eq != std::string::npos) throw UsageError{name + " takes no value"};
    } else if (!apply_valued(name, value, r)) {
      refuse(name);
    }
  }
  layout::LayoutOptions& o = r.options;
  if (files.size() > 1) throw UsageError{"btfc prints the layouts of one FILE at a time"};
  struct stat st;
  if (files.size() == 1 && o.class_names.empty() && !o.nr_methods && ::stat(files[0].c_str(), &st) != 0) {
    o.class_names.push_back(files[0]);  // `pahole NAME`: a type of the running kernel
    files.clear();
  }
  r.file = files.empty() ? kRunningKernel : files[0];
  // pahole reads BTF there, and wherever --btf_base is given (whatever -F
  // says).
  if ((r.formats.empty() && files.empty()) || !r.base.empty()) r.formats = {"btf"};
  return print_layouts(r);
}

}  // namespace btfc::cli
