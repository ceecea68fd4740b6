// Corrupt BTF: each test takes a small valid blob (built with the table
// builders, checked against libbpf in btf_table_test.cc), breaks one thing
// and asserts the exact message a user would see: section, offset, the type
// concerned and what is wrong. Also the happy paths: both byte orders,
// split BTF, and a file whose error names the file.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "base/endian.h"
#include "btf/dedup.h"
#include "btf/reader.h"
#include "btf/writer.h"
#include "support/elf_builder.h"
#include "support/test_support.h"

namespace btfc::btf {
namespace {

// Layout of the blob (offsets in bytes from the start):
//   0  header (24)
//  24  [1] INT 'int' size=4        name@24 info@28 size@32 int@36
//  40  [2] PTR -> 1                name@40 info@44 type@48
//  52  [3] STRUCT 'foo' size=8     name@52 info@56 size@60
//  64      member 'bar' type 1 at bit 0:  name@64 type@68 offset@72
//  76  strings "\0int\0foo\0bar\0" (13 bytes): int=1 foo=5 bar=9
std::vector<uint8_t> good_blob() {
  Btf b;
  b.add_int("int", 4, INT_SIGNED);
  b.add_ptr(1);
  b.add_struct("foo", 8);
  b.add_member("bar", 1, 0);
  return write_raw(b);
}

void put32(std::vector<uint8_t>& v, size_t at, uint32_t w) { store<uint32_t>(v.data() + at, w, false); }

std::string error_of(const std::vector<uint8_t>& bytes, const Btf* base = nullptr) {
  try {
    read_raw(bytes, base);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// The names rule (validate(), what btfc writes) on top of what read_raw
// lets through (what libbpf and bpftool read: any name text).
std::string names_error_of(const std::vector<uint8_t>& bytes) {
  try {
    validate(read_raw(bytes));
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(BtfReader, GoodBlobReads) {
  std::vector<uint8_t> v = good_blob();
  ASSERT_EQ(v.size(), 89u);
  Btf b = read_raw(v);
  EXPECT_EQ(b.end_id(), 4u);
  EXPECT_EQ(b.type(3).name(), "foo");
  EXPECT_EQ(b.type(3).member(0).type, 1u);
  EXPECT_EQ(write_raw(b), v);
}

TEST(BtfReader, BigEndianReadsTheSame) {
  std::vector<uint8_t> le = good_blob();
  Btf b = read_raw(le);
  std::vector<uint8_t> be = write_raw(b, true);
  EXPECT_EQ(be[0], 0xeb);
  EXPECT_EQ(be[1], 0x9f);
  Btf b2 = read_raw(be);
  EXPECT_EQ(write_raw(b2), le);
}

TEST(BtfReader, BadMagic) {
  std::vector<uint8_t> v = good_blob();
  v[0] = 0x12;
  EXPECT_EQ(error_of(v), ".BTF+0x0: bad magic 0xeb12 (not BTF)");
}

TEST(BtfReader, TooShort) {
  EXPECT_EQ(error_of({0x9f, 0xeb, 1}), ".BTF+0x0: too short for a BTF header (3 bytes)");
}

TEST(BtfReader, BadVersionAndFlags) {
  std::vector<uint8_t> v = good_blob();
  v[2] = 2;
  EXPECT_EQ(error_of(v), ".BTF+0x2: unsupported BTF version 2");
  v = good_blob();
  v[3] = 1;
  EXPECT_EQ(error_of(v), ".BTF+0x3: unsupported BTF flags 0x1");
}

TEST(BtfReader, BadHeaderLengths) {
  std::vector<uint8_t> v = good_blob();
  put32(v, 4, 16);
  EXPECT_EQ(error_of(v), ".BTF+0x4: header length 16 is shorter than 24");
  v = good_blob();
  put32(v, 4, 1000);
  EXPECT_EQ(error_of(v), ".BTF+0x4: header length 1000 runs past the end of the data (89 bytes)");
  v = good_blob();
  put32(v, 12, 56);  // type_len
  EXPECT_EQ(error_of(v), ".BTF+0x8: type and string sections overlap");
  v = good_blob();
  put32(v, 12, 50);
  EXPECT_EQ(error_of(v), ".BTF+0xc: type section length 50 is not a multiple of 4");
  v = good_blob();
  put32(v, 20, 14);  // str_len one past the end
  EXPECT_EQ(error_of(v),
            ".BTF+0x10: string section (offset 52, 14 bytes) runs past the end of the data (65 bytes after the header)");
  v = good_blob();
  v[88] = 'x';  // the last string runs into the end
  EXPECT_EQ(error_of(v), ".BTF+0x58: string section does not end with NUL");
  v = good_blob();
  v.push_back(0);  // a byte after both sections
  EXPECT_EQ(error_of(v), ".BTF+0x8: unexpected bytes between or after the type and string sections");
}

TEST(BtfReader, StringSectionMustStartWithEmptyString) {
  std::vector<uint8_t> v = good_blob();
  v[76] = 'x';
  EXPECT_EQ(error_of(v), ".BTF+0x4c: string section does not start with the empty string (split BTF? it needs its base, and cannot be one)");
}

TEST(BtfReader, TypeIdOutOfRange) {
  std::vector<uint8_t> v = good_blob();
  put32(v, 68, 99999);
  EXPECT_EQ(error_of(v), ".BTF+0x44: type [3] STRUCT 'foo': member 'bar' type id 99999 out of range (last id is 3)");
  v = good_blob();
  put32(v, 48, 4);
  EXPECT_EQ(error_of(v), ".BTF+0x30: type [2] PTR '(anon)': type id 4 out of range (last id is 3)");
}

TEST(BtfReader, StringOffsetOutOfRange) {
  std::vector<uint8_t> v = good_blob();
  put32(v, 52, 13);
  EXPECT_EQ(error_of(v), ".BTF+0x34: type [3] STRUCT '(invalid)': name offset 13 out of range (strings end at 13)");
  v = good_blob();
  put32(v, 64, 500);
  EXPECT_EQ(error_of(v), ".BTF+0x40: type [3] STRUCT 'foo': member 0 name offset 500 out of range (strings end at 13)");
}

TEST(BtfReader, VlenPastTheEnd) {
  std::vector<uint8_t> v = good_blob();
  put32(v, 56, make_info(Kind::Struct, false, 2));
  EXPECT_EQ(error_of(v), ".BTF+0x38: type [3] STRUCT: vlen 2 needs 24 bytes, only 12 left");
}

TEST(BtfReader, UnknownKindAndTruncatedRecord) {
  std::vector<uint8_t> v = good_blob();
  put32(v, 44, 25u << 24);
  EXPECT_EQ(error_of(v), ".BTF+0x2c: type [2]: unknown kind 25");
  // Cut the type section inside the STRUCT's header: 8 bytes of it remain.
  v = good_blob();
  std::vector<uint8_t> cut(v.begin(), v.begin() + 60);
  cut.insert(cut.end(), v.begin() + 76, v.end());
  put32(cut, 12, 36);
  put32(cut, 16, 36);
  EXPECT_EQ(error_of(cut), ".BTF+0x34: type [3]: truncated record (8 bytes left, need 12)");
}

TEST(BtfReader, BadNames) {
  std::vector<uint8_t> v = good_blob();
  put32(v, 40, 1);  // PTR named 'int'
  EXPECT_EQ(error_of(v), ".BTF+0x28: type [2] PTR 'int': must have no name");
  v = good_blob();
  v[77] = '1';  // "1nt" is not an identifier; the member 'bar' is checked too
  put32(v, 64, 1);
  EXPECT_EQ(error_of(v), "(no error)");  // read as libbpf reads it
  EXPECT_EQ(names_error_of(v), ".BTF+0x40: type [3] STRUCT 'foo': member '1nt' has an invalid name");
  v = good_blob();
  v[78] = ' ';  // "int" becomes "i t", and the struct is named that
  put32(v, 52, 1);
  EXPECT_EQ(error_of(v), "(no error)");
  EXPECT_EQ(names_error_of(v), ".BTF+0x34: type [3] STRUCT 'i t': invalid name");
}

// A name offset of the empty string (the NUL ending another name) is no
// name, as offset 0 is: the kernel refuses both where a name is required,
// and dedup, as libbpf's, turns the one into the other (a fuzzed table the
// reader took came out of dedup with an unnamed TYPEDEF).
TEST(BtfReader, EmptyStringIsNoName) {
  Btf b;
  b.add_int("int", 4, INT_SIGNED);  // [1] at 24, 16 bytes
  b.add_typedef("t", 1);            // [2] at 40: name@40
  b.add_enum("e", 4);               // [3] at 52, value 'a' = 0: name@64
  b.add_enum_value("a", 0);
  const std::vector<uint8_t> good = write_raw(b);  // strings "\0int\0t\0e\0a\0" from 76
  ASSERT_EQ(error_of(good), "(no error)");
  std::vector<uint8_t> v = good;
  put32(v, 40, 4);  // the NUL after "int"
  EXPECT_EQ(error_of(v), ".BTF+0x28: type [2] TYPEDEF '': needs a name");
  v = good;
  put32(v, 64, 4);
  EXPECT_EQ(error_of(v), ".BTF+0x40: type [3] ENUM 'e': value 0 needs a name");
  // What the reader takes, dedup gives back readable.
  Btf kept = read_raw(good);
  dedup(kept, DedupOptions{});
  EXPECT_EQ(error_of(write_raw(kept)), "(no error)");
}

TEST(BtfReader, InvalidNameShownShortAndOnOneLine) {
  // The member's name made 300 bytes long with a newline in it: the message
  // shows its first 64 bytes, the newline escaped.
  Btf b;
  b.add_int("int", 4, INT_SIGNED);
  b.add_struct("foo", 4);
  b.add_member("x\n" + std::string(298, 'a'), 1, 0);
  EXPECT_EQ(error_of(write_raw(b)), "(no error)");
  const std::string message = names_error_of(write_raw(b));
  EXPECT_EQ(message, ".BTF+0x34: type [2] STRUCT 'foo': member 'x\\x0a" + std::string(62, 'a') +
                         "...' has an invalid name");
}

TEST(BtfReader, MemberPastTheStruct) {
  std::vector<uint8_t> v = good_blob();
  put32(v, 72, 65);
  EXPECT_EQ(error_of(v), ".BTF+0x48: type [3] STRUCT 'foo': member 'bar' at bit 65 lies past the end (size 8)");
  v = good_blob();
  put32(v, 72, 40);  // 4 bytes at byte 5 of 8
  EXPECT_EQ(error_of(v), ".BTF+0x48: type [3] STRUCT 'foo': member 'bar' (4 bytes at byte 5) runs past the end (size 8)");
}

TEST(BtfReader, DatasecUnsorted) {
  Btf b;
  TypeId i = b.add_int("int", 4, INT_SIGNED);
  TypeId v1 = b.add_var("a", i, VarLinkage::GlobalAllocated);
  TypeId v2 = b.add_var("b", i, VarLinkage::GlobalAllocated);
  b.add_datasec(".data", 8);
  b.add_datasec_var(v1, 4, 4);
  b.add_datasec_var(v2, 0, 4);
  // [4] DATASEC at 24 + 16 + 16 + 16 = 72; its 2nd item's offset word at 72 + 12 + 12 + 4.
  EXPECT_EQ(error_of(write_raw(b)),
            ".BTF+0x64: type [4] DATASEC '.data': variable 1 at offset 0 is not sorted (previous at 4)");
  Btf c;
  i = c.add_int("int", 4, INT_SIGNED);
  v1 = c.add_var("a", i, VarLinkage::GlobalAllocated);
  c.add_datasec(".data", 6);
  c.add_datasec_var(v1, 4, 4);
  EXPECT_EQ(error_of(write_raw(c)),
            ".BTF+0x48: type [3] DATASEC '.data': variable 0 at offset 4 size 4 runs past the section's size 6");
}

TEST(BtfReader, KernelOnlyRules) {
  Btf b;
  TypeId i = b.add_int("int", 4, INT_SIGNED);
  TypeId v1 = b.add_var("a", i, VarLinkage::GlobalAllocated);
  TypeId v2 = b.add_var("b", i, VarLinkage::GlobalAllocated);
  b.add_datasec(".data", 8);
  b.add_datasec_var(v1, 0, 4);
  b.add_datasec_var(v2, 2, 4);  // overlaps a
  EXPECT_NO_THROW(read_raw(write_raw(b)));
  try {
    validate_for_kernel(b);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), ".BTF+0x64: type [4] DATASEC '.data': variable 1 at offset 2 overlaps the previous one (ending at 4)");
  }
  Btf f;
  TypeId p = f.add_func_proto(0);
  f.add_func("ext", p, FuncLinkage::Extern);
  EXPECT_NO_THROW(validate(f));
  try {
    validate_for_kernel(f);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), ".BTF+0x28: type [2] FUNC 'ext': extern linkage (the kernel loads static and global only)");
  }
}

TEST(BtfReader, ModifierCycle) {
  Btf b;
  b.add_const(2);     // [1] const -> [2]
  b.add_volatile(3);  // [2] volatile -> [3]
  b.add_typedef("t", 1);  // [3] typedef t -> [1]: a loop with no pointer in it
  EXPECT_EQ(error_of(write_raw(b)), ".BTF+0x20: type [1] CONST '(anon)': reference cycle through [3] TYPEDEF 't'");
  // Through a pointer it is fine: struct s { struct s *next; }.
  Btf ok;
  ok.add_struct("s", 8);
  ok.add_member("next", 2, 0);
  ok.add_ptr(1);
  EXPECT_NO_THROW(read_raw(write_raw(ok)));
  // A struct containing itself by value is not.
  Btf self;
  self.add_struct("s", 8);
  self.add_member("me", 1, 0);
  EXPECT_EQ(error_of(write_raw(self)), ".BTF+0x20: type [1] STRUCT 's': reference cycle through [1] STRUCT 's'");
}

// The checks that follow references (sizes, kinds through modifiers) read
// an own type's kind and size from what the first pass kept of it, a base
// type's from the base: each way, a member's size comes through a chain of
// modifiers, an element type's kind too, and pointers and modifiers that
// loop back are found. (Offsets: header 24 bytes; INT 16, STRUCT 12 + 12
// per member, CONST, TYPEDEF, PTR and FWD 12, ARRAY 24.)
TEST(BtfReader, ReferencesFollowedThroughModifiers) {
  Btf own;
  TypeId i = own.add_int("int", 4, INT_SIGNED);  // [1] at 0
  TypeId inner = own.add_struct("inner", 8);     // [2] at 16
  own.add_member("x", i, 0);
  own.add_member("y", i, 32);
  TypeId c = own.add_const(inner);               // [3] at 52
  TypeId t = own.add_typedef("in_t", c);         // [4] at 64
  own.add_struct("outer", 12);                   // [5] at 76: 8 bytes at byte 4 fit 12
  own.add_member("m", t, 32);
  EXPECT_EQ(error_of(write_raw(own)), "(no error)");
  own.add_struct("short", 8);                    // [6] at 100: not 8 (its member word 5 at 120 + 24)
  own.add_member("m", t, 32);
  EXPECT_EQ(error_of(write_raw(own)),
            ".BTF+0x90: type [6] STRUCT 'short': member 'm' (8 bytes at byte 4) runs past the end (size 8)");

  Btf base;
  i = base.add_int("int", 4, INT_SIGNED);        // [1]
  TypeId big = base.add_struct("big", 16);       // [2]
  base.add_member("a", i, 0);
  TypeId big_t = base.add_typedef("big_t", big);  // [3]
  Btf split(&base);
  split.add_struct("s", 8);                      // [4] at 0 of the split table, member offset word at 20
  split.add_member("b", big_t, 0);
  EXPECT_EQ(error_of(write_raw(split), &base),
            ".BTF+0x2c: type [4] STRUCT 's': member 'b' (16 bytes at byte 0) runs past the end (size 8)");

  Btf fwd;
  i = fwd.add_int("int", 4, INT_SIGNED);         // [1] at 0
  TypeId x = fwd.add_fwd("x", false);            // [2] at 16
  TypeId x_t = fwd.add_typedef("x_t", x);        // [3] at 28
  fwd.add_array(x_t, i, 2);                      // [4] at 40, element word 3 at 52
  EXPECT_EQ(error_of(write_raw(fwd)), ".BTF+0x4c: type [4] ARRAY '(anon)': element type [3] has no size");

  Btf loop;
  loop.add_ptr(2);                               // [1] at 0, its type word at 8
  loop.add_ptr(1);                               // [2]
  EXPECT_EQ(error_of(write_raw(loop)), ".BTF+0x20: type [1] PTR '(anon)': loop of pointers and modifiers");
}

TEST(BtfReader, WrongTargetKinds) {
  Btf b;
  TypeId i = b.add_int("int", 4, INT_SIGNED);
  b.add_func("f", i, FuncLinkage::Global);  // a FUNC must point to a FUNC_PROTO
  EXPECT_EQ(error_of(write_raw(b)), ".BTF+0x30: type [2] FUNC 'f': prototype type [1] is a INT");
  Btf a;
  i = a.add_int("int", 4, INT_SIGNED);
  TypeId s = a.add_struct("s", 4);
  a.add_member("x", i, 0);
  a.add_array(i, s, 2);  // index type must be an INT
  EXPECT_EQ(error_of(write_raw(a)), ".BTF+0x50: type [3] ARRAY '(anon)': index type [2] is not an INT");
  // A member by value needs a size: a FWD has none (found by the fuzzer:
  // the C dump then had no alignment to work with).
  Btf f;
  TypeId fwd = f.add_fwd("x", false);
  f.add_struct("s", 8);
  f.add_member("m", fwd, 0);
  EXPECT_EQ(error_of(write_raw(f)), ".BTF+0x34: type [2] STRUCT 's': member 'm' type [1] is a FWD");
}

// The kinds a base has most of (FUNC, FUNC_PROTO, PTR and the modifiers,
// TYPEDEF, STRUCT, UNION) are judged by a fast path first, which passes
// only what every check passes and leaves the rest, message and all, to
// the full checks: a record wrong in one word is refused as before.
TEST(BtfReader, CommonKindsWrongInOneWord) {
  // A valid table from `build`, then word `word` of record `id` set to
  // `value` (the builders refuse most of these).
  auto refusal = [](auto build, TypeId id, uint32_t word, uint32_t value) {
    Btf b;
    build(b);
    std::vector<uint8_t> v = write_raw(b);
    put32(v, 24 + 4 * (b.offsets()[id - 1] + word), value);
    return error_of(v);
  };
  auto int_union = [](Btf& b) {  // [1] int, [2] union u { int a; int b; }
    TypeId i = b.add_int("int", 4, INT_SIGNED);
    b.add_union("u", 4);
    b.add_member("a", i, 0);
    b.add_member("b", i, 0);
  };
  EXPECT_EQ(refusal(int_union, 2, 8, 8), ".BTF+0x48: type [2] UNION 'u': member 'b' of a union at non-zero bit offset 8");
  EXPECT_EQ(refusal(int_union, 2, 7, 0), ".BTF+0x44: type [2] UNION 'u': member 'b' has type void");
  auto proto = [](Btf& b) {  // [1] int, [2] int (int a, int b), [3] FUNC f
    TypeId i = b.add_int("int", 4, INT_SIGNED);
    TypeId p = b.add_func_proto(i);
    b.add_param("a", i);
    b.add_param("b", i);
    b.add_func("f", p, FuncLinkage::Global);
  };
  EXPECT_EQ(refusal(proto, 2, 4, 0), ".BTF+0x38: type [2] FUNC_PROTO '(anon)': param 0 'a' has type void");
  // Varargs: a last parameter of type void has no name.
  EXPECT_EQ(refusal(proto, 2, 6, 0), ".BTF+0x40: type [2] FUNC_PROTO '(anon)': param 1 'b' has type void");
  EXPECT_EQ(refusal(proto, 2, 4, 3), ".BTF+0x38: type [2] FUNC_PROTO '(anon)': param 0 type [3] is a FUNC");
  EXPECT_EQ(refusal(proto, 3, 1, 0x0c000003), ".BTF+0x48: type [3] FUNC 'f': unknown linkage 3");
  EXPECT_EQ(refusal(proto, 3, 0, 0), ".BTF+0x44: type [3] FUNC '(anon)': needs a name");
  EXPECT_EQ(refusal(proto, 3, 2, 1), ".BTF+0x4c: type [3] FUNC 'f': prototype type [1] is a INT");
  auto chain = [](Btf& b) {  // [1] int, [2] i_t, [3] const i_t, [4] *const i_t, [5] struct s { const i_t m; }
    TypeId i = b.add_int("int", 4, INT_SIGNED);
    TypeId c = b.add_const(b.add_typedef("i_t", i));
    b.add_ptr(c);
    b.add_struct("s", 8);
    b.add_member("m", c, 0);
  };
  EXPECT_EQ(refusal(chain, 4, 2, 5 + 1), ".BTF+0x48: type [4] PTR '(anon)': type id 6 out of range (last id is 5)");
  EXPECT_EQ(refusal(chain, 4, 0, 1), ".BTF+0x40: type [4] PTR 'int': must have no name");
  // Through the const and the typedef to the int: its 4 bytes at byte 6
  // run past the struct's 8. A typedef to the struct that holds it is a
  // cycle.
  EXPECT_EQ(refusal(chain, 5, 5, 48), ".BTF+0x60: type [5] STRUCT 's': member 'm' (4 bytes at byte 6) runs past the end (size 8)");
  EXPECT_EQ(refusal(chain, 2, 2, 5), ".BTF+0x30: type [2] TYPEDEF 'i_t': reference cycle through [3] CONST '(anon)'");
}

TEST(BtfReader, SplitOnBase) {
  Btf base;
  base.add_int("int", 4, INT_SIGNED);
  Btf split(&base);
  split.add_struct("foo", 4);
  split.add_member("", 1, 0);
  std::vector<uint8_t> bytes = write_raw(split);
  Btf back = read_raw(bytes, &base);
  EXPECT_EQ(back.start_id(), 2u);
  EXPECT_EQ(back.type(2).name(), "foo");
  EXPECT_EQ(write_raw(back), bytes);
  // Without the base, id 1 and the string offsets do not resolve.
  EXPECT_EQ(error_of(bytes), ".BTF+0x30: string section does not start with the empty string (split BTF? it needs its base, and cannot be one)");
}

TEST(BtfReader, FileErrorsNameTheFile) {
  std::string path = test::scratch_dir() + "/bad.btf";
  std::vector<uint8_t> v = good_blob();
  put32(v, 68, 7);
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(v.data()), v.size());
  test::RunResult r = test::run_btfc("dump " + path);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "btfc: " + path + ": .BTF+0x44: type [3] STRUCT 'foo': member 'bar' type id 7 out of range (last id is 3)\n");
  r = test::run_btfc("dump /nonexistent.btf");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("/nonexistent.btf"), std::string::npos);
  // Neither kind of file a BTF reader takes (a raw blob with its magic
  // damaged, an empty file): said as such, for each command and a base.
  v[0] = 0;
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(v.data()), v.size());
  const std::string empty = test::scratch_dir() + "/empty.btf";
  std::ofstream{empty};
  for (const std::string& file : {path, empty}) {
    const std::string want = "btfc: " + file + ": neither raw BTF (magic 0xeb9f) nor an ELF file\n";
    for (const std::string& command : {"dump " + file, "diff " + file + " " + file, "layout -F btf " + file,
                                       "dump --base " + file + " " + file}) {
      r = test::run_btfc(command);
      EXPECT_EQ(r.status, 1) << command;
      EXPECT_EQ(r.err, want) << command;
    }
  }
}

