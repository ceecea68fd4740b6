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
#include "base/parallel.h"
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

// Dedup's string pass takes a name for the one that followed the name
// before it last time when the bytes agree: here "a", the region's last
// string, after "x" that "abcdefghij" followed before. The comparison must
// not read past the region (held in a vector of its exact size, so that
// the sanitizer build sees an overread), and the result is the serial
// append's.
TEST(MergeUnits, PredictedNameLongerThanTheRegionLeft) {
  static const std::string kText = std::string("\0x\0abcdefghij\0a\0", 16);
  static const std::vector<char> region(kText.begin(), kText.end());
  auto at = [&](std::string_view s) {
    const size_t pos = kText.find(std::string(s) + '\0', 1);
    return std::string_view(region.data() + pos, s.size());
  };
  ASSERT_EQ(at("a").data() + 2, region.data() + region.size());
  auto build = [&](bool shared, std::string_view second) {
    Btf b;
    if (shared) b.share_strings({region.data(), region.size()});
    auto name = [&](std::string_view s) { return shared ? at(s) : s; };
    TypeId i = b.add_int("int", 4, INT_SIGNED);
    b.add_struct(shared ? at(second) : second, 8);
    b.add_member(name("x"), i, 0);
    b.add_member(name(second), i, 32);
    return b;
  };
  Btf u1 = build(true, "abcdefghij"), u2 = build(true, "a");
  Btf merged;
  std::vector<const Btf*> tables{&u1, &u2};
  merge_units(merged, tables);
  Btf serial;
  append(serial, build(false, "abcdefghij"));
  append(serial, build(false, "a"));
  dedup(merged);
  dedup(serial);
  EXPECT_EQ(write_raw(merged, false), write_raw(serial, false));
  EXPECT_EQ(merged.type_count(), 3u);  // int, two structs
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

// ---- Groups named by shared offset (DedupOptions::own_name_words) ----

// A group of units whose names are texts of `region` (pointers into it:
// a name at a string's start, or the tail of a longer one) or, for names
// not in it, the units' own strings (NUL-terminated). Each unit: `int`, then per name a
// struct with one int member of that name every third name, else a
// typedef of int, as expect_shared_region_matches_libbpf builds them.
using Group = std::vector<std::vector<std::string_view>>;

Btf group_unit(const std::string& region, const std::vector<std::string_view>& names) {
  Btf b;
  b.share_strings(region);
  TypeId unit_int = b.add_int("int", 4, INT_SIGNED);
  for (size_t k = 0; k < names.size(); ++k) {
    // As a DWARF reader adds them: a name of the region unread (even "").
    const uint32_t name = b.add_string_pooled(names[k].data());
    if (k % 3 == 0) {
      b.add_struct_name_off(name, 4);
      b.add_member_name_off(name, unit_int, 0);
    } else {
      b.add_typedef_name_off(name, unit_int);
    }
  }
  return b;
}

// The encoder's way with vmlinux: each group merged and deduplicated on
// its own (by offset or by text), the results appended in order, then
// deduplicated whole. Returns the bytes; `held` gets SharedNames::held().
std::vector<uint8_t> encode_groups(const std::string& region, const std::vector<Group>& groups, bool by_offset,
                                   bool* held = nullptr) {
  Btf out;
  SharedNames names;
  set_jobs(2);
  for (const Group& g : groups) {
    std::vector<Btf> units;
    for (const std::vector<std::string_view>& u : g) units.push_back(group_unit(region, u));
    std::vector<const Btf*> tables;
    for (const Btf& u : units) tables.push_back(&u);
    Btf table;
    std::vector<uint32_t> own_name_words;
    merge_units(table, tables, by_offset ? &own_name_words : nullptr);
    dedup(table, {.own_name_words = by_offset ? &own_name_words : nullptr});
    EXPECT_EQ(!table.shared_strings().empty(), by_offset);
    append(out, table, {}, &names);
  }
  set_jobs(0);
  dedup(out);
  if (held) *held = names.held();
  return write_raw(out, false);
}

// A merged .debug_str: every text once, some referenced by their tail
// ("ame_N" of "name_N"). Three groups, the middle one with more types
// than a chunk of the string pass (whose chunks then patch their own
// words), and own strings, some equal across groups: the very bytes of
// groups deduplicated by text, and the check holds.
TEST(SharedNames, OffsetsAsNamesGiveTheBytesOfNamesByText) {
  std::string region(1, '\0');
  std::vector<size_t> at;
  for (int k = 0; k < 6000; ++k) {
    at.push_back(region.size());
    region += "name_" + std::to_string(k) + '\0';
  }
  std::vector<std::string> own;
  for (int k = 0; k < 50; ++k) own.push_back("own" + std::to_string(k));
  auto unit = [&](int u, int count) {
    std::vector<std::string_view> names;
    for (int k = 0; k < count; ++k) {
      const int n = (k * 7 + u * 131) % 6000;
      if (k % 97 == 5) names.push_back(own[(k + u) % own.size()]);
      else if (n % 5 == 3) names.push_back(std::string_view(region.data() + at[n] + 1));  // "ame_N"
      else names.push_back(std::string_view(region.data() + at[n]));
    }
    return names;
  };
  std::vector<Group> groups(3);
  for (int u = 0; u < 4; ++u) groups[0].push_back(unit(u, 500));
  for (int u = 4; u < 40; ++u) groups[1].push_back(unit(u, 4000));
  for (int u = 40; u < 43; ++u) groups[2].push_back(unit(u, 300));
  bool held = false;
  const std::vector<uint8_t> by_offset = encode_groups(region, groups, true, &held);
  EXPECT_TRUE(held);
  EXPECT_TRUE(by_offset == encode_groups(region, groups, false));
}

// What the check catches, in one group: a text named at two offsets (a
// string's start and another string's tail), at one offset and by an own
// string, and an empty name at a nonzero offset. The same two ways in two
// different groups are no problem: each group was deduplicated on its own,
// and the bytes are those of names by text.
TEST(SharedNames, TextNamedTwoWaysInOneGroupIsCaught) {
  const std::string region = std::string("\0next\0rb_next\0\0", 15);
  const std::string_view next(region.data() + 1), tail(region.data() + 9), empty(region.data() + 14);
  ASSERT_EQ(tail, "next");
  ASSERT_EQ(empty, "");
  const std::string own_next = "next";
  auto held = [&](const std::vector<Group>& groups) {
    bool h = true;
    encode_groups(region, groups, true, &h);
    return h;
  };
  EXPECT_TRUE(held({Group{{next}, {next}}}));
  EXPECT_FALSE(held({Group{{next}, {tail}}}));
  EXPECT_FALSE(held({Group{{next, tail}}}));
  EXPECT_FALSE(held({Group{{next}, {own_next}}}));
  EXPECT_FALSE(held({Group{{next}, {empty}}}));
  const std::vector<Group> apart{Group{{next}}, Group{{tail}}, Group{{own_next}}};
  bool h = false;
  EXPECT_TRUE(encode_groups(region, apart, true, &h) == encode_groups(region, apart, false));
  EXPECT_TRUE(h);
}

}  // namespace
}  // namespace btfc::btf
