// distill_base and relocate (src/btf/distill.h).
//
// Oracles:
//  - libbpf's own selftest of btf__distill_base()/btf__relocate()
//    (tools/testing/selftests/bpf/prog_tests/btf_distill.c, libbpf 1.5):
//    the same base and split tables are built here with btfc's builders
//    (byte-identical to libbpf's btf__add_*), and the expected dumps are
//    that selftest's expectations, line for line. Debian's libbpf 1.1 has
//    neither function, so the expectations stand in for running it.
//  - relocation back onto the full base, then libbpf-compatible dedup (which
//    folds the moved copies back into the base's types), must give the
//    original module types again (btfc's semantic diff): on the nine pahole
//    1.31 corpus modules (suite DistillCorpus).
//  - the kernel loads the distilled base with the split types glued on.
#include "btf/distill.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "btf/btf_test_util.h"
#include "btf/dedup.h"
#include "btf/diff.h"
#include "btf/dump.h"
#include "btf/reader.h"
#include "btf/writer.h"

namespace btfc::btf {
namespace {

// Every line of a table and its base, as libbpf's VALIDATE_RAW_BTF sees
// them (base types first).
std::string dump_all(const Btf& b) {
  std::string out;
  if (b.base()) dump_raw(*b.base(), out);
  dump_raw(b, out);
  return out;
}

std::string lines(std::initializer_list<const char*> l) {
  std::string s;
  for (const char* x : l) s += std::string(x) + "\n";
  return s;
}

// The base of the selftest "distilled_base": ids 1..17.
Btf selftest_base() {
  Btf b;
  b.add_int("int", 4, INT_SIGNED);  // [1]
  b.add_ptr(1);                     // [2]
  b.add_struct("s1", 8);            // [3]
  b.add_member("f1", 2, 0);
  b.add_struct("", 12);             // [4] anonymous, embeds struct s1
  b.add_member("f1", 1, 0);
  b.add_member("f2", 3, 32);
  b.add_int("unsigned int", 4, 0);  // [5] not referred to
  b.add_union("u1", 12);            // [6]
  b.add_member("f1", 1, 0);
  b.add_member("f2", 2, 0);
  b.add_union("", 4);               // [7]
  b.add_member("f1", 1, 0);
  b.add_enum("e1", 4);              // [8]
  b.add_enum_value("v1", 1);
  b.add_enum("", 4);                // [9]
  b.add_enum_value("av1", 2);
  b.add_enum64("e641", 8, true);    // [10]
  b.add_enum64_value("v1", 1024);
  b.add_enum64("", 8, true);        // [11]
  b.add_enum64_value("v1", 1025);
  b.add_struct("unneeded", 4);      // [12]
  b.add_member("f1", 1, 0);
  b.add_struct("embedded", 4);      // [13]
  b.add_member("f1", 1, 0);
  b.add_func_proto(1);              // [14]
  b.add_param("p1", 1);
  b.add_array(1, 1, 3);             // [15]
  b.add_struct("from_proto", 4);    // [16]
  b.add_member("f1", 1, 0);
  b.add_union("u1", 4);             // [17] a second union u1, other size
  b.add_member("f1", 1, 0);
  return b;
}

Btf selftest_split(const Btf& base) {
  Btf s(&base);
  s.add_ptr(3);                      // [18] struct s1 *
  s.add_ptr(4);                      // [19] pointer to the anonymous struct
  s.add_const(6);                    // [20] const union u1
  s.add_restrict(7);                 // [21]
  s.add_volatile(8);                 // [22] volatile enum e1
  s.add_typedef("et", 9);            // [23] typedef of the anonymous enum
  s.add_const(10);                   // [24] const enum64 e641
  s.add_ptr(11);                     // [25]
  s.add_struct("with_embedded", 4);  // [26] embeds struct embedded
  s.add_member("f1", 13, 0);
  s.add_func("fn", 14, FuncLinkage::Static);  // [27]
  s.add_typedef("arraytype", 15);    // [28]
  s.add_func_proto(1);               // [29] int (*)(struct from_proto)
  s.add_param("p1", 16);
  return s;
}

TEST(Distill, LibbpfSelftestDistilledBase) {
  Btf base = selftest_base();
  Btf split = selftest_split(base);
  DistilledBtf d = distill_base(split);
  EXPECT_EQ(d.base->end_id(), 8u);  // libbpf: btf__type_cnt(btf3) == 8
  EXPECT_EQ(dump_all(d.split),
            lines({"[1] INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED",
                   "[2] STRUCT 's1' size=8 vlen=0",
                   "[3] UNION 'u1' size=12 vlen=0",
                   "[4] ENUM 'e1' encoding=UNSIGNED size=4 vlen=0",
                   "[5] ENUM 'e641' encoding=UNSIGNED size=8 vlen=0",
                   "[6] STRUCT 'embedded' size=4 vlen=0",
                   "[7] STRUCT 'from_proto' size=4 vlen=0",
                   "[8] PTR '(anon)' type_id=2",
                   "[9] PTR '(anon)' type_id=20",
                   "[10] CONST '(anon)' type_id=3",
                   "[11] RESTRICT '(anon)' type_id=21",
                   "[12] VOLATILE '(anon)' type_id=4",
                   "[13] TYPEDEF 'et' type_id=22",
                   "[14] CONST '(anon)' type_id=5",
                   "[15] PTR '(anon)' type_id=23",
                   "[16] STRUCT 'with_embedded' size=4 vlen=1",
                   "\t'f1' type_id=6 bits_offset=0",
                   "[17] FUNC 'fn' type_id=24 linkage=static",
                   "[18] TYPEDEF 'arraytype' type_id=25",
                   "[19] FUNC_PROTO '(anon)' ret_type_id=1 vlen=1",
                   "\t'p1' type_id=7",
                   "[20] STRUCT '(anon)' size=12 vlen=2",
                   "\t'f1' type_id=1 bits_offset=0",
                   "\t'f2' type_id=2 bits_offset=32",
                   "[21] UNION '(anon)' size=4 vlen=1",
                   "\t'f1' type_id=1 bits_offset=0",
                   "[22] ENUM '(anon)' encoding=UNSIGNED size=4 vlen=1",
                   "\t'av1' val=2",
                   "[23] ENUM64 '(anon)' encoding=SIGNED size=8 vlen=1",
                   "\t'v1' val=1025LL",  // bpftool prints the LL; the selftest's printer does not
                   "[24] FUNC_PROTO '(anon)' ret_type_id=1 vlen=1",
                   "\t'p1' type_id=1",
                   "[25] ARRAY '(anon)' type_id=1 index_type_id=1 nr_elems=3"}));

  // btf__relocate(btf4, btf1): the module types keep ids 18..29, the moved
  // base types become 30..35 (duplicates of base types, as in libbpf).
  Btf back = relocate(d.split, base);
  std::string out;
  dump_raw(back, out);
  EXPECT_EQ(out, lines({"[18] PTR '(anon)' type_id=3",
                        "[19] PTR '(anon)' type_id=30",
                        "[20] CONST '(anon)' type_id=6",
                        "[21] RESTRICT '(anon)' type_id=31",
                        "[22] VOLATILE '(anon)' type_id=8",
                        "[23] TYPEDEF 'et' type_id=32",
                        "[24] CONST '(anon)' type_id=10",
                        "[25] PTR '(anon)' type_id=33",
                        "[26] STRUCT 'with_embedded' size=4 vlen=1",
                        "\t'f1' type_id=13 bits_offset=0",
                        "[27] FUNC 'fn' type_id=34 linkage=static",
                        "[28] TYPEDEF 'arraytype' type_id=35",
                        "[29] FUNC_PROTO '(anon)' ret_type_id=1 vlen=1",
                        "\t'p1' type_id=16",
                        "[30] STRUCT '(anon)' size=12 vlen=2",
                        "\t'f1' type_id=1 bits_offset=0",
                        "\t'f2' type_id=3 bits_offset=32",
                        "[31] UNION '(anon)' size=4 vlen=1",
                        "\t'f1' type_id=1 bits_offset=0",
                        "[32] ENUM '(anon)' encoding=UNSIGNED size=4 vlen=1",
                        "\t'av1' val=2",
                        "[33] ENUM64 '(anon)' encoding=SIGNED size=8 vlen=1",
                        "\t'v1' val=1025LL",
                        "[34] FUNC_PROTO '(anon)' ret_type_id=1 vlen=1",
                        "\t'p1' type_id=1",
                        "[35] ARRAY '(anon)' type_id=1 index_type_id=1 nr_elems=3"}));
  validate(back);
  // Dedup folds the moved copies into the base again: the original module.
  dedup(back);
  DiffResult r = diff(back, split, {"relocated", "original"});
  EXPECT_TRUE(r.equivalent) << r.report;
}

// Two INTs of one name, different sizes: told apart by size.
TEST(Distill, LibbpfSelftestMulti) {
  Btf base;
  base.add_int("int", 4, INT_SIGNED);
  base.add_int("int", 8, INT_SIGNED);
  Btf split(&base);
  split.add_ptr(1);
  split.add_const(2);
  DistilledBtf d = distill_base(split);
  EXPECT_EQ(dump_all(*d.base), lines({"[1] INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED",
                                      "[2] INT 'int' size=8 bits_offset=0 nr_bits=64 encoding=SIGNED"}));
  Btf back = relocate(d.split, base);
  std::string out;
  dump_raw(back, out);
  EXPECT_EQ(out, lines({"[3] PTR '(anon)' type_id=1", "[4] CONST '(anon)' type_id=2"}));
}

void expect_relocate_error(const Btf& split, const Btf& base, const std::string& needle) {
  try {
    relocate(split, base);
    ADD_FAILURE() << "relocation succeeded; expected an error containing: " << needle;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

// A needed type the new base lacks (libbpf: -EINVAL).
TEST(Distill, LibbpfSelftestMissingErr) {
  Btf base;
  base.add_int("int", 4, INT_SIGNED);
  base.add_int("int", 8, INT_SIGNED);
  Btf split(&base);
  split.add_ptr(1);
  split.add_const(2);
  DistilledBtf d = distill_base(split);
  Btf other;
  other.add_int("int", 4, INT_SIGNED);
  expect_relocate_error(d.split, other, "distilled base BTF type [2] INT 'int' is not mapped to base BTF id");
}

// Two identical distilled types, or two identical candidates: ambiguous.
TEST(Distill, LibbpfSelftestMultiErr) {
  Btf base;
  base.add_int("int", 4, INT_SIGNED);
  base.add_int("int", 4, INT_SIGNED);
  Btf split(&base);
  split.add_ptr(1);
  split.add_const(2);
  DistilledBtf d = distill_base(split);
  EXPECT_EQ(d.base->end_id(), 3u);
  expect_relocate_error(d.split, base, "has multiple candidates of the same size");

  Btf one;
  one.add_int("int", 4, INT_SIGNED);
  Btf split2(&one);
  split2.add_ptr(1);
  DistilledBtf d2 = distill_base(split2);
  EXPECT_EQ(d2.base->end_id(), 2u);
  expect_relocate_error(d2.split, base, "has multiple candidates of the same size");
}

// A struct the module embeds must keep its size; one it only points to
// need not.
TEST(Distill, LibbpfSelftestEmbeddedErr) {
  Btf base;
  base.add_int("int", 4, INT_SIGNED);
  base.add_struct("s1", 4);
  base.add_member("f1", 1, 0);
  Btf split(&base);
  split.add_struct("with_embedded", 8);
  split.add_member("e1", 2, 0);
  DistilledBtf d = distill_base(split);
  EXPECT_EQ(dump_all(d.split), lines({"[1] STRUCT 's1' size=4 vlen=0", "[2] STRUCT 'with_embedded' size=8 vlen=1",
                                      "\t'e1' type_id=1 bits_offset=0"}));
  Btf bigger;
  bigger.add_int("int", 4, INT_SIGNED);
  bigger.add_struct("s1", 8);
  bigger.add_member("f1", 1, 0);
  expect_relocate_error(d.split, bigger, "'s1' is not mapped");

  // Through a pointer the size no longer matters (btfc's own case).
  Btf by_ptr(&base);
  by_ptr.add_ptr(2);
  DistilledBtf p = distill_base(by_ptr);
  Btf back = relocate(p.split, bigger);
  EXPECT_EQ(back.type(back.start_id()).type(), 2u);
}

// An embedded struct reached through typedef, const and array is embedded too.
TEST(Distill, EmbeddedThroughQualifiersAndArrays) {
  Btf base;
  base.add_int("int", 4, INT_SIGNED);  // [1]
  base.add_struct("s1", 4);            // [2]
  base.add_member("f1", 1, 0);
  base.add_typedef("s1_t", 2);         // [3]
  Btf split(&base);
  TypeId c = split.add_const(3);       // [4]
  TypeId a = split.add_array(c, 1, 2);  // [5]
  split.add_struct("holder", 8);       // [6]
  split.add_member("arr", a, 0);
  DistilledBtf d = distill_base(split);
  Btf bigger;
  bigger.add_int("int", 4, INT_SIGNED);
  bigger.add_struct("s1", 8);
  bigger.add_member("f1", 1, 0);
  bigger.add_typedef("s1_t", 2);
  expect_relocate_error(d.split, bigger, "'s1' is not mapped");
}

// A .BTF.base that is not a distilled base (from a stranger's file) is
// refused with the kernel's reasons, not misread.
TEST(Distill, RelocateRefusesWhatIsNotADistilledBase) {
  Btf full;
  full.add_int("int", 4, INT_SIGNED);
  Btf with_ptr;
  with_ptr.add_int("int", 4, INT_SIGNED);
  with_ptr.add_ptr(1);
  Btf s1(&with_ptr);
  s1.add_const(2);
  expect_relocate_error(s1, full, "type [2] in distilled base BTF has unexpected kind PTR");
  Btf with_anon;
  with_anon.add_struct("", 4);
  Btf s2(&with_anon);
  s2.add_ptr(1);
  expect_relocate_error(s2, full, "type [1] STRUCT is invalid for distilled base BTF: it is anonymous");
  Btf standalone;
  standalone.add_int("int", 4, INT_SIGNED);
  expect_relocate_error(standalone, full, "not split BTF");
}

// pahole 1.31 without --btf_base: libbpf's btf__distill_base() refuses
// standalone BTF with EINVAL, and pahole reports it.
TEST(Distill, StandaloneBtfRefused) {
  Btf b;
  b.add_int("int", 4, INT_SIGNED);
  try {
    distill_base(b);
    ADD_FAILURE() << "distilled standalone BTF";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("could not generate distilled base BTF: Invalid argument"),
              std::string::npos)
        << e.what();
  }
}

// A module type pointing at a base FUNC (or VAR, DATASEC, DECL_TAG):
// libbpf refuses to distill it.
TEST(Distill, UnexpectedBaseKindRefused) {
  Btf base;
  TypeId proto = base.add_func_proto(0);
  TypeId fn = base.add_func("f", proto, FuncLinkage::Static);
  Btf split(&base);
  split.add_decl_tag("tag", fn, -1);
  try {
    distill_base(split);
    ADD_FAILURE() << "distilled a reference to a base FUNC";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("refers to base type [2] FUNC 'f'"), std::string::npos) << e.what();
  }
}

// Anonymous types inside anonymous types travel whole, named ones they
// reach stay behind; FWDs and FLOATs are copied into the base; a module
// string equal to a distilled type's name shares the base's offset.
TEST(Distill, NestedAnonymousTypesAndStrings) {
  Btf base;
  TypeId i = base.add_int("int", 4, INT_SIGNED);  // [1]
  TypeId f = base.add_float("double", 8);        // [2]
  TypeId fwd = base.add_fwd("opaque", false);    // [3]
  TypeId pf = base.add_ptr(fwd);                 // [4]
  TypeId named = base.add_struct("named", 8);    // [5]
  base.add_member("d", f, 0);
  TypeId inner = base.add_union("", 8);          // [6]
  base.add_member("n", named, 0);
  base.add_member("p", pf, 0);
  TypeId outer = base.add_struct("", 12);        // [7]
  base.add_member("u", inner, 0);
  base.add_member("i", i, 64);
  Btf split(&base);
  split.add_struct("mod", 12);                   // [8]
  split.add_member("named", outer, 0);           // member name = a distilled type name
  DistilledBtf d = distill_base(split);
  EXPECT_EQ(dump_all(d.split), lines({"[1] INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED",
                                      "[2] FWD 'opaque' fwd_kind=struct",
                                      "[3] STRUCT 'named' size=8 vlen=0",
                                      "[4] STRUCT 'mod' size=12 vlen=1",
                                      "\t'named' type_id=7 bits_offset=0",
                                      "[5] PTR '(anon)' type_id=2",
                                      "[6] UNION '(anon)' size=8 vlen=2",
                                      "\t'n' type_id=3 bits_offset=0",
                                      "\t'p' type_id=5 bits_offset=0",
                                      "[7] STRUCT '(anon)' size=12 vlen=2",
                                      "\t'u' type_id=6 bits_offset=0",
                                      "\t'i' type_id=1 bits_offset=64"}));
  // 'named' is in the distilled base's strings, not again in the split's.
  EXPECT_EQ(d.split.type(4).member(0).name_off, d.base->type(3).name_off());
  EXPECT_FALSE(d.split.strings().find("named").has_value());
  // `double` is not needed: only the named struct's members refer to it.
  Btf back = relocate(d.split, base);
  validate(back);
  dedup(back);
  DiffResult r = diff(back, split, {"relocated", "original"});
  EXPECT_TRUE(r.equivalent) << r.report;
}

// The written pair reads back (kernel-like validation), in either byte
// order, and the kernel loads the distilled base with the split glued on.
TEST(Distill, RawRoundTripAndKernelLoad) {
  Btf base = selftest_base();
  Btf split = selftest_split(base);
  DistilledBtf d = distill_base(split);
  for (bool big : {false, true}) {
    std::vector<uint8_t> b = write_raw(*d.base, big), s = write_raw(d.split, big);
    Btf rb = read_raw(b, nullptr, ".BTF.base");
    Btf rs = read_raw(s, &rb);
    std::string x, y;
    dump_raw(rs, x);
    dump_raw(d.split, y);
    EXPECT_EQ(x, y);
  }
  BTFC_EXPECT_LOADS(testing::glue_split(write_raw(*d.base, false), write_raw(d.split, false)));
}

// Every module of the corpus, as pahole 1.31 encoded it on its vmlinux:
// distilled, the distilled base holds only placeholders, the pair is valid
// and loads, and relocated onto the full vmlinux (then deduplicated) it is
// the module again.
TEST(DistillCorpus, ReferenceModulesRelocateToThemselves) {
  std::string dir = testing::reference_dir();
  std::string vm_path = dir + "/vmlinux.features-default.btf";
  if (!std::filesystem::exists(vm_path)) GTEST_SKIP() << "*** pahole 1.31 references missing: NOT CHECKED ***";
  Btf vmlinux = read_file(vm_path);
  for (const std::string& m : testing::reference_modules()) {
    SCOPED_TRACE(m);
    Btf mod = read_file(dir + "/" + m + ".features-default.btf", &vmlinux);
    DistilledBtf d = distill_base(mod);
    size_t placeholders = 0, moved = d.split.type_count() - mod.type_count();
    for (TypeId id = 1; id < d.base->end_id(); ++id) {
      TypeView t = d.base->type(id);
      ASSERT_NE(t.name_off(), 0u);
      switch (t.kind()) {
        case Kind::Struct: case Kind::Union: case Kind::Enum:
          EXPECT_EQ(t.vlen(), 0u) << "distilled [" << id << "] " << t.name();
          placeholders++;
          break;
        case Kind::Int: case Kind::Float: case Kind::Fwd:
          break;
        default:
          ADD_FAILURE() << "distilled base type [" << id << "] of kind " << kind_name(t.kind());
      }
    }
    std::vector<uint8_t> bb = write_raw(*d.base, false), sb = write_raw(d.split, false);
    Btf rb = read_raw(bb, nullptr, ".BTF.base");
    Btf rs = read_raw(sb, &rb);
    std::printf("%-14s vmlinux %u types -> distilled base %u (%zu placeholders), split %u -> %u (+%zu moved), "
                ".BTF.base %zu bytes\n",
                m.c_str(), vmlinux.type_count(), d.base->type_count(), placeholders, mod.type_count(),
                d.split.type_count(), moved, bb.size());
    BTFC_EXPECT_LOADS(testing::glue_split(bb, sb));
    Btf back = relocate(rs, vmlinux);
    validate(back);
    dedup(back);
    // pahole 1.31's nf_tables and kvm are not fixed points of dedup (a
    // second dedup merges their private copies of struct module and
    // gfn_to_pfn_cache into vmlinux's), so the module is compared after
    // the same second dedup.
    Btf again = read_file(dir + "/" + m + ".features-default.btf", &vmlinux);
    dedup(again);
    DiffResult r = diff(back, again, {"distilled+relocated+dedup", "pahole-1.31+dedup"});
    EXPECT_TRUE(r.equivalent) << r.report;
    EXPECT_EQ(back.type_count(), again.type_count());
  }
}

}  // namespace
}  // namespace btfc::btf
