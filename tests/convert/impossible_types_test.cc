// DWARF no compiler emits but a damaged or hostile file can hold: a struct
// that holds itself by value, and two pointer types pointing at each other.
// Encoding must refuse them (the BTF would fail only later, when a kernel
// loads it) and leave the file as it was; `btfc layout` must print a
// bounded text instead of recursing for ever.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "btf/btf.h"
#include "btf/writer.h"
#include "support/elf_builder.h"
#include "support/test_support.h"

namespace btfc::test {
namespace {

// Abbreviations: 1 compile unit (name, language), 2 struct (name, size),
// 3 member (name, type, location), 4 pointer (size, type), 5 subroutine
// type, 6 formal parameter (type), 7 anonymous union (size), 8 struct
// declaration (name), 9 typedef (name, type).
ByteWriter abbrevs() {
  ByteWriter a;
  a.uleb(1).uleb(0x11).u8(1).uleb(0x03).uleb(0x08).uleb(0x13).uleb(0x0b).u8(0).u8(0);
  a.uleb(2).uleb(0x13).u8(1).uleb(0x03).uleb(0x08).uleb(0x0b).uleb(0x0b).u8(0).u8(0);
  a.uleb(3).uleb(0x0d).u8(0).uleb(0x03).uleb(0x08).uleb(0x49).uleb(0x13).uleb(0x38).uleb(0x0b).u8(0).u8(0);
  a.uleb(4).uleb(0x0f).u8(0).uleb(0x0b).uleb(0x0b).uleb(0x49).uleb(0x13).u8(0).u8(0);
  a.uleb(5).uleb(0x15).u8(1).u8(0).u8(0);                            // subroutine type (returns void)
  a.uleb(6).uleb(0x05).u8(0).uleb(0x49).uleb(0x13).u8(0).u8(0);      // formal parameter (type)
  a.uleb(7).uleb(0x17).u8(1).uleb(0x0b).uleb(0x0b).u8(0).u8(0);      // anonymous union (size)
  a.uleb(8).uleb(0x13).u8(0).uleb(0x03).uleb(0x08).uleb(0x3c).uleb(0x19).u8(0).u8(0);  // struct declaration
  a.uleb(9).uleb(0x16).u8(0).uleb(0x03).uleb(0x08).uleb(0x49).uleb(0x13).u8(0).u8(0);  // typedef (name, type)
  a.u8(0);
  return a;
}

// A DWARF 4 unit around `dies` (which start at unit offset 0xb).
std::string object(const std::string& name, const ByteWriter& dies) {
  ByteWriter info;
  info.u32(static_cast<uint32_t>(7 + dies.size())).u16(4).u32(0).u8(8).raw(dies.data());
  return write_elf(name, {{".debug_info", info.data()}, {".debug_abbrev", abbrevs().data()}});
}

// struct s { struct s me; }: the member's type is the struct itself.
std::string struct_holding_itself() {
  ByteWriter d;
  d.uleb(1).str("t.c").u8(0x0c);               // 0x0b: compile unit, C99
  d.uleb(2).str("s").u8(8);                    // 0x11: struct s, 8 bytes
  d.uleb(3).str("me").u32(0x11).u8(0);         // 0x15: struct s me;
  d.u8(0).u8(0);                               // end of s, of the unit
  return object("struct_holding_itself.o", d);
}

// struct s { p_a p; } where p_a points to p_b and p_b back to p_a.
std::string pointer_loop() {
  ByteWriter d;
  d.uleb(1).str("t.c").u8(0x0c);               // 0x0b
  d.uleb(2).str("s").u8(8);                    // 0x11
  d.uleb(3).str("p").u32(0x1e).u8(0);          // 0x15: member p, type 0x1e
  d.u8(0);                                     // 0x1d: end of s
  d.uleb(4).u8(8).u32(0x24);                   // 0x1e: pointer to 0x24
  d.uleb(4).u8(8).u32(0x1e);                   // 0x24: pointer to 0x1e
  d.u8(0);
  return object("pointer_loop.o", d);
}

// struct s { f *cb; } where f is void (f *): a prototype taking a pointer
// to itself (llvm-dwarfdump 14 overflows its stack on it). Dedup refuses
// the cycle of reference types, as libbpf's does (-ELOOP); a printer that
// follows parameter types must stop.
std::string prototype_taking_itself() {
  ByteWriter d;
  d.uleb(1).str("t.c").u8(0x0c);               // 0x0b
  d.uleb(2).str("s").u8(8);                    // 0x11
  d.uleb(3).str("cb").u32(0x1f).u8(0);         // 0x15: member cb, type 0x1f
  d.u8(0);                                     // 0x1e: end of s
  d.uleb(4).u8(8).u32(0x25);                   // 0x1f: pointer to 0x25
  d.uleb(5);                                   // 0x25: void (...)
  d.uleb(6).u32(0x1f);                         // 0x26: a parameter of type 0x1f
  d.u8(0).u8(0);                               // end of the prototype, of the unit
  return object("prototype_taking_itself.o", d);
}

// struct s { union { <itself> a; <itself> b; } u; }: an anonymous union
// holding itself twice. Anonymous members are always printed expanded, so
// each level doubled: 2^128 lines before the nesting guard stopped it.
std::string union_holding_itself_twice() {
  ByteWriter d;
  d.uleb(1).str("t.c").u8(0x0c);               // 0x0b
  d.uleb(2).str("s").u8(8);                    // 0x11
  d.uleb(3).str("u").u32(0x1e).u8(0);          // 0x15: member u, type 0x1e
  d.u8(0);                                     // 0x1d: end of s
  d.uleb(7).u8(8);                             // 0x1e: union, 8 bytes
  d.uleb(3).str("a").u32(0x1e).u8(0);          // 0x20: member a, the union itself
  d.uleb(3).str("b").u32(0x1e).u8(0);          // 0x29: member b, the same
  d.u8(0).u8(0);                               // end of the union, of the unit
  return object("union_holding_itself_twice.o", d);
}

// A struct declaration, then a typedef, whose name is empty (as a damaged
// .debug_str makes them): BTF has no FWD or TYPEDEF without a name, and
// the message points at the DIE.
std::string nameless_declaration() {
  ByteWriter d;
  d.uleb(1).str("t.c").u8(0x0c);               // 0x0b
  d.uleb(8).str("");                           // 0x11: struct <no name>;
  d.u8(0);
  return object("nameless_declaration.o", d);
}

std::string nameless_typedef() {
  ByteWriter d;
  d.uleb(1).str("t.c").u8(0x0c);               // 0x0b
  d.uleb(9).str("").u32(0x17);                 // 0x11: typedef struct s <no name>;
  d.uleb(8).str("s");                          // 0x17: struct s;
  d.u8(0);
  return object("nameless_typedef.o", d);
}

TEST(ImpossibleTypes, NamelessDeclarationAndTypedefAreReportedAtTheirDie) {
  const std::string fwd = nameless_declaration(), typedef_ = nameless_typedef();
  RunResult r = run_btfc("encode --btf_encode_detached=/dev/null " + fwd);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "btfc: " + fwd + ": .debug_info+0x11: DW_TAG_structure_type cannot be encoded: FWD needs a name\n");
  r = run_btfc("encode --btf_encode_detached=/dev/null " + typedef_);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "btfc: " + typedef_ + ": .debug_info+0x11: DW_TAG_typedef cannot be encoded: TYPEDEF needs a name\n");
}

