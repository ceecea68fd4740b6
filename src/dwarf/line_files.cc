// The file table of a line program header (see line_files.h). Layouts
// from the DWARF 2-5 specifications, section 6.2.4 ("The Line Number
// Program Header").
#include "dwarf/line_files.h"

#include <optional>

namespace btfc::dwarf {
namespace {

constexpr uint32_t DW_LNCT_path = 1, DW_LNCT_directory_index = 2;

// One entry's field of a DWARF 5 directory or file entry: a string or a
// number, whichever the form holds (MD5 sums and the like are skipped).
struct Field {
  std::optional<std::string_view> str;
  uint64_t num = 0;
};

class HeaderReader {
 public:
  HeaderReader(const Unit& unit, Reader r, unsigned offset_size)
      : s_(*unit.sections), r_(r), offset_size_(offset_size) {}

  Reader& r() { return r_; }

  Field field(uint64_t form) {
    Field f;
    switch (form) {
      case DW_FORM_string: f.str = r_.cstr(); break;
      case DW_FORM_line_strp: f.str = pooled(s_.line_str, s_.line_str_end, s_.line_str_name); break;
      case DW_FORM_strp: f.str = pooled(s_.str, s_.str_end, s_.str_name); break;
      case DW_FORM_data1: f.num = r_.u8(); break;
      case DW_FORM_data2: f.num = r_.u16(); break;
      case DW_FORM_data4: f.num = r_.u32(); break;
      case DW_FORM_data8: f.num = r_.u64(); break;
      case DW_FORM_udata: f.num = r_.uleb128(); break;
      case DW_FORM_sdata: f.num = static_cast<uint64_t>(r_.sleb128()); break;
      case DW_FORM_data16: r_.skip(16); break;
      case DW_FORM_block: r_.skip(r_.uleb128()); break;
      case DW_FORM_block1: r_.skip(r_.u8()); break;
      case DW_FORM_block2: r_.skip(r_.u16()); break;
      case DW_FORM_block4: r_.skip(r_.u32()); break;
      default: r_.fail("unsupported form " + hex(form) + " in a line table entry format");
    }
    return f;
  }

  // A DWARF 5 entry format, then that many entries: each one's path and
  // directory index.
  struct Entry {
    std::string_view path;
    uint64_t dir = 0;
    bool has_path = false;
  };
  std::vector<Entry> entries() {
    std::vector<std::pair<uint64_t, uint64_t>> format(r_.u8());
    for (auto& [content, form] : format) {
      content = r_.uleb128();
      form = r_.uleb128();
    }
    const uint64_t count_at = r_.offset();
    const uint64_t count = r_.uleb128();
    // Every entry takes a byte at least, unless it has no fields at all.
    if (count > r_.remaining() && !format.empty())
      r_.fail_at(count_at, std::to_string(count) + " entries cannot fit in the " +
                               std::to_string(r_.remaining()) + " bytes left of the header");
    if (format.empty() && count > 0)
      r_.fail_at(count_at, std::to_string(count) + " entries of a format with no fields");
    std::vector<Entry> out(count);
    for (Entry& e : out)
      for (auto [content, form] : format) {
        Field f = field(form);
        if (content == DW_LNCT_path && f.str) {
          e.path = *f.str;
          e.has_path = true;
        } else if (content == DW_LNCT_directory_index && !f.str) {
          e.dir = f.num;
        }
      }
    return out;
  }

 private:
  std::string_view pooled(Bytes section, size_t end, std::string_view name) {
    const uint64_t at = r_.offset();
    const uint64_t off = r_.uint(offset_size_);
    return reinterpret_cast<const char*>(DwarfFile::string_at(section, end, name, off, r_, at));
  }

  const Sections& s_;
  Reader r_;
  unsigned offset_size_;
};

// elfutils' spelling of a file in a directory (nullopt: unknown directory).
FileName joined(const std::optional<std::string_view>& dir, std::string_view name) {
  if (name.starts_with('/') || !dir) return {{}, name};
  return {*dir, name};
}

}  // namespace

std::string FileName::path() const {
  if (dir.data() == nullptr) return std::string(name);
  std::string p(dir);
  p += '/';
  p += name;
  return p;
}

bool FileName::path_starts_with(std::string_view prefix) const {
  if (dir.data() == nullptr) return name.starts_with(prefix);
  if (prefix.size() <= dir.size()) return dir.starts_with(prefix);
  if (!prefix.starts_with(dir) || prefix[dir.size()] != '/') return false;
  return name.starts_with(prefix.substr(dir.size() + 1));
}

std::vector<FileName> decl_files(const Unit& unit, Bytes debug_line) {
  if (!unit.stmt_list || debug_line.empty() || !unit.sections) return {};
  Reader whole(debug_line, ".debug_line", unit.sections->big_endian);
  if (*unit.stmt_list >= debug_line.size())
    whole.fail_at(*unit.stmt_list, "the line table of the unit at .debug_info " + hex(unit.offset) +
                                       " starts past the end of the section");
  whole.seek(*unit.stmt_list);
  unsigned offset_size = 4;
  uint64_t length = whole.u32();
  if (length == 0xffffffff) {
    length = whole.u64();
    offset_size = 8;
  }
  Reader table = whole.split(length);
  const uint64_t version_at = table.offset();
  const uint16_t version = table.u16();
  if (version < 2 || version > 5)
    table.fail_at(version_at, "unsupported line table version " + std::to_string(version));
  if (version >= 5) table.skip(2);  // address_size, segment_selector_size
  const uint64_t header_length = table.uint(offset_size);
  HeaderReader h(unit, table.split(header_length), offset_size);
  Reader& r = h.r();
  r.skip(version >= 4 ? 5 : 4);  // minimum_instruction_length, [maximum_operations_per_instruction,]
                                 // default_is_stmt, line_base, line_range
  const uint8_t opcode_base = r.u8();
  r.skip(opcode_base > 0 ? opcode_base - 1u : 0u);  // standard_opcode_lengths

  std::vector<std::optional<std::string_view>> dirs;
  std::vector<FileName> files;
  bool valid = true;
  if (version >= 5) {
    for (const auto& e : h.entries()) dirs.push_back(e.has_path ? std::optional(e.path) : std::nullopt);
    for (const auto& e : h.entries()) {
      if (e.dir >= dirs.size()) valid = false;
      files.push_back(valid ? joined(dirs[e.dir], e.path) : FileName{});
    }
  } else {
    dirs.push_back(unit.comp_dir.empty() ? std::nullopt : std::optional(unit.comp_dir));
    for (std::string_view d = r.cstr(); !d.empty(); d = r.cstr()) dirs.push_back(d);
    files.push_back({{}, "???"});
    for (std::string_view name = r.cstr(); !name.empty(); name = r.cstr()) {
      const uint64_t dir = r.uleb128();
      r.uleb128();  // modification time
      r.uleb128();  // length
      if (dir >= dirs.size()) valid = false;
      files.push_back(valid ? joined(dirs[dir], name) : FileName{});
    }
  }
  if (!valid) return {};  // elfutils refuses the whole table
  if (!files.empty()) files[0] = {};  // decl_file 0 names no file
  return files;
}

}  // namespace btfc::dwarf