// read_file into a table in place, with work beside the checks (a
// module's base is indexed so), from raw BTF and from an ELF's .BTF (how a
// kernel build names vmlinux): the work sees that table with all its
// records; a table the checks refuse still fails with their message,
// whatever the work did with it.
TEST(BtfReader, WorkBesideTheChecksSeesTheTableInPlace) {
  auto write = [](bool elf, const std::vector<uint8_t>& v) {
    if (elf) return test::write_elf("beside.o", {{".BTF", v}});
    std::string path = test::scratch_dir() + "/beside.btf";
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(v.data()), v.size());
    return path;
  };
  for (bool elf : {false, true}) {
    SCOPED_TRACE(elf ? "ELF" : "raw");
    std::string path = write(elf, good_blob());
    Btf out;
    const Btf* seen = nullptr;
    uint32_t seen_end = 0, seen_member_type = 0;
    read_file(path, nullptr, out, [&](const Btf& b) {
      seen = &b;
      seen_end = b.end_id();
      seen_member_type = b.record(3)[4];
    });
    EXPECT_EQ(seen, &out);
    EXPECT_EQ(seen_end, 4u);
    EXPECT_EQ(seen_member_type, 1u);
    EXPECT_EQ(write_raw(out), good_blob());

    std::vector<uint8_t> v = good_blob();
    put32(v, 68, 7);  // the member's type id: in the record, out of range
    path = write(elf, v);
    bool ran = false;
    try {
      Btf bad;
      read_file(path, nullptr, bad, [&](const Btf&) { ran = true; });
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()),
                path + ": .BTF+0x44: type [3] STRUCT 'foo': member 'bar' type id 7 out of range (last id is 3)");
    }
    EXPECT_TRUE(ran);
  }
}