// struct s { struct s *a\x01b; }: a member name a damaged .debug_str made
// invalid. The BTF checks find it in the encoded table; the message points
// at the member's DIE, not into BTF that is never written.
std::string member_with_invalid_name() {
  ByteWriter d;
  d.uleb(1).str("t.c").u8(0x0c);               // 0x0b: compile unit, C99
  d.uleb(2).str("s").u8(8);                    // 0x11: struct s, 8 bytes
  d.uleb(3).str("a\x01" "b").u32(0x20).u8(0);  // 0x15: member a\x01b, type 0x20
  d.u8(0);                                     // 0x1f: end of s
  d.uleb(4).u8(8).u32(0x11);                   // 0x20: pointer to s
  d.u8(0);
  return object("member_with_invalid_name.o", d);
}

// The same name on a struct of a C++ unit (DW_LANG_C_plus_plus_14).
std::string cxx_struct_with_invalid_name() {
  ByteWriter d;
  d.uleb(1).str("t.cc").u8(0x21);              // 0x0b: compile unit, C++14
  d.uleb(2).str("Box<int>").u8(8);             // 0x12: struct Box<int>, 8 bytes
  d.uleb(3).str("v").u32(0x26).u8(0);          // 0x1d: member v, type 0x26
  d.u8(0);                                     // 0x25: end of the struct
  d.uleb(4).u8(8).u32(0x12);                   // 0x26: pointer to the struct
  d.u8(0);
  return object("cxx_struct_with_invalid_name.o", d);
}

