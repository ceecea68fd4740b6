// Writing raw BTF: header, type section, string section, in either byte
// order. A split table writes only its own types and strings, with the
// header libbpf and pahole write (type_off 0, str_off = type_len), which is
// what the kernel loads as module BTF on top of vmlinux.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "btf/btf.h"

namespace btfc::btf {

std::vector<uint8_t> write_raw(const Btf& btf, bool big_endian = false);

// write_raw into `path`, atomically (temp file + rename).
void write_raw_file(const std::string& path, const Btf& btf, bool big_endian = false);

}  // namespace btfc::btf
