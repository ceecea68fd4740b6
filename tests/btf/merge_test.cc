// btf::merge_units, the encoder's parallel merge of per-unit tables, and
// the shared strings it relies on (Btf::share_strings). The oracle is the
// serial btf::append: merging either way and deduplicating must give the
// same bytes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "btf/btf.h"
#include "btf/dedup.h"
#include "btf/merge.h"
#include "btf/writer.h"

namespace btfc::btf {
namespace {

// A stand-in for .debug_str: NUL-terminated names back to back.
const std::string kRegion = std::string("\0list_head\0next\0prev\0int\0", 25);

std::string_view in_region(std::string_view name) {
  size_t at = kRegion.find(std::string(name) + '\0');
  EXPECT_NE(at, std::string::npos) << name;
  return std::string_view(kRegion.data() + at, name.size());
}

// One unit: int, struct list_head { next, prev: list_head * }, and a name
// that is not in the region ("own"). With `shared`, names come from the
// region as a DWARF reader hands them out.
Btf unit(bool shared, std::string_view own) {
  Btf b;
  if (shared) b.share_strings(kRegion);
  auto name = [&](std::string_view s) { return shared ? in_region(s) : s; };
  TypeId i = b.add_int(name("int"), 4, INT_SIGNED);
  TypeId s = b.add_struct(name("list_head"), 16);
  b.add_member(name("next"), s + 1, 0);
  b.add_member(name("prev"), s + 1, 64);
  b.add_ptr(s);
  b.add_typedef(own, i);
  return b;
}

TEST(MergeUnits, SharedStringsNeedNoLookup) {
  Btf b;
  b.share_strings(kRegion);
  uint32_t off = b.add_string(in_region("next"));
  EXPECT_GE(off, Btf::SHARED_STR_BASE);
  EXPECT_EQ(b.str(off), "next");
  // A string inside the region but not ending at a NUL there ("nex") and
  // one outside it are stored as own strings.
  uint32_t prefix = b.add_string(std::string_view(in_region("next").data(), 3));
  EXPECT_LT(prefix, Btf::SHARED_STR_BASE);
  EXPECT_EQ(b.str(prefix), "nex");
  std::string elsewhere = "next";
  EXPECT_LT(b.add_string(elsewhere), Btf::SHARED_STR_BASE);
}

TEST(MergeUnits, SameResultAsSerialAppend) {
  std::vector<Btf> shared, plain;
  for (const char* own : {"u8", "u16", "u8"}) {
    shared.push_back(unit(true, own));
    plain.push_back(unit(false, own));
  }
  Btf serial;
  for (const Btf& u : plain) append(serial, u);
  Btf merged;
  std::vector<const Btf*> tables;
  for (const Btf& u : shared) tables.push_back(&u);
  std::vector<TypeId> first = merge_units(merged, tables);
  ASSERT_EQ(first, (std::vector<TypeId>{1, 5, 9}));
  ASSERT_EQ(merged.type_count(), serial.type_count());
  // Before dedup: the same records, names read back through any offset.
  for (TypeId id = 1; id < merged.end_id(); id++) {
    EXPECT_EQ(merged.type(id).name(), serial.type(id).name()) << id;
    EXPECT_EQ(merged.type(id).kind(), serial.type(id).kind()) << id;
  }
  EXPECT_EQ(merged.type(3).type(), 2u);   // PTR -> list_head of unit 1
  EXPECT_EQ(merged.type(7).type(), 6u);   // ... of unit 2, shifted
  dedup(merged);
  dedup(serial);
  EXPECT_EQ(write_raw(merged, false), write_raw(serial, false));
  EXPECT_EQ(merged.type_count(), 5u);  // int, list_head, PTR, typedef u8, typedef u16
}

TEST(MergeUnits, SplitOutputKeepsBaseIds) {
  Btf base;
  base.add_int("long", 8, INT_SIGNED);
  Btf out(&base);
  Btf u = unit(true, "own");
  std::vector<const Btf*> tables{&u};
  std::vector<TypeId> first = merge_units(out, tables);
  EXPECT_EQ(first[0], 2u);
  EXPECT_EQ(out.type(4).type(), 3u);  // PTR -> list_head
  EXPECT_EQ(out.type(3).name(), "list_head");
  EXPECT_EQ(out.type(5).name(), "own");
}

TEST(MergeUnits, RejectsReferencePastTheTable) {
  Btf u;
  u.add_ptr(7);  // no type 7 in this table
  Btf out;
  std::vector<const Btf*> tables{&u};
  try {
    merge_units(out, tables);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("refers to 7, past the last type"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace btfc::btf