TEST(ImpossibleTypes, InvalidNamesAreReportedAtTheirDie) {
  const std::string member = member_with_invalid_name(), cxx = cxx_struct_with_invalid_name();
  RunResult r = run_btfc("encode --btf_encode_detached=/dev/null " + member);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "btfc: " + member +
                       ": .debug_info+0x15: DW_TAG_member 'a\\x01b' cannot be encoded: BTF names are C identifiers\n");
  r = run_btfc("encode --btf_encode_detached=/dev/null " + cxx);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "btfc: " + cxx +
                       ": .debug_info+0x12: DW_TAG_structure_type 'Box<int>' cannot be encoded: BTF names are C "
                       "identifiers (a c++14 unit: --lang_exclude=c++14 leaves such units out)\n");
}

// struct s { struct s *m; } whose member's DW_AT_data_member_location (data8)
// is `location` bytes: a hostile offset the bit offset (x8) cannot hold.
std::string member_at(uint64_t location) {
  ByteWriter a;
  a.uleb(1).uleb(0x11).u8(1).uleb(0x03).uleb(0x08).uleb(0x13).uleb(0x0b).u8(0).u8(0);
  a.uleb(2).uleb(0x13).u8(1).uleb(0x03).uleb(0x08).uleb(0x0b).uleb(0x0b).u8(0).u8(0);
  a.uleb(3).uleb(0x0d).u8(0).uleb(0x03).uleb(0x08).uleb(0x49).uleb(0x13).uleb(0x38).uleb(0x07).u8(0).u8(0);
  a.uleb(4).uleb(0x0f).u8(0).uleb(0x0b).uleb(0x0b).uleb(0x49).uleb(0x13).u8(0).u8(0);
  a.u8(0);
  ByteWriter d;
  d.uleb(1).str("t.c").u8(0x0c);               // 0x0b: compile unit, C99
  d.uleb(2).str("s").u8(8);                    // 0x11: struct s, 8 bytes
  d.uleb(3).str("m").u32(0x25).u64(location);  // 0x15: member m, type 0x25, at `location`
  d.u8(0);                                     // 0x24: end of s
  d.uleb(4).u8(8).u32(0x11);                   // 0x25: pointer to s
  d.u8(0);
  ByteWriter info;
  info.u32(static_cast<uint32_t>(7 + d.size())).u16(4).u32(0).u8(8).raw(d.data());
  return write_elf("member_at_" + std::to_string(location) + ".o",
                   {{".debug_info", info.data()}, {".debug_abbrev", a.data()}});
}

// 2^60 and 2^61 bytes overflowed int64 when multiplied by 8 (undefined
// behaviour; fuzz_encode found the first).
TEST(ImpossibleTypes, MemberOffsetPastBitRangeIsReportedAtItsDie) {
  for (uint64_t location : {uint64_t{1} << 60, uint64_t{1} << 61, uint64_t{UINT32_MAX} + 1}) {
    const std::string obj = member_at(location);
    RunResult r = run_btfc("encode --btf_encode_detached=/dev/null " + obj);
    EXPECT_EQ(r.status, 1) << location;
    EXPECT_EQ(r.err, "btfc: " + obj + ": .debug_info+0x15: member bit offset out of range\n");
  }
}

