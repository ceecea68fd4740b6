// The in-place output of the encoder (see elf_output.h).
#include "convert/elf_output.h"

#include <cstdio>
#include <memory>

#include "base/remove_on_signal.h"
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
  // pahole writes .BTF, then .BTF.base (so a new file gets them in that
  // order, as the last two sections). The first result is a temporary
  // file next to `path`; only the second write replaces `path`.
  std::string tmp = path + ".btfc-distill";
  RemoveOnSignal guard(tmp);
  try {
    elf::write_with_section(elf, ".BTF", btf::write_raw(d.split, elf.big_endian()), tmp);
    std::unique_ptr<elf::ElfFile> with_btf = elf::ElfFile::open(tmp);
    elf::write_with_section(*with_btf, ".BTF.base", btf::write_raw(*d.base, elf.big_endian()), path);
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  std::remove(tmp.c_str());
}

}  // namespace btfc::convert
