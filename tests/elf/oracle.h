// Oracles for the ELF tests: what binutils, llvm-objcopy and elfutils say a
// debug section holds once decompressed and relocated.
//
// Relocation oracle: `eu-strip --reloc-debug-sections-only` resolves the
// relocations between debug sections in place but leaves those against code
// and data symbols (DW_AT_low_pc, line table addresses) in the file. Those
// remaining ones are read from `readelf -rW` (type name, symbol value,
// addend as readelf decodes them) and applied to eu-strip's bytes: S + A in
// the width the type name ends with (R_X86_64_64: 8 bytes, R_386_32: 4),
// added or subtracted for RISC-V ADD/SUB pairs, with the addend taken from
// the bytes in place for REL sections.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "base/endian.h"
#include "support/test_support.h"

namespace btfc::test {

inline std::string shell_quote(const std::string& s) { return "'" + s + "'"; }

// Bytes of section `name` of `file` as llvm-objcopy dumps them (raw: still
// compressed if the section is).
inline std::string dump_section(const std::string& file, const std::string& name) {
  static int counter = 0;
  std::string out = scratch_dir() + "/dump" + std::to_string(counter++) + ".bin";
  RunResult r = run("llvm-objcopy --dump-section " + name + "=" + out + " " + shell_quote(file) + " " +
                    scratch_dir() + "/dump-discard.o");
  EXPECT_EQ(r.status, 0) << r.err;
  return read_file(out);
}

// Names of sections of `file` (readelf -SW), in order.
inline std::vector<std::string> section_names(const std::string& file) {
  RunResult r = run("readelf -SW " + shell_quote(file));
  std::vector<std::string> names;
  std::istringstream in(r.out);
  std::string line;
  while (std::getline(in, line)) {
    size_t b = line.find('[');
    size_t e = line.find(']');
    if (b == std::string::npos || e == std::string::npos || e < b) continue;
    std::istringstream rest(line.substr(e + 1));
    std::string name;
    rest >> name;
    if (!name.empty() && name != "Name") names.push_back(name);
  }
  return names;
}

inline bool big_endian_file(const std::string& file) {
  std::string head = read_file(file).substr(0, 6);
  return head.size() == 6 && head[5] == 2;
}

// Applies the relocations readelf still lists in `file` to `sections`.
inline void apply_remaining_relocations(const std::string& file, std::map<std::string, std::string>& sections) {
  RunResult r = run("readelf -rW " + shell_quote(file));
  ASSERT_EQ(r.status, 0) << r.err;
  bool be = big_endian_file(file);
  std::istringstream in(r.out);
  std::string line, target;
  bool rela = false;
  while (std::getline(in, line)) {
    if (line.rfind("Relocation section '", 0) == 0) {
      std::string sec = line.substr(20, line.find('\'', 20) - 20);
      rela = sec.rfind(".rela", 0) == 0;
      target = sec.substr(rela ? 5 : 4);
      continue;
    }
    std::istringstream row(line);
    std::vector<std::string> t;
    for (std::string w; row >> w;) t.push_back(w);
    if (t.size() < 3 || t[2].rfind("R_", 0) != 0 || !sections.count(target)) continue;
    const std::string& type = t[2];
    if (type.find("NONE") != std::string::npos) continue;
    uint64_t offset = std::stoull(t[0], nullptr, 16);
    uint64_t symval = 0;
    int64_t addend = 0;
    if (rela) {
      if (t.size() == 4) {
        addend = static_cast<int64_t>(std::stoull(t[3], nullptr, 16));
      } else {
        symval = std::stoull(t[3], nullptr, 16);
        uint64_t a = std::stoull(t.back(), nullptr, 16);
        addend = t[t.size() - 2] == "-" ? -static_cast<int64_t>(a) : static_cast<int64_t>(a);
      }
    } else if (t.size() >= 4) {
      symval = std::stoull(t[3], nullptr, 16);
    }
    size_t digits = type.find_last_not_of("0123456789") + 1;
    ASSERT_LT(digits, type.size()) << "no width in " << type;
    unsigned width = std::stoi(type.substr(digits)) / 8;
    std::string& bytes = sections[target];
    ASSERT_LE(offset + width, bytes.size()) << line;
    uint8_t* p = reinterpret_cast<uint8_t*>(bytes.data()) + offset;
    auto get = [&]() -> uint64_t {
      switch (width) {
        case 1: return *p;
        case 2: return load<uint16_t>(p, be);
        case 4: return load<uint32_t>(p, be);
        default: return load<uint64_t>(p, be);
      }
    };
    auto put = [&](uint64_t v) {
      switch (width) {
        case 1: *p = static_cast<uint8_t>(v); break;
        case 2: store<uint16_t>(p, static_cast<uint16_t>(v), be); break;
        case 4: store<uint32_t>(p, static_cast<uint32_t>(v), be); break;
        default: store<uint64_t>(p, v, be); break;
      }
    };
    uint64_t value = symval + static_cast<uint64_t>(addend);
    if (!rela) value += get();
    if (type.find("_ADD") != std::string::npos)
      put(get() + value);
    else if (type.find("_SUB") != std::string::npos)
      put(get() - value);
    else
      put(value);
  }
}

// Every .debug_* section of `file` as a DWARF reader must see it:
// decompressed by objcopy, relocated (ET_REL) by eu-strip plus readelf.
inline std::map<std::string, std::string> oracle_debug_sections(const std::string& file) {
  static int counter = 0;
  std::string base = scratch_dir() + "/oracle" + std::to_string(counter++);
  std::map<std::string, std::string> out;
  RunResult d = run("objcopy --decompress-debug-sections " + shell_quote(file) + " " + base + ".dec");
  EXPECT_EQ(d.status, 0) << d.err;
  std::string work = base + ".dec";
  bool rel = read_file(work).substr(16, 1) == std::string(1, '\1') || read_file(work).substr(17, 1) == std::string(1, '\1');
  if (rel) {
    RunResult s = run("eu-strip --reloc-debug-sections-only " + work + " -o " + base + ".rel");
    EXPECT_EQ(s.status, 0) << s.err;
    work = base + ".rel";
  }
  for (const std::string& name : section_names(work))
    if (name.rfind(".debug_", 0) == 0) out[name] = dump_section(work, name);
  if (rel) apply_remaining_relocations(work, out);
  return out;
}

}  // namespace btfc::test
