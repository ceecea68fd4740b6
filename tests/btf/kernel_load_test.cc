// Everything btfc writes must be BTF the kernel accepts: the bytes go to
// BPF_BTF_LOAD through libbpf (we run as root here). A kernel that refuses
// for lack of permission makes these tests skip with a loud message, never
// pass silently.
#include <gtest/gtest.h>

#include "btf/dedup.h"
#include "btf/reader.h"
#include "btf/writer.h"
#include "btf_test_util.h"
#include "support/random_btf.h"
#include "elf/elf_file.h"

namespace btfc::btf {
namespace {

using testing::read_bytes;

// A bit of every kind the kernel loads, with C-like relations between them.
Btf small_table() {
  Btf b;
  TypeId i = b.add_int("int", 4, INT_SIGNED);
  TypeId ch = b.add_int("char", 1, INT_SIGNED);
  TypeId p = b.add_ptr(ch);
  TypeId a = b.add_array(ch, i, 8);
  TypeId s = b.add_struct("s", 24);
  b.add_member("n", i, 0);
  b.add_member("flag", i, 32, 1);
  b.add_member("name", p, 64);
  b.add_member("buf", a, 128);
  b.add_union("u", 4);
  b.add_member("i", i, 0);
  b.add_enum("e", 4);
  b.add_enum_value("NEG", -1);
  b.add_enum64("e64", 8, false);
  b.add_enum64_value("BIG", 1ull << 40);
  b.add_fwd("opaque", false);
  TypeId td = b.add_typedef("s_t", s);
  b.add_const(td);
  b.add_volatile(i);
  b.add_restrict(p);
  TypeId proto = b.add_func_proto(i);
  b.add_param("x", i);
  TypeId f = b.add_func("f", proto, FuncLinkage::Global);
  TypeId v = b.add_var("gv", i, VarLinkage::GlobalAllocated);
  b.add_datasec(".data", 4);
  b.add_datasec_var(v, 0, 4);
  b.add_float("double", 8);
  b.add_decl_tag("tag", f, -1);
  b.add_decl_tag("ptag", f, 0);
  b.add_type_tag("user", i);
  return b;
}

TEST(BtfKernelLoad, BuiltTableLoads) {
  std::vector<uint8_t> bytes = write_raw(small_table());
  EXPECT_NO_THROW(read_raw(bytes));
  BTFC_EXPECT_LOADS(bytes);
}

// The dump tests' table: every kind and printing variant (varargs, FWDs,
// signed and 64-bit enums, decl tags on a member) - what bpftool printed
// must also be what the kernel accepts. Extern FUNCs and VARs are left out:
// the kernel refuses them ("Invalid func linkage"), as the last check shows.
TEST(BtfKernelLoad, EveryKindTableLoads) {
  std::vector<uint8_t> bytes = write_raw(testing::every_kind(true));
  EXPECT_NO_THROW(validate_for_kernel(testing::every_kind(true)));
  BTFC_EXPECT_LOADS(bytes);
  // validate_for_kernel() and the kernel agree on the extern ones.
  Btf with_extern = testing::every_kind(false);
  EXPECT_NO_THROW(validate(with_extern));
  EXPECT_THROW(validate_for_kernel(with_extern), Error);
  auto r = testing::load_into_kernel_quietly(write_raw(with_extern));
  EXPECT_EQ(r, testing::LoadResult::Refused);
}

// What the kernel makes of `b`, beside what validate_for_kernel() says;
// "" when they agree, and `loaded` tells which way. Skips the test, loudly,
// where the kernel lets this process load no BTF.
std::string kernel_disagreement(const Btf& b, bool* loaded = nullptr) {
  bool ours = true;
  std::string why;
  try {
    validate_for_kernel(b);
  } catch (const Error& e) {
    ours = false;
    why = e.what();
  }
  const testing::LoadResult r = testing::load_into_kernel_quietly(write_raw(b));
  if (r == testing::LoadResult::NotAllowed) return "not allowed";
  const bool kernel = r == testing::LoadResult::Loaded;
  if (loaded) *loaded = kernel;
  if (ours == kernel) return "";
  return kernel ? "the kernel loads what validate_for_kernel() refuses: " + why
                : "the kernel refuses what validate_for_kernel() passes";
}
#define EXPECT_KERNEL_AGREES(b, want_loaded)                                                       \
  do {                                                                                             \
    bool loaded_ = false;                                                                          \
    std::string d_ = kernel_disagreement((b), &loaded_);                                           \
    if (d_ == "not allowed")                                                                       \
      GTEST_SKIP() << "\n*** the kernel lets this process load no BTF: NOT TESTED ***\n";         \
    EXPECT_EQ(d_, "");                                                                             \
    EXPECT_EQ(loaded_, (want_loaded));                                                             \
  } while (0)

// Type tags come first in a chain of modifiers: the kernel refuses one
// below a CONST or a TYPEDEF ("Type tags don't precede modifiers"), which
// libbpf and bpftool take; validate_for_kernel() says the same.
TEST(BtfKernelLoad, TypeTagsComeBeforeOtherModifiers) {
  for (int shape = 0; shape < 3; ++shape) {
    SCOPED_TRACE("shape " + std::to_string(shape));
    Btf b;
    TypeId i = b.add_int("int", 4, INT_SIGNED);
    TypeId chain = shape == 0   ? b.add_type_tag("user", b.add_const(i))     // tag, const: loads
                   : shape == 1 ? b.add_const(b.add_type_tag("user", i))    // const, tag
                                : b.add_typedef("t", b.add_type_tag("user", i));  // typedef, tag
    b.add_ptr(chain);
    EXPECT_NO_THROW(validate(b));
    EXPECT_KERNEL_AGREES(b, shape == 0);
  }
}

// The kernel resolves types in id order on a stack of 32: 33 CONSTs each
// of the next (a later id) are refused, 40 each of the one before load.
TEST(BtfKernelLoad, ResolutionDeeperThanTheKernelsIsRefused) {
  for (auto [n, forward] : {std::pair{32, true}, {33, true}, {40, false}}) {
    SCOPED_TRACE(std::to_string(n) + (forward ? " forward" : " backward"));
    Btf b;
    TypeId i = b.add_int("int", 4, INT_SIGNED);
    const TypeId first = b.end_id();
    for (int k = 0; k < n; ++k) b.add_const(forward ? (k + 1 < n ? first + k + 1 : i) : (k ? first + k - 1 : i));
    EXPECT_KERNEL_AGREES(b, n <= 32 || !forward);
  }
}

// validate_for_kernel() and the kernel agree on random type graphs
// (tests/support/random_btf.h: every kind the kernel takes, forward
// references, twins), as generated and deduplicated.
TEST(BtfKernelLoad, RandomGraphsLoadWhereValidateForKernelSaysSo) {
  int loaded = 0, refused = 0;
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    testing::SeededChoices c(seed);
    testing::RandomTables t = testing::random_tables(c);
    ASSERT_TRUE(t.base);
    Btf deduped = read_raw(write_raw(*t.base));
    dedup(deduped);
    for (const Btf* b : {t.base.get(), &deduped}) {
      bool ok = false;
      const std::string d = kernel_disagreement(*b, &ok);
      if (d == "not allowed") GTEST_SKIP() << "\n*** the kernel lets this process load no BTF: NOT TESTED ***\n";
      ASSERT_EQ(d, "");
      ++(ok ? loaded : refused);
    }
  }
  EXPECT_GT(loaded, 400);  // of 600, the rest refused by both (a type tag below a modifier)
  EXPECT_GT(refused, 0);
  std::printf("%d loaded, %d refused by both\n", loaded, refused);
}

// A prototype may not return or take a prototype or a FWD by value: the
// kernel wants a size there ("Invalid return type", "Invalid arg#1"),
// libbpf does not. validate() takes them (bpftool dumps them, and so does
// btfc), validate_for_kernel() refuses them as the kernel does; the same
// table with pointers there loads.
TEST(BtfKernelLoad, PrototypesReturnAndTakeSizedTypesOnly) {
  for (int shape = 0; shape < 4; ++shape) {
    SCOPED_TRACE("shape " + std::to_string(shape));
    Btf b;
    TypeId i = b.add_int("int", 4, INT_SIGNED);
    TypeId fwd = b.add_fwd("opaque", false);
    TypeId inner = b.add_func_proto(i);  // int (void)
    TypeId c = b.add_const(shape == 1 ? fwd : inner);
    TypeId wrong = shape == 0 ? inner : shape == 1 ? c : shape == 2 ? fwd : b.add_ptr(inner);
    TypeId proto = b.add_func_proto(shape % 2 == 0 ? i : wrong);
    b.add_param("x", shape % 2 == 0 ? wrong : i);
    b.add_func("f", proto, FuncLinkage::Global);
    EXPECT_NO_THROW(validate(b));
    std::vector<uint8_t> bytes = write_raw(b);
    if (shape == 3) {  // a pointer to a prototype has a size
      EXPECT_NO_THROW(validate_for_kernel(b));
      BTFC_EXPECT_LOADS(bytes);
      continue;
    }
    EXPECT_THROW(validate_for_kernel(b), Error);
    auto r = testing::load_into_kernel_quietly(bytes);
    if (r == testing::LoadResult::NotAllowed) GTEST_SKIP() << "\n*** the kernel lets this process load no BTF: NOT TESTED ***\n";
    EXPECT_EQ(r, testing::LoadResult::Refused);
  }
}

// Loops through pointers: the kernel follows a pointer through pointers
// and modifiers and refuses a chain that comes back ("Loop detected"), but
// not a loop through a struct (struct s { s_t *next; }); the reader
// agrees on each.
TEST(BtfKernelLoad, PointerLoopsAsTheKernelJudgesThem) {
  struct Case {
    const char* what;
    Btf table;
    bool valid;
  };
  std::vector<Case> cases;
  {
    Btf b;
    b.add_ptr(2);  // [1] -> [2]
    b.add_ptr(1);  // [2] -> [1]
    cases.push_back({"two pointers to each other", std::move(b), false});
  }
  {
    Btf b;
    b.add_ptr(2);                       // [1] -> [2]
    b.add_const(3);                     // [2] -> [3]
    b.add_typedef("loop_t", 1);         // [3] -> [1]
    cases.push_back({"pointer, const, typedef, back", std::move(b), false});
  }
  {
    Btf b;
    b.add_ptr(1);  // [1] -> itself
    cases.push_back({"a pointer to itself", std::move(b), false});
  }
  {
    Btf b;
    TypeId s = b.add_struct("s", 8);       // [1] struct s { s_t *next; }
    b.add_member("next", 3, 0);
    b.add_typedef("s_t", s);               // [2]
    b.add_ptr(2);                          // [3] -> typedef -> struct
    cases.push_back({"a loop through a struct", std::move(b), true});
  }
  {
    Btf b;
    b.add_func_proto(0);                   // [1] void (
    b.add_param("next", 2);                //       [2] next)
    b.add_ptr(1);                          // [2] -> [1]
    cases.push_back({"a prototype taking a pointer to itself", std::move(b), true});
  }
  for (const Case& c : cases) {
    std::vector<uint8_t> bytes = write_raw(c.table);
    if (c.valid) {
      EXPECT_NO_THROW(read_raw(bytes)) << c.what;
      BTFC_EXPECT_LOADS(bytes);
    } else {
      EXPECT_THROW(read_raw(bytes), Error) << c.what;
      std::string why;
      auto r = testing::load_into_kernel_quietly(bytes, &why);
      if (r == testing::LoadResult::NotAllowed) GTEST_SKIP() << "LOUD SKIP: the kernel refuses BTF_LOAD here";
      EXPECT_EQ(r, testing::LoadResult::Refused) << c.what;
      EXPECT_NE(why.find("kernel refused"), std::string::npos) << c.what << ": " << why;  // not libbpf
    }
  }
}

TEST(BtfKernelLoad, BigEndianCopyLoadsThroughLibbpf) {
  // libbpf swaps a non-native blob before handing it to the kernel.
  std::vector<uint8_t> bytes = write_raw(small_table(), true);
  BTFC_EXPECT_LOADS(bytes);
}

// Module-style BTF, split on the running kernel's own vmlinux BTF, loaded
// glued onto that base (see glue_split).
TEST(BtfKernelLoad, SplitOnRunningKernelLoads) {
  std::vector<uint8_t> base_bytes = read_bytes("/sys/kernel/btf/vmlinux");
  Btf base = read_raw(base_bytes);
  auto int_id = [&]() -> TypeId {
    for (TypeId id = 1; id < base.end_id(); ++id)
      if (base.kind(id) == Kind::Int && base.type(id).name() == "int") return id;
    return 0;
  }();
  ASSERT_NE(int_id, 0u);
  Btf split(&base);
  TypeId s = split.add_struct("btfc_test_s", 8);
  split.add_member("a", int_id, 0);
  split.add_member("b", int_id, 32);
  split.add_ptr(s);
  std::vector<uint8_t> bytes = write_raw(split);
  EXPECT_NO_THROW(read_raw(bytes, &base));
  BTFC_EXPECT_LOADS(testing::glue_split(base_bytes, bytes));
}

TEST(BtfKernelLoadCorpus, RewrittenReferencesLoad) {
  std::string dir = testing::reference_dir();
  for (const char* flavour : {"legacy-flags", "features-default"}) {
    SCOPED_TRACE(flavour);
    std::vector<uint8_t> vbytes = write_raw(read_raw(read_bytes(dir + "/vmlinux." + flavour + ".btf")));
    BTFC_EXPECT_LOADS(vbytes);
    Btf base = read_raw(vbytes);
    for (const std::string& mod : testing::reference_modules()) {
      SCOPED_TRACE(mod);
      std::vector<uint8_t> bytes = write_raw(read_raw(read_bytes(dir + "/" + mod + "." + flavour + ".btf"), &base));
      BTFC_EXPECT_LOADS(testing::glue_split(vbytes, bytes));
    }
  }
  // pahole's global_var output names one variable twice at one offset of
  // .rodata; the kernel refuses that ("Invalid offset"), so btfc's reader
  // lets overlap through (dump must show it) but the kernel stays the judge.
  Btf gv_btf = read_raw(read_bytes(dir + "/vmlinux.features-default-global_var.btf"));
  try {
    validate_for_kernel(gv_btf);
    ADD_FAILURE() << "validate_for_kernel accepted the overlapping .rodata variables";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              ".BTF+0x2cd96c: type [123725] DATASEC '.rodata': variable 552 at offset 191840 overlaps the previous "
              "one (ending at 191936)");
  }
  std::vector<uint8_t> gv = write_raw(gv_btf);
  auto r = testing::load_into_kernel_quietly(gv);
  if (r == testing::LoadResult::NotAllowed) GTEST_SKIP() << "\n*** KERNEL LOAD NOT ALLOWED: NOT TESTED ***\n";
  EXPECT_EQ(r, testing::LoadResult::Refused);
}

TEST(BtfKernelLoadCorpus, RewrittenCorpusAndKernelBtfLoad) {
  std::vector<uint8_t> sys = write_raw(read_file("/sys/kernel/btf/vmlinux"));
  BTFC_EXPECT_LOADS(sys);
  std::string dir = test::corpus_dir();
  if (dir.empty()) GTEST_SKIP() << "\n*** corpus not unpacked: corpus vmlinux .BTF NOT TESTED ***\n";
  std::vector<uint8_t> bytes = write_raw(read_file(dir + "/vmlinux"));
  BTFC_EXPECT_LOADS(bytes);
}

}  // namespace
}  // namespace btfc::btf
