// Where `pahole -J` without --btf_encode_detached puts the BTF: into the
// input ELF file itself, as section .BTF; with --btf_features=distilled_base
// (pahole 1.31 + libbpf 1.5), a module's split BTF is first distilled
// (btf/distill.h): .BTF gets the split BTF on the distilled base, and a
// second section .BTF.base gets that distilled base. The kernel (6.11+)
// relocates such a module onto the running vmlinux at load time, so it
// survives a rebuilt vmlinux.
//
//   convert::write_into_elf(*elf, btf, "ext4.ko", o.distilled_base);
//
// Both sections land in the file in one atomic step (the .BTF rewrite goes
// to a temporary file first), so an error leaves the input untouched.
#pragma once

#include <string>

#include "btf/btf.h"
#include "elf/elf_file.h"

namespace btfc::convert {

// Writes `btf` (in the ELF's byte order) into `elf` as .BTF, the result
// going to `path`. `distilled_base`: also .BTF.base, as described above;
// `btf` must then be split BTF, else btfc::Error, as pahole 1.31 fails
// ("could not generate distilled base BTF: Invalid argument").
void write_into_elf(const elf::ElfFile& elf, const btf::Btf& btf, const std::string& path, bool distilled_base);

}  // namespace btfc::convert
