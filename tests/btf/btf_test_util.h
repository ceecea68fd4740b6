// Helpers shared by the BTF tests: where the pahole reference files are,
// reading whole files, and loading BTF into the running kernel via libbpf.
#pragma once

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "btf/btf.h"
#include "support/kernel_btf.h"
#include "support/test_support.h"

namespace btfc::btf::testing {

// ../shared/reference/pahole-1.31 of the checkout (see test::shared_dir).
inline std::string reference_dir() { return test::shared_dir() + "/reference/pahole-1.31"; }

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  std::string s = test::read_file(path);
  return std::vector<uint8_t>(s.begin(), s.end());
}

inline const std::vector<std::string>& reference_modules() { return test::corpus_modules(); }

// Every kind and every variant of each line bpftool prints.
// `for_kernel`: without what only BPF object files carry and the kernel
// refuses in loaded BTF (extern FUNC and VAR linkage, which libbpf resolves
// before loading).
inline Btf every_kind(bool for_kernel = false) {
  Btf b;
  TypeId i = b.add_int("int", 4, INT_SIGNED);
  TypeId u8 = b.add_int("unsigned char", 1, 0);
  b.add_int("_Bool", 1, INT_BOOL);
  b.add_int("char", 1, INT_CHAR);
  TypeId ptr = b.add_ptr(0);  // void *
  TypeId arr = b.add_array(u8, i, 16);
  TypeId s = b.add_struct("s", 40);
  b.add_member("a", i, 0);
  b.add_member("", ptr, 64);
  b.add_member("bf", i, 128, 3);
  b.add_member("bf2", u8, 131, 5);
  b.add_member("arr", arr, 136);
  b.add_union("", 4);
  b.add_member("x", i, 0);
  b.add_member("y", u8, 0);
  b.add_enum("e", 4);
  b.add_enum_value("E_A", 0);
  b.add_enum_value("E_B", 4294967295ll);
  b.add_enum("se", 4);
  b.add_enum_value("S_NEG", -2147483648ll);
  b.add_enum_value("S_POS", 7);
  b.add_enum64("e64", 8, false);
  b.add_enum64_value("BIG", 0xffffffffffffffffull);
  b.add_enum64("se64", 8, true);
  b.add_enum64_value("NEG", static_cast<uint64_t>(-5ll));
  b.add_fwd("fs", false);
  b.add_fwd("fu", true);
  TypeId td = b.add_typedef("t", s);
  b.add_volatile(i);
  TypeId c = b.add_const(i);
  b.add_restrict(ptr);
  TypeId proto = b.add_func_proto(i);
  b.add_param("p", c);
  b.add_param("", 0);  // varargs
  TypeId f = b.add_func("f", proto, FuncLinkage::Static);
  b.add_func("g", proto, FuncLinkage::Global);
  if (!for_kernel) b.add_func("h", proto, FuncLinkage::Extern);
  TypeId v1 = b.add_var("v1", i, VarLinkage::Static);
  TypeId v2 = b.add_var("v2", td, VarLinkage::GlobalAllocated);
  if (!for_kernel) b.add_var("v3", i, VarLinkage::GlobalExtern);
  b.add_datasec(".data", 64);
  b.add_datasec_var(v1, 0, 4);
  b.add_datasec_var(v2, 8, 40);
  b.add_float("double", 8);
  b.add_decl_tag("tag1", f, -1);
  b.add_decl_tag("tag2", f, 0);
  b.add_decl_tag("tag3", s, 2);
  b.add_type_tag("user", i);
  return b;
}

#define BTFC_EXPECT_LOADS(bytes)                                                                         \
  do {                                                                                                   \
    std::string why_;                                                                                    \
    auto r_ = ::btfc::btf::testing::load_into_kernel((bytes), &why_);                                    \
    if (r_ == ::btfc::btf::testing::LoadResult::NotAllowed)                                              \
      GTEST_SKIP() << "\n*** THE KERNEL DOES NOT LET THIS PROCESS LOAD BTF (EPERM/ENOSYS): the kernel " \
                      "acceptance check did NOT run ***\n";                                              \
    EXPECT_EQ(r_, ::btfc::btf::testing::LoadResult::Loaded)                                             \
        << why_ << " (libbpf printed the log above)";                                                    \
  } while (0)

}  // namespace btfc::btf::testing
