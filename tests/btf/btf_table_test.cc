// The type table against libbpf: the same types built with btfc's add_* and
// with libbpf's btf__add_* must give the same raw bytes (libbpf is what
// pahole builds BTF with). Also the split-BTF id/string numbering and the
// id/string visitors.
#include <bpf/btf.h>
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "btf/btf.h"
#include "btf/writer.h"
#include "support/dedup_ways.h"

namespace btfc::btf {
namespace {

// One of each kind libbpf 1.1 can build, in the same order on both sides.
TEST(BtfTable, BuildersMatchLibbpfByteForByte) {
  struct btf* lb = btf__new_empty();
  ASSERT_NE(lb, nullptr);
  Btf b;

  EXPECT_EQ(b.add_int("int", 4, INT_SIGNED), btf__add_int(lb, "int", 4, BTF_INT_SIGNED));
  EXPECT_EQ(b.add_int("_Bool", 1, INT_BOOL), btf__add_int(lb, "_Bool", 1, BTF_INT_BOOL));
  EXPECT_EQ(b.add_ptr(1), btf__add_ptr(lb, 1));
  EXPECT_EQ(b.add_array(1, 1, 16), btf__add_array(lb, 1, 1, 16));  // libbpf: (index, elem, n)
  EXPECT_EQ(b.add_struct("s", 16), btf__add_struct(lb, "s", 16));
  b.add_member("a", 1, 0);
  ASSERT_EQ(btf__add_field(lb, "a", 1, 0, 0), 0);
  b.add_member("", 1, 32);
  ASSERT_EQ(btf__add_field(lb, nullptr, 1, 32, 0), 0);
  b.add_member("bits", 1, 67, 3);  // a bitfield turns on the kind_flag
  ASSERT_EQ(btf__add_field(lb, "bits", 1, 67, 3), 0);
  EXPECT_EQ(b.add_union("", 4), btf__add_union(lb, nullptr, 4));
  b.add_member("x", 1, 0);
  ASSERT_EQ(btf__add_field(lb, "x", 1, 0, 0), 0);
  EXPECT_EQ(b.add_enum("e", 4), btf__add_enum(lb, "e", 4));
  b.add_enum_value("A", 0);
  ASSERT_EQ(btf__add_enum_value(lb, "A", 0), 0);
  b.add_enum_value("B", -5);  // negative: signed
  ASSERT_EQ(btf__add_enum_value(lb, "B", -5), 0);
  b.add_enum_value("C", 0xffffffffll);
  ASSERT_EQ(btf__add_enum_value(lb, "C", 0xffffffffll), 0);
  EXPECT_EQ(b.add_enum64("e64", 8, true), btf__add_enum64(lb, "e64", 8, true));
  b.add_enum64_value("BIG", 0x123456789abcdef0ull);
  ASSERT_EQ(btf__add_enum64_value(lb, "BIG", 0x123456789abcdef0ull), 0);
  EXPECT_EQ(b.add_fwd("fs", false), btf__add_fwd(lb, "fs", BTF_FWD_STRUCT));
  EXPECT_EQ(b.add_fwd("fu", true), btf__add_fwd(lb, "fu", BTF_FWD_UNION));
  EXPECT_EQ(b.add_typedef("t", 1), btf__add_typedef(lb, "t", 1));
  EXPECT_EQ(b.add_volatile(1), btf__add_volatile(lb, 1));
  EXPECT_EQ(b.add_const(1), btf__add_const(lb, 1));
  EXPECT_EQ(b.add_restrict(3), btf__add_restrict(lb, 3));
  EXPECT_EQ(b.add_type_tag("user", 3), btf__add_type_tag(lb, "user", 3));
  TypeId proto = b.add_func_proto(1);
  EXPECT_EQ(proto, btf__add_func_proto(lb, 1));
  b.add_param("p", 3);
  ASSERT_EQ(btf__add_func_param(lb, "p", 3), 0);
  b.add_param("", 1);
  ASSERT_EQ(btf__add_func_param(lb, nullptr, 1), 0);
  TypeId func = b.add_func("f", proto, FuncLinkage::Global);
  EXPECT_EQ(func, btf__add_func(lb, "f", BTF_FUNC_GLOBAL, proto));
  EXPECT_EQ(b.add_func("g", proto, FuncLinkage::Static), btf__add_func(lb, "g", BTF_FUNC_STATIC, proto));
  TypeId var = b.add_var("v", 1, VarLinkage::GlobalAllocated);
  EXPECT_EQ(var, btf__add_var(lb, "v", BTF_VAR_GLOBAL_ALLOCATED, 1));
  EXPECT_EQ(b.add_var("sv", 1, VarLinkage::Static), btf__add_var(lb, "sv", BTF_VAR_STATIC, 1));
  EXPECT_EQ(b.add_datasec(".data", 8), btf__add_datasec(lb, ".data", 8));
  b.add_datasec_var(var, 0, 4);
  ASSERT_EQ(btf__add_datasec_var_info(lb, var, 0, 4), 0);
  b.add_datasec_var(var + 1, 4, 4);
  ASSERT_EQ(btf__add_datasec_var_info(lb, var + 1, 4, 4), 0);
  EXPECT_EQ(b.add_float("double", 8), btf__add_float(lb, "double", 8));
  EXPECT_EQ(b.add_decl_tag("tag", func, -1), btf__add_decl_tag(lb, "tag", func, -1));
  EXPECT_EQ(b.add_decl_tag("ptag", func, 0), btf__add_decl_tag(lb, "ptag", func, 0));
  // Reusing strings: stored once on both sides.
  EXPECT_EQ(b.add_typedef("int", 1), btf__add_typedef(lb, "int", 1));

  EXPECT_EQ(write_raw(b), testing::libbpf_raw(lb));
  btf__free(lb);
}

// The builders that take a name already added (an encoder's stored names)
// make the same bytes as libbpf given the names.
TEST(BtfTable, NameOffBuildersMatchLibbpf) {
  struct btf* lb = btf__new_empty();
  ASSERT_NE(lb, nullptr);
  Btf b;
  ASSERT_EQ(b.add_int("int", 4, INT_SIGNED), btf__add_int(lb, "int", 4, BTF_INT_SIGNED));
  EXPECT_EQ(b.add_struct_name_off(b.add_string("s"), 8), btf__add_struct(lb, "s", 8));
  b.add_member_name_off(b.add_string("a"), 1, 0);
  ASSERT_EQ(btf__add_field(lb, "a", 1, 0, 0), 0);
  // add_members: as many add_member_name_off calls; a bitfield sets the
  // kind_flag of the whole struct, as in libbpf.
  EXPECT_EQ(b.add_struct_name_off(b.add_string("many"), 8), btf__add_struct(lb, "many", 8));
  std::vector<Btf::NewMember> ms = {{b.add_string("x"), 1, 0, 0}, {0, 1, 32, 0}, {b.add_string("bits"), 1, 37, 5}};
  b.add_members(ms);
  ASSERT_EQ(btf__add_field(lb, "x", 1, 0, 0), 0);
  ASSERT_EQ(btf__add_field(lb, nullptr, 1, 32, 0), 0);
  ASSERT_EQ(btf__add_field(lb, "bits", 1, 37, 5), 0);
  EXPECT_EQ(b.add_union_name_off(0, 4), btf__add_union(lb, nullptr, 4));
  EXPECT_EQ(b.add_enum_name_off(b.add_string("e"), 4), btf__add_enum(lb, "e", 4));
  b.add_enum_value_name_off(b.add_string("A"), -1);
  ASSERT_EQ(btf__add_enum_value(lb, "A", -1), 0);
  EXPECT_EQ(b.add_enum64_name_off(b.add_string("e64"), 8, false), btf__add_enum64(lb, "e64", 8, false));
  b.add_enum64_value_name_off(b.add_string("BIG"), 0x123456789ull);
  ASSERT_EQ(btf__add_enum64_value(lb, "BIG", 0x123456789ull), 0);
  EXPECT_EQ(b.add_typedef_name_off(b.add_string("t"), 1), btf__add_typedef(lb, "t", 1));
  EXPECT_EQ(b.add_fwd_name_off(b.add_string("f"), true), btf__add_fwd(lb, "f", BTF_FWD_UNION));
  EXPECT_EQ(b.add_func_proto(1), btf__add_func_proto(lb, 1));
  b.add_param_name_off(b.add_string("p"), 1);
  ASSERT_EQ(btf__add_func_param(lb, "p", 1), 0);
  b.add_param_name_off(0, 1);
  ASSERT_EQ(btf__add_func_param(lb, nullptr, 1), 0);
  EXPECT_EQ(write_raw(b), testing::libbpf_raw(lb));
  btf__free(lb);

  // add_members checks each member as add_member_name_off does.
  Btf m;
  EXPECT_THROW(m.add_members(ms), Error);  // no struct yet
  m.add_union_name_off(0, 4);
  EXPECT_THROW(m.add_members(ms), Error);  // union member off 32
  m.add_struct_name_off(0, 4);
  std::vector<Btf::NewMember> wide = {{0, 1, 1u << 24, 3}};
  EXPECT_THROW(m.add_members(wide), Error);  // bitfield offset past 24 bits

  // Names C requires may not be offset 0 ("").
  Btf r;
  EXPECT_THROW(r.add_typedef_name_off(0, 0), Error);
  EXPECT_THROW(r.add_fwd_name_off(0, false), Error);
  r.add_enum_name_off(0, 4);
  EXPECT_THROW(r.add_enum_value_name_off(0, 1), Error);
  r.add_enum64_name_off(0, 8, false);
  EXPECT_THROW(r.add_enum64_value_name_off(0, 1), Error);
}

// libbpf 1.1 has no btf__add_decl_attr/type_attr: check those words directly.
TEST(BtfTable, AttributeTagsSetKindFlag) {
  Btf b;
  TypeId i = b.add_int("int", 4, INT_SIGNED);
  TypeId d = b.add_decl_tag("a", i, -1, true);
  TypeId t = b.add_type_tag("b", i, true);
  EXPECT_TRUE(b.type(d).kind_flag());
  EXPECT_EQ(b.type(d).component_idx(), -1);
  EXPECT_TRUE(b.type(t).kind_flag());
  EXPECT_EQ(b.type(t).name(), "b");
  EXPECT_EQ(b.type(t).type(), i);
}

// A read table's index (built in parallel chunks of its bytes for big
// tables): every string is found, at its first offset when the same text
// is there twice (here in different chunks), also one that straddles a
// chunk's boundary.
TEST(StringTable, IndexOfReadBytesFindsFirstOffsets) {
  std::string bytes(1, '\0');
  std::vector<std::pair<std::string, uint32_t>> first;
  for (int i = 0; bytes.size() < (3u << 18); ++i) {
    std::string s = "name_" + std::to_string(i % 20000) + std::string(i % 7, 'x');
    if (i < 20000) first.emplace_back(s, static_cast<uint32_t>(bytes.size()));
    bytes += s + '\0';
  }
  // A string across the first boundary (offsets 262140..262149).
  const size_t boundary = size_t{1} << 18;
  bytes.resize(boundary - 5);
  bytes += '\0';
  const std::string across = "straddling";
  bytes += across + '\0';
  bytes += "tail" + std::string(1, '\0');
  StringTable t;
  t.assign(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  for (const auto& [s, off] : first) {
    if (off + s.size() >= boundary - 5) break;  // cut off above
    ASSERT_EQ(t.find(s), std::optional<uint32_t>(off)) << s;
  }
  EXPECT_EQ(t.find(across), std::optional<uint32_t>(static_cast<uint32_t>(boundary - 4)));
  EXPECT_EQ(t.find("tail"), std::optional<uint32_t>(static_cast<uint32_t>(boundary + across.size() - 3)));
  EXPECT_EQ(t.find("absent"), std::nullopt);
  EXPECT_EQ(t.add("tail"), boundary + across.size() - 3);  // found, not added again
}

// Read bytes for the deferred index tests: texts of every length from 0
// to 99 (so across the 64-byte blocks the NULs are found in), bytes above
// 0x7f, texts alike in length and first 8 bytes, a text twice, and a short
// one at the very end.
std::string deferred_test_bytes(std::vector<std::string>& texts) {
  std::string bytes(1, '\0');
  for (int i = 0; i < 3000; ++i) {
    std::string s;
    if (i % 5 == 0) s = "samepfx_" + std::to_string(i % 97);  // alike in length and prefix
    else if (i % 5 == 1) s = std::string(static_cast<size_t>(i % 100), static_cast<char>('a' + i % 26));
    else if (i % 5 == 2) s = "\xe9t\xe9_" + std::to_string(i);  // high bytes
    else s = "t" + std::to_string(i) + std::string(static_cast<size_t>(i % 41), 'q');
    texts.push_back(s);
    bytes += s + '\0';
  }
  texts.push_back("dup");
  bytes += "dup" + std::string(1, '\0') + "x" + std::string(1, '\0') + "dup" + std::string(1, '\0');
  texts.push_back("end");
  bytes += "end" + std::string(1, '\0');
  return bytes;
}

std::span<const uint8_t> as_bytes(const std::string& s) {
  return std::span(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

// A table of `bytes` with its index deferred, and one with its whole index.
std::pair<StringTable, StringTable> deferred_and_whole(const std::string& bytes) {
  std::pair<StringTable, StringTable> tables;
  tables.first.assign_unindexed(as_bytes(bytes));
  tables.first.defer_index();
  tables.second.assign(as_bytes(bytes));
  return tables;
}

// An index built for asked texts only answers every find as the whole
// index does: an asked text at its first offset (or absent), and any other
// text once the whole index is built behind it; add() still finds before
// it appends.
TEST(StringTable, IndexOnlyForAskedTextsAnswersAsTheWholeIndex) {
  std::vector<std::string> texts;
  const std::string bytes = deferred_test_bytes(texts);
  auto [partial, whole] = deferred_and_whole(bytes);
  EXPECT_TRUE(partial.index_deferred());
  // Every other text, and texts absent from the bytes (alike in length
  // and prefix to present ones).
  StringTable asked(/*leading_empty=*/false);
  std::vector<std::string> absent = {"samepfx_98", "samepfx_99", "\xe9t\xe9_x", "nowhere", "du", "dupe"};
  for (size_t i = 0; i < texts.size(); i += 2)
    if (!texts[i].empty()) asked.add(texts[i]);
  for (const std::string& s : absent) asked.add(s);
  asked.add("dup");
  partial.index_only(std::move(asked));
  EXPECT_FALSE(partial.index_deferred());
  for (size_t i = 0; i < texts.size(); i += 2) ASSERT_EQ(partial.find(texts[i]), whole.find(texts[i])) << texts[i];
  for (const std::string& s : absent) EXPECT_EQ(partial.find(s), std::nullopt) << s;
  EXPECT_EQ(partial.find("dup"), whole.find("dup"));
  EXPECT_EQ(*partial.find("dup"), static_cast<uint32_t>(bytes.find(std::string("\0dup\0", 5)) + 1));
  // Not asked: the whole index answers.
  for (size_t i = 1; i < texts.size(); i += 2) ASSERT_EQ(partial.find(texts[i]), whole.find(texts[i])) << texts[i];
  EXPECT_EQ(partial.find("never asked, never there"), std::nullopt);
  EXPECT_EQ(partial.add(texts[1]), *whole.find(texts[1]));
  EXPECT_EQ(partial.add("new text"), bytes.size());
  EXPECT_EQ(partial.find("new text"), std::optional<uint32_t>(static_cast<uint32_t>(bytes.size())));
}

// A deferred index is built at the first find, once, whichever of the
// threads that look up at the same time comes first; all get the answers
// of the whole index.
TEST(StringTable, DeferredIndexBuiltOnceForConcurrentFinds) {
  std::vector<std::string> texts;
  const std::string bytes = deferred_test_bytes(texts);
  // Named references, not a structured binding: clang 14 (the sanitizer
  // build's compiler) cannot capture a binding in a lambda.
  auto tables = deferred_and_whole(bytes);
  const StringTable& deferred = tables.first;
  const StringTable& whole = tables.second;
  std::vector<int> wrong(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (size_t i = static_cast<size_t>(t); i < texts.size(); i += 3) wrong[t] += deferred.find(texts[i]) != whole.find(texts[i]);
      wrong[t] += deferred.find("absent") != std::nullopt;
    });
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(wrong, std::vector<int>(4, 0));
}

// A table split on a base whose string index is deferred keeps the
// strings it adds as its own (dedup maps them to the base's);
// index_strings_for() then indexes the base for the split table's names,
// and every lookup in the base gets its usual answer.
TEST(BtfTable, SplitOnDeferredBaseKeepsItsStringsUntilIndexedFor) {
  Btf base;
  TypeId i = base.add_int("int", 4, INT_SIGNED);
  base.add_struct("in_base_only", 4);
  base.add_typedef("shared_name", i);
  const uint32_t int_off = *base.find_string("int"), only_off = *base.find_string("in_base_only");
  base.defer_string_index();
  ASSERT_TRUE(base.string_index_deferred());
  Btf split(&base);
  const uint32_t own = split.add_string("shared_name");
  EXPECT_GE(own, split.start_str_off());  // its own copy, for now
  split.add_typedef("shared_name", i);
  split.add_struct("mine", 8);
  base.index_strings_for(split);
  EXPECT_FALSE(base.string_index_deferred());
  EXPECT_EQ(base.find_string("shared_name"), base.type(3).name_off());
  EXPECT_EQ(base.find_string("mine"), std::nullopt);
  EXPECT_EQ(base.find_string("int"), int_off);           // not asked
  EXPECT_EQ(base.find_string("in_base_only"), only_off);  // not asked
  EXPECT_EQ(split.add_string("in_base_only"), only_off);  // the base is asked again
}

TEST(BtfTable, SplitContinuesBaseIdsAndStrings) {
  Btf base;
  TypeId i = base.add_int("int", 4, INT_SIGNED);
  base.add_ptr(i);
  Btf split(&base);
  EXPECT_EQ(split.start_id(), 3u);
  EXPECT_EQ(split.start_str_off(), base.end_str_off());
  // A string the base has is reused; a new one continues the base's offsets.
  EXPECT_EQ(split.add_string("int"), *base.find_string("int"));
  TypeId s = split.add_struct("mine", 4);
  EXPECT_EQ(s, 3u);
  EXPECT_EQ(split.type(s).name_off(), base.end_str_off());
  split.add_member("int", i, 0);
  EXPECT_EQ(split.type(s).member(0).name_off, *base.find_string("int"));
  EXPECT_EQ(split.type(i).name(), "int");  // reaches into the base
  EXPECT_EQ(split.type(s).name(), "mine");

  // libbpf numbers the same way.
  struct btf* lbase = btf__new_empty();
  btf__add_int(lbase, "int", 4, BTF_INT_SIGNED);
  btf__add_ptr(lbase, 1);
  struct btf* lsplit = btf__new_empty_split(lbase);
  EXPECT_EQ(btf__add_struct(lsplit, "mine", 4), 3);
  btf__add_field(lsplit, "int", 1, 0, 0);
  EXPECT_EQ(write_raw(split), testing::libbpf_raw(lsplit));
  btf__free(lsplit);
  btf__free(lbase);
}

TEST(BtfTable, VisitorsReachEveryIdAndString) {
  Btf b;
  TypeId i = b.add_int("int", 4, INT_SIGNED);
  TypeId s = b.add_struct("s", 8);
  b.add_member("a", i, 0);
  b.add_member("b", i, 32);
  TypeId a = b.add_array(s, i, 3);
  TypeId p = b.add_func_proto(i);
  b.add_param("x", a);
  std::vector<uint32_t> ids;
  b.for_each_type_id(s, [&](uint32_t id) { ids.push_back(id); });
  EXPECT_EQ(ids, (std::vector<uint32_t>{i, i}));
  ids.clear();
  b.for_each_type_id(a, [&](uint32_t id) { ids.push_back(id); });
  EXPECT_EQ(ids, (std::vector<uint32_t>{s, i}));
  ids.clear();
  b.for_each_type_id(p, [&](uint32_t id) { ids.push_back(id); });
  EXPECT_EQ(ids, (std::vector<uint32_t>{i, a}));
  std::vector<std::string> names;
  b.for_each_str_off(s, [&](uint32_t off) { names.push_back(std::string(b.str(off))); });
  EXPECT_EQ(names, (std::vector<std::string>{"s", "a", "b"}));
  // Rewriting in place.
  b.for_each_type_id_ref(s, [&](uint32_t& id) { id = a; });
  EXPECT_EQ(b.type(s).member(1).type, a);
  std::vector<std::string> members;
  for (Member m : b.type(s).members()) members.push_back(std::string(b.str(m.name_off)));
  EXPECT_EQ(members, (std::vector<std::string>{"a", "b"}));
}

TEST(BtfTable, BuilderRejectsWhatLibbpfRejects) {
  Btf b;
  EXPECT_THROW(b.add_int("", 4, 0), Error);
  EXPECT_THROW(b.add_int("x", 3, 0), Error);
  EXPECT_THROW(b.add_member("m", 1, 0), Error);  // no struct yet
  b.add_union("u", 4);
  EXPECT_THROW(b.add_member("m", 1, 8), Error);  // union member off 0
  b.add_enum("e", 4);
  EXPECT_THROW(b.add_enum_value("big", 0x100000000ll), Error);
  EXPECT_THROW(b.add_typedef("", 1), Error);
}

}  // namespace
}  // namespace btfc::btf