// Names are checked once per offset (shared by many records), and a name
// found valid at one offset does not vouch for another.
TEST(BtfReader, SharedNamesCheckedPerOffset) {
  Btf b;
  b.add_int("int", 4, INT_SIGNED);
  b.add_struct("foo", 8);
  b.add_member("bar", 1, 0);
  b.add_member("baz", 1, 32);
  b.add_struct("qux", 8);
  b.add_member("bar", 1, 0);
  b.add_member("baz", 1, 32);
  std::vector<uint8_t> v = write_raw(b);
  EXPECT_EQ(error_of(v), "(no error)");
  // Strings: "\0int\0foo\0bar\0baz\0qux\0"; "baz" at 13 becomes "b-z".
  const size_t strings = v.size() - 21;
  ASSERT_EQ(std::string(reinterpret_cast<const char*>(v.data()) + strings + 13), "baz");
  v[strings + 14] = '-';
  EXPECT_EQ(error_of(v), "(no error)");
  EXPECT_EQ(names_error_of(v), ".BTF+0x40: type [2] STRUCT 'foo': member 'b-z' has an invalid name");
}

}  // namespace
}  // namespace btfc::btf

namespace btfc::btf {
namespace {

// Raw BTF and an ELF file's .BTF, packed (foo.ko.xz, vmlinux.btf.zst):
// read as the plain file is, by every reader of BTF files (dump, diff,
// layout -F btf, a base).
TEST(Reader, PackedFilesReadAsThePlainOnes) {
  const std::string obj = test::compile_c("packed_btf", "struct s { int a; char b; } v;\n", "gcc -g -c");
  const std::string raw = obj + ".btf", elf = obj + ".in_place.o";
  ASSERT_EQ(test::run_btfc("encode -J --btf_encode_detached=" + raw + " " + obj).status, 0);
  ASSERT_EQ(test::run("cp " + obj + " " + elf).status, 0);
  ASSERT_EQ(test::run_btfc("encode -J " + elf).status, 0);
  for (const std::string& plain : {raw, elf}) {
    const std::string want = test::run_btfc("dump " + plain).out;
    ASSERT_NE(want.find("STRUCT 's'"), std::string::npos) << want;
    for (const std::string& packer : {std::string("xz -c"), std::string("zstd -q -c"), std::string("gzip -c")}) {
      const std::string packed = plain + "." + packer.substr(0, packer.find(' '));
      ASSERT_EQ(test::run(packer + " " + plain + " > " + packed).status, 0);
      test::RunResult got = test::run_btfc("dump " + packed);
      EXPECT_EQ(got.status, 0) << got.err;
      EXPECT_EQ(got.out, want) << packed;
      EXPECT_EQ(test::run_btfc("diff " + packed + " " + plain).status, 0) << packed;
    }
  }
}

}  // namespace
}  // namespace btfc::btf
