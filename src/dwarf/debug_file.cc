// See debug_file.h.
#include "dwarf/debug_file.h"

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string_view>

#include "base/build_id.h"
#include "base/reader.h"
#include "dwarf/dwarf_file.h"

namespace btfc::dwarf {
namespace {

constexpr uint32_t SHT_NOTE = 7;

// The file's GNU build ID, or empty.
Bytes build_id(const elf::ElfFile& elf) {
  for (const elf::Section& s : elf.sections()) {
    if (s.type != SHT_NOTE) continue;
    if (const Bytes id = gnu_build_id(elf.raw_data(s), elf.big_endian()); !id.empty()) return id;
  }
  return {};
}

struct DebugLink {
  std::string_view name;
  uint32_t crc = 0;
};

// .gnu_debuglink: the file name, NUL, padding to 4 bytes, a CRC-32.
std::optional<DebugLink> debug_link(const elf::ElfFile& elf) {
  const elf::Section* s = elf.find_section_exact(".gnu_debuglink");
  if (!s) return std::nullopt;
  Reader r(elf.raw_data(*s), s->name, elf.big_endian());
  try {
    DebugLink link;
    link.name = r.cstr();
    r.seek((r.pos() + 3) & ~size_t{3});
    link.crc = r.u32();
    if (link.name.empty() || link.name.find('/') != std::string_view::npos) return std::nullopt;
    return link;
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace

std::string build_id_path(const std::string& debug_dir, Bytes build_id) {
  if (build_id.size() < 2) return "";
  static const char* digits = "0123456789abcdef";
  std::string hex;
  for (uint8_t c : build_id) hex += {digits[c >> 4], digits[c & 15]};
  return debug_dir + "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug";
}

namespace {

// debug_file_candidates() of a file with this build ID and debug link.
std::vector<std::string> candidates(const elf::ElfFile& elf, const std::string& debug_dir, Bytes id,
                                    const std::optional<DebugLink>& link) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  if (std::string by_id = build_id_path(debug_dir, id); !by_id.empty()) out.push_back(std::move(by_id));
  std::error_code ec;
  const fs::path path = fs::absolute(fs::path(elf.path()), ec);
  const fs::path dir = path.parent_path();
  // Without a link, libdwfl makes one up, FILE.debug, and tries FILE's
  // own name under the debug folder too (Debian's kernel -dbg package:
  // /usr/lib/debug/lib/modules/VERSION/...): those need the build ID.
  if (!link && id.empty()) return out;
  const std::string name = link ? std::string(link->name) : path.filename().string() + ".debug";
  out.push_back((dir / name).string());
  out.push_back((dir / ".debug" / name).string());
  out.push_back((fs::path(debug_dir) / dir.relative_path() / name).string());
  if (!link) out.push_back((fs::path(debug_dir) / dir.relative_path() / path.filename()).string());
  return out;
}

}  // namespace

std::vector<std::string> debug_file_candidates(const elf::ElfFile& elf, const std::string& debug_dir) {
  return candidates(elf, debug_dir, build_id(elf), debug_link(elf));
}

std::unique_ptr<elf::ElfFile> open_debug_file(const elf::ElfFile& elf, const std::string& debug_dir) {
  namespace fs = std::filesystem;
  if (DwarfFile::present(elf)) return nullptr;
  const Bytes id = build_id(elf);
  const std::optional<DebugLink> link = debug_link(elf);
  for (const std::string& c : candidates(elf, debug_dir, id, link)) {
    std::error_code ec;
    if (!fs::is_regular_file(c, ec) || fs::equivalent(c, elf.path(), ec)) continue;
    std::unique_ptr<elf::ElfFile> candidate = elf::ElfFile::open(c);
    const Bytes bytes = candidate->bytes();
    const bool same_build = !id.empty() ? std::ranges::equal(build_id(*candidate), id)
                                        : link && crc32_z(0, bytes.data(), bytes.size()) == link->crc;
    // (Without a build ID no candidate is made up: see debug_file_candidates.)
    if (same_build && DwarfFile::present(*candidate)) return candidate;
  }
  return nullptr;
}

std::unique_ptr<elf::ElfFile> dwarf_source(std::unique_ptr<elf::ElfFile> elf) {
  try {
    if (std::unique_ptr<elf::ElfFile> debug = open_debug_file(*elf)) return debug;
  } catch (Error& e) {
    throw e.with_file(elf->path());
  }
  return elf;
}

}  // namespace btfc::dwarf
