// The kernel refuses BTF whose resolution stack grows past 32 types
// ("Exceeded max resolving depth", E2BIG), which depends on the type
// order. kernel_resolution() replays the kernel's resolution: its verdict
// must be the kernel's own on tables made to sit near the limit (chains of
// pointers, modifiers, arrays and structs by value, mixed, in random
// orders), and order_for_kernel() must turn every table refused for depth
// into one the kernel loads, with the same type graph, leaving the others
// as they are.
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "btf/diff.h"
#include "btf/kernel_order.h"
#include "btf/reader.h"
#include "btf/writer.h"
#include "btf_test_util.h"

namespace btfc::btf {
namespace {

// The kernel's verdict: true loaded, false refused for depth; skips the
// test (loudly) where this process may not load BTF.
enum class Verdict { Loaded, TooDeep, OtherRefusal, NotAllowed };
Verdict kernel_verdict(const Btf& b, std::string* why) {
  testing::LoadResult r = testing::load_into_kernel_quietly(write_raw(b), why);
  if (r == testing::LoadResult::NotAllowed) return Verdict::NotAllowed;
  if (r == testing::LoadResult::Loaded) return Verdict::Loaded;
  return why->find(std::strerror(E2BIG)) != std::string::npos ? Verdict::TooDeep : Verdict::OtherRefusal;
}

// `int *...*` with `stars` pointers, the outermost first (as compilers
// emit them, and pahole and btfc number them).
Btf pointer_chain(int stars) {
  Btf b;
  for (int i = 0; i < stars; ++i) b.add_ptr(static_cast<TypeId>(i + 2));
  b.add_int("int", 4, INT_SIGNED);
  return b;
}

// A random type graph with by-value chains through modifiers, arrays,
// structs and unions and by-pointer edges anywhere (so the kernel's modes
// switch), numbered in an order that is mostly referrer-first (deep
// stacks) and partly shuffled. Every type is valid on its own: members
// fit, arrays have an int index, names are identifiers.
enum K { Int, Ptr, Typedef, Const, Volatile, Array, Struct, Union };
Btf random_graph(std::mt19937& rng, int nodes, const std::vector<K>& kinds) {
  struct Node {
    K kind;
    std::vector<int> refs;  // nodes after this one (a DAG: no loops)
    uint32_t size = 0;
  };
  std::vector<Node> g(nodes);
  for (int i = nodes - 1; i >= 0; --i) {
    Node& n = g[i];
    n.kind = i >= nodes - 2 ? Int : kinds[rng() % kinds.size()];
    if (n.kind == Int) continue;
    // Mostly the next node, else one close after it: long chains.
    auto later = [&] {
      if (rng() % 4) return i + 1;
      std::uniform_int_distribution<int> near(i + 1, std::min(nodes - 1, i + 4));
      return near(rng);
    };
    const int count = n.kind == Struct || n.kind == Union ? 1 + static_cast<int>(rng() % 3) : 1;
    for (int m = 0; m < count; ++m) n.refs.push_back(later());
  }
  for (int i = nodes - 1; i >= 0; --i) {
    Node& n = g[i];
    switch (n.kind) {
      case Int: n.size = 4; break;
      case Ptr: n.size = 8; break;
      case Typedef: case Const: case Volatile: n.size = g[n.refs[0]].size; break;
      case Array: n.size = g[n.refs[0]].size; break;  // one element: sizes stay small
      case Struct: case Union: for (int r : n.refs) n.size = std::max(n.size, g[r].size); break;
    }
  }
  // Ids: node order, then some neighbours swapped.
  std::vector<int> order(nodes);
  for (int i = 0; i < nodes; ++i) order[i] = i;
  for (int s = 0; s < nodes / 8; ++s) {
    size_t a = rng() % nodes;
    std::swap(order[a], order[std::min<size_t>(a + 1 + rng() % 4, nodes - 1)]);
  }
  std::vector<TypeId> id(nodes);
  for (int k = 0; k < nodes; ++k) id[order[k]] = static_cast<TypeId>(k + 1);
  // An index type for the arrays: the last node is an int.
  const TypeId index = id[nodes - 1];
  Btf b;
  for (int k = 0; k < nodes; ++k) {
    const Node& n = g[order[k]];
    const std::string name = "t" + std::to_string(k);
    switch (n.kind) {
      case Int: b.add_int(name, 4, INT_SIGNED); break;
      case Ptr: b.add_ptr(id[n.refs[0]]); break;
      case Typedef: b.add_typedef(name, id[n.refs[0]]); break;
      case Const: b.add_const(id[n.refs[0]]); break;
      case Volatile: b.add_volatile(id[n.refs[0]]); break;
      case Array: b.add_array(id[n.refs[0]], index, 1); break;
      case Struct: case Union: {
        if (n.kind == Struct) b.add_struct(name, n.size);
        else b.add_union(name, n.size);
        // All at offset 0 (the kernel takes overlapping members), so
        // that sizes do not grow along the chains.
        for (size_t m = 0; m < n.refs.size(); ++m) b.add_member("m" + std::to_string(m), id[n.refs[m]], 0);
        break;
      }
    }
  }
  return b;
}

TEST(KernelOrder, PointerChainsAtTheLimit) {
  for (int stars : {31, 32, 33, 40}) {
    SCOPED_TRACE(std::to_string(stars) + " stars");
    Btf b = pointer_chain(stars);
    KernelResolution r = kernel_resolution(b);
    EXPECT_EQ(r.max_depth, static_cast<uint32_t>(stars));
    EXPECT_EQ(r.deepest, 1u);
    std::string why;
    Verdict v = kernel_verdict(b, &why);
    if (v == Verdict::NotAllowed) GTEST_SKIP() << "\n*** the kernel lets this process load no BTF: NOT TESTED ***\n";
    EXPECT_EQ(v, stars > 32 ? Verdict::TooDeep : Verdict::Loaded) << why;
    const Btf before = read_raw(write_raw(b));
    EXPECT_EQ(order_for_kernel(b), stars > 32);
    EXPECT_LE(kernel_resolution(b).max_depth, KERNEL_MAX_RESOLVE_DEPTH);
    EXPECT_TRUE(diff(before, b).equivalent);
    BTFC_EXPECT_LOADS(write_raw(b));
  }
}

// A loop of pointers (which the kernel refuses, and validate() reports)
// ends its resolution in the replay without a hang, and the order still
// holds every type once: what a refused resolution left goes last.
TEST(KernelOrder, ALoopEndsItsResolutionAndEveryTypeIsStillOrdered) {
  Btf b;
  b.add_ptr(2);  // [1] -> [2]
  b.add_ptr(1);  // [2] -> [1]
  b.add_int("int", 4, INT_SIGNED);
  KernelResolution r = kernel_resolution(b);
  EXPECT_EQ(r.order, (std::vector<TypeId>{3, 1, 2}));
  EXPECT_THROW(validate(b), Error);
}

// Split BTF (a module's): base types count as resolved, and only the own
// types move; the kernel checks base and split glued together.
TEST(KernelOrder, SplitChainOnABase) {
  Btf base;
  const TypeId i = base.add_int("int", 4, INT_SIGNED);
  base.add_ptr(i);
  Btf split(&base);
  const TypeId first = split.start_id();
  for (TypeId k = 0; k < 40; ++k) split.add_ptr(k == 39 ? i : first + k + 1);  // outermost first, to a base int
  EXPECT_EQ(kernel_resolution(split).max_depth, 40u);
  const std::vector<uint8_t> base_bytes = write_raw(base);
  std::string why;
  testing::LoadResult before = testing::load_into_kernel_quietly(testing::glue_split(base_bytes, write_raw(split)), &why);
  if (before == testing::LoadResult::NotAllowed) GTEST_SKIP() << "\n*** the kernel lets this process load no BTF: NOT TESTED ***\n";
  EXPECT_EQ(before, testing::LoadResult::Refused);
  EXPECT_NE(why.find(std::strerror(E2BIG)), std::string::npos) << why;
  ASSERT_TRUE(order_for_kernel(split));
  EXPECT_EQ(split.start_id(), first);
  EXPECT_EQ(split.type(first).type(), i);  // the innermost pointer comes first now
  EXPECT_EQ(base.type_count(), 2u);
  BTFC_EXPECT_LOADS(testing::glue_split(base_bytes, write_raw(split)));
}

TEST(KernelOrder, ReplayAgreesWithTheKernelOnRandomGraphs) {
  std::mt19937 rng(20261204);
  int too_deep = 0, loaded = 0;
  for (int round = 0; round < 200; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    // Kinds that keep one mode's chains going (pointers and modifiers;
    // structs, arrays and modifiers), modifiers between pointers and
    // structs (the modes switch), then all of them.
    static const std::vector<K> families[] = {{Ptr, Typedef, Const, Volatile},
                                              {Typedef, Const, Array, Struct, Union},
                                              {Typedef, Typedef, Const, Volatile, Ptr, Struct, Array},
                                              {Ptr, Typedef, Const, Volatile, Array, Struct, Union, Int}};
    // (The mixed ones switch modes, which cuts their chains: more nodes.)
    const int nodes = round % 4 < 2 ? 20 + static_cast<int>(rng() % 80) : 100 + static_cast<int>(rng() % 300);
    Btf b = random_graph(rng, nodes, families[round % 4]);
    try {
      validate(b);
    } catch (const Error& e) {
      FAIL() << "the generator made invalid BTF: " << e.what();
    }
    KernelResolution r = kernel_resolution(b);
    ASSERT_EQ(r.order.size(), b.type_count());
    std::string why;
    Verdict v = kernel_verdict(b, &why);
    if (v == Verdict::NotAllowed) GTEST_SKIP() << "\n*** the kernel lets this process load no BTF: NOT TESTED ***\n";
    ASSERT_NE(v, Verdict::OtherRefusal) << "the generator made BTF the kernel refuses: " << why;
    EXPECT_EQ(v == Verdict::TooDeep, r.max_depth > KERNEL_MAX_RESOLVE_DEPTH)
        << "replayed depth " << r.max_depth << ", the kernel: " << why;
    (v == Verdict::TooDeep ? too_deep : loaded)++;
    const Btf before = read_raw(write_raw(b));
    EXPECT_EQ(order_for_kernel(b), v == Verdict::TooDeep);
    EXPECT_TRUE(diff(before, b).equivalent);
    EXPECT_NO_THROW(validate(b));
    BTFC_EXPECT_LOADS(write_raw(b));
  }
  // Both verdicts were met often enough for the agreement to mean something.
  EXPECT_GE(too_deep, 10);
  EXPECT_GE(loaded, 10);
}

}  // namespace
}  // namespace btfc::btf