TEST(ImpossibleTypes, EncodingRefusesThemAndLeavesTheFile) {
  for (const std::string& obj :
       {struct_holding_itself(), pointer_loop(), prototype_taking_itself(), union_holding_itself_twice()}) {
    std::string before = read_file(obj), out = obj + ".btf";
    RunResult detached = run_btfc("encode --btf_encode_detached=" + out + " " + obj);
    EXPECT_EQ(detached.status, 1) << obj << ": " << detached.err;
    EXPECT_EQ(detached.err.rfind("btfc: " + obj + ": ", 0), 0u) << detached.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << obj;
    RunResult in_place = run_btfc("encode " + obj);
    EXPECT_EQ(in_place.status, 1) << obj << ": " << in_place.err;
    EXPECT_EQ(read_file(obj), before) << obj << " was changed";
  }
  RunResult self = run_btfc("encode --btf_encode_detached=/dev/null " + struct_holding_itself());
  EXPECT_NE(self.err.find("its DWARF gives invalid BTF"), std::string::npos) << self.err;
  EXPECT_NE(self.err.find("STRUCT 's': reference cycle"), std::string::npos) << self.err;
}

TEST(ImpossibleTypes, LayoutStaysBounded) {
  for (const std::string& obj :
       {struct_holding_itself(), pointer_loop(), prototype_taking_itself(), union_holding_itself_twice()}) {
    for (const char* flags : {"", "-E ", "--sort -E --suppress_force_paddings "}) {
      RunResult r = run_btfc(std::string("layout ") + flags + obj);
      EXPECT_EQ(r.status, 0) << obj << " " << flags << ": " << r.err;
      EXPECT_NE(r.out.find("struct s {"), std::string::npos) << r.out.substr(0, 500);
      EXPECT_LT(r.out.size(), 1u << 20) << obj << " " << flags;
    }
  }
}

// The same loop is valid BTF (a pointer to a prototype ends the kernel's
// chain of modifiers): btfc layout -F btf prints it with the loop cut
// ("(...)") rather than followed past the stack.
TEST(ImpossibleTypes, SelfReferentialPrototypeFromBtf) {
  btf::Btf t;
  t.add_func_proto(0);           // [1] void (
  t.add_param("next", 2);        //       [2] next)
  t.add_ptr(1);                  // [2] a pointer to [1]
  t.add_struct("s", 8);          // [3] struct s {
  t.add_member("cb", 2, 0);      //       [2] cb; }
  const std::string path = scratch_dir() + "/prototype_taking_itself.btf";
  btf::write_raw_file(path, t);
  for (const char* flags : {"", "-E "}) {
    RunResult r = run_btfc(std::string("layout -F btf ") + flags + path);
    EXPECT_EQ(r.status, 0) << flags << ": " << r.err;
    EXPECT_NE(r.out.find("struct s {"), std::string::npos) << r.out.substr(0, 500);
    EXPECT_NE(r.out.find("(...)"), std::string::npos) << r.out.substr(0, 2000);
    EXPECT_LT(r.out.size(), 1u << 20) << flags;
  }
}

// Valid BTF whose layout is exponential: 64 anonymous unions, each with
// two members of the one before (the kernel takes it: every member fits).
// Printed expanded it would be 2^64 lines; the printer stops a type's text
// past a few megabytes with "..." members instead.
TEST(ImpossibleTypes, ExponentialLayoutIsCut) {
  btf::Btf t;
  btf::TypeId prev = t.add_int("int", 4, 1);
  for (int k = 0; k < 64; k++) {
    btf::TypeId u = t.add_union("", 4);
    t.add_member("a", prev, 0);
    t.add_member("b", prev, 0);
    prev = u;
  }
  t.add_struct("s", 4);
  t.add_member("u", prev, 0);
  const std::string path = scratch_dir() + "/exponential_layout.btf";
  btf::write_raw_file(path, t);
  RunResult r = run_btfc("layout -F btf " + path);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("struct s {", 0), 0u) << r.out.substr(0, 500);
  EXPECT_NE(r.out.find("...  b;"), std::string::npos) << "no member cut";
  EXPECT_LT(r.out.size(), 8u << 20);
  EXPECT_EQ(r.out.substr(r.out.size() - 3), "};\n") << "the struct is closed";
}

}  // namespace
}  // namespace btfc::test
