// The in-place output of the encoder (see elf_output.h).
#include "convert/elf_output.h"

#include <cstdint>
#include <vector>

#include "base/timer.h"
#include "btf/distill.h"
#include "btf/writer.h"
#include "elf/write_section.h"

namespace btfc::convert {

void write_into_elf(const elf::ElfFile& elf, const btf::Btf& btf, const std::string& path, bool distilled_base) {
  if (!distilled_base) {
    // A .BTF.base of an earlier run with distilled_base would now describe
    // the wrong .BTF: retired.
    elf::write_with_section(elf, ".BTF", btf::write_raw(btf, elf.big_endian()), path, ".BTF.base");
    return;
  }
  btf::DistilledBtf d;
  {
    PhaseTimer t("distill");
    d = btf::distill_base(btf);
  }
  // pahole writes .BTF, then .BTF.base: a new file gets them in that
  // order, as the last two sections. One write for both.
  const std::vector<uint8_t> split = btf::write_raw(d.split, elf.big_endian());
  const std::vector<uint8_t> base = btf::write_raw(*d.base, elf.big_endian());
  const elf::NewSection sections[] = {{".BTF", split}, {".BTF.base", base}};
  elf::write_with_sections(elf, sections, path);
}

}  // namespace btfc::convert
