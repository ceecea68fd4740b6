// `btfc diff` and btf::diff: two tables with the same types in another
// order are equivalent (exit 0); one change of each sort a user cares about
// (a member's offset or type, an enumerator's value, a function's linkage,
// a missing function) gives exit 1 and a report naming it. The shuffled
// copies are rebuilt type by type and parsed back by libbpf, which must
// agree on the type count, so the inputs are BTF another tool reads the
// same way. The Corpus suite does the same on the pahole reference of
// vmlinux (101,517 types).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <set>

#include "btf/diff.h"
#include "btf/writer.h"
#include "btf_test_util.h"
#include "dedup_oracle.h"
#include "support/random_btf.h"
#include "support/test_support.h"

namespace btfc::btf {
namespace {

using testing::find_type;
using testing::reorder;

// struct task { int pid; long state; struct task *parent; unsigned flags:3; };
// enum color { RED = 1, GREEN = 2 }; typedef struct task task_t;
// int f(task_t *) (global); int g(task_t *) (static); int h(enum color)
Btf small_table() {
  Btf b;
  TypeId i = b.add_int("int", 4, INT_SIGNED);
  TypeId l = b.add_int("long", 8, INT_SIGNED);
  TypeId u = b.add_int("unsigned int", 4, 0);
  TypeId task = b.add_struct("task", 32);
  TypeId ptr = task + 1;
  b.add_member("pid", i, 0);
  b.add_member("state", l, 64);
  b.add_member("parent", ptr, 128);
  b.add_member("flags", u, 192, 3);
  b.add_ptr(task);
  TypeId color = b.add_enum("color", 4);
  b.add_enum_value("RED", 1);
  b.add_enum_value("GREEN", 2);
  TypeId td = b.add_typedef("task_t", task);
  TypeId tdp = b.add_ptr(td);
  TypeId proto = b.add_func_proto(i);
  b.add_param("t", tdp);
  b.add_func("f", proto, FuncLinkage::Global);
  b.add_func("g", proto, FuncLinkage::Static);
  TypeId proto2 = b.add_func_proto(i);
  b.add_param("c", color);
  b.add_func("h", proto2, FuncLinkage::Global);
  return b;
}

std::vector<TypeId> all_ids(const Btf& b) {
  std::vector<TypeId> ids;
  for (TypeId id = 1; id < b.end_id(); ++id) ids.push_back(id);
  return ids;
}

Btf shuffled(const Btf& b, uint32_t seed) {
  std::vector<TypeId> order = all_ids(b);
  std::mt19937 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);
  Btf out = reorder(b, order);
  // libbpf reads the copy as the same number of types.
  testing::LibbpfBtf lb = testing::to_libbpf(out);
  EXPECT_EQ(btf__type_cnt(lb.get()), b.end_id());
  return out;
}

std::string file_of(const Btf& b, const std::string& name) {
  std::string path = test::scratch_dir() + "/" + name;
  write_raw_file(path, b);
  return path;
}

TEST(Diff, SameTypesInAnotherOrderAreEquivalent) {
  Btf a = small_table();
  for (uint32_t seed = 1; seed <= 5; ++seed) {
    Btf b = shuffled(a, seed);
    DiffResult r = diff(a, b);
    EXPECT_TRUE(r.equivalent) << r.report;
    EXPECT_NE(r.report.find("equivalent: 13 types"), std::string::npos) << r.report;
  }
  test::RunResult r = test::run_btfc("diff " + file_of(a, "a.btf") + " " + file_of(shuffled(a, 9), "b.btf"));
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("equivalent: 13 types"), std::string::npos) << r.out;
}

// Each change on a shuffled copy: exit 1, the report names the type and
// what changed, and counts one difference.
struct Change {
  const char* what;
  std::function<Btf(const Btf&)> apply;
  std::vector<std::string> expect;  // lines the report must contain
};

Btf edited(const Btf& in, const std::function<void(Btf&)>& edit) {
  Btf b = reorder(in, all_ids(in));
  edit(b);
  return b;
}

uint32_t& member_word(Btf& b, TypeId s, std::string_view member, int word) {
  TypeView t = b.type(s);
  for (uint32_t i = 0; i < t.vlen(); ++i)
    if (b.str(t.member(i).name_off) == member) return b.mutable_record(s)[3 + 3 * i + word];
  ADD_FAILURE() << "no member " << member;
  static uint32_t dummy;
  return dummy;
}

std::vector<Change> changes() {
  return {
      {"member offset",
       [](const Btf& in) {
         return edited(in, [](Btf& b) { member_word(b, find_type(b, Kind::Struct, "task"), "state", 2) = 96; });
       },
       {"changed", "STRUCT task", "member 'state': bit offset 64 -> 96"}},
      {"member type",
       [](const Btf& in) {
         return edited(in, [](Btf& b) {
           member_word(b, find_type(b, Kind::Struct, "task"), "state", 1) = find_type(b, Kind::Int, "int");
         });
       },
       {"STRUCT task", "member 'state': type long -> int"}},
      {"bitfield size",
       [](const Btf& in) {
         return edited(in, [](Btf& b) { member_word(b, find_type(b, Kind::Struct, "task"), "flags", 2) = 4u << 24 | 192; });
       },
       {"STRUCT task", "member 'flags': bitfield size 3 -> 4"}},
      {"struct size",
       [](const Btf& in) {
         return edited(in, [](Btf& b) { b.mutable_record(find_type(b, Kind::Struct, "task"))[2] = 40; });
       },
       {"STRUCT task", "size 32 -> 40"}},
      {"enumerator value",
       [](const Btf& in) {
         return edited(in, [](Btf& b) { b.mutable_record(find_type(b, Kind::Enum, "color"))[6] = 3; });
       },
       {"ENUM color", "enumerator 'GREEN': 2 -> 3"}},
      {"function linkage",
       [](const Btf& in) {
         return edited(in, [](Btf& b) {
           uint32_t* r = b.mutable_record(find_type(b, Kind::Func, "f"));
           r[1] = make_info(Kind::Func, false, static_cast<uint32_t>(FuncLinkage::Static));
         });
       },
       {"FUNC f", "linkage global -> static"}},
      {"function prototype",
       [](const Btf& in) {
         return edited(in, [](Btf& b) {
           b.mutable_record(find_type(b, Kind::Func, "h"))[2] = b.type(find_type(b, Kind::Func, "f")).type();
         });
       },
       {"FUNC h", "prototype int (enum color) -> int (task_t *)"}},
      {"missing function",
       [](const Btf& in) {
         std::vector<TypeId> ids = all_ids(in);
         ids.erase(std::find(ids.begin(), ids.end(), find_type(in, Kind::Func, "g")));
         return reorder(in, ids);
       },
       {"only in A:", "FUNC g: int (task_t *)"}},
  };
}

TEST(Diff, EachChangeIsNamed) {
  Btf a = small_table();
  std::string pa = file_of(a, "orig.btf");
  for (const Change& c : changes()) {
    SCOPED_TRACE(c.what);
    Btf b = shuffled(c.apply(a), 3);
    DiffResult r = diff(a, b);
    EXPECT_FALSE(r.equivalent);
    EXPECT_EQ(r.differences, 1u) << r.report;
    for (const std::string& line : c.expect) EXPECT_NE(r.report.find(line), std::string::npos) << line << "\n" << r.report;
    EXPECT_NE(r.report.find("1 difference\n"), std::string::npos) << r.report;
    test::RunResult cli = test::run_btfc("diff " + pa + " " + file_of(b, "changed.btf"));
    EXPECT_EQ(cli.status, 1) << cli.err;
    EXPECT_NE(cli.out.find(c.expect.back()), std::string::npos) << cli.out;
  }
}

// Duplicates count: a second, equal FUNC is a difference, and the report
// says how many of that name each side has (pahole 1.24 encodes a
// function once per unit that defines it: the extra copy is "only in" it
// though both sides have the name).
TEST(Diff, DuplicateFunctionIsADifference) {
  Btf a = small_table();
  Btf b = reorder(a, all_ids(a));
  b.add_func("g", b.type(find_type(b, Kind::Func, "g")).type(), FuncLinkage::Static);
  DiffResult r = diff(a, b);
  EXPECT_FALSE(r.equivalent);
  EXPECT_NE(r.report.find("only in B:\n  FUNC g: int (task_t *) (of that name: 1 in A, 2 in B)\n"), std::string::npos)
      << r.report;
  EXPECT_NE(r.report.find("FUNC                 3         4  *"), std::string::npos) << r.report;
  // A name each side has once gets no such note.
  Btf c = reorder(a, all_ids(a));
  c.add_func("k", c.type(find_type(c, Kind::Func, "g")).type(), FuncLinkage::Static);
  r = diff(a, c);
  EXPECT_NE(r.report.find("only in B:\n  FUNC k: int (task_t *)\n"), std::string::npos) << r.report;
}

// Same names and bodies at the named level, but struct s points to the
// other of two unions named u: only the whole-graph view sees it.
TEST(Diff, DifferentTargetAmongSameNamedTypes) {
  auto make = [](bool second) {
    Btf b;
    TypeId i = b.add_int("int", 4, INT_SIGNED);
    TypeId l = b.add_int("long", 8, INT_SIGNED);
    TypeId u1 = b.add_union("u", 8);
    b.add_member("x", i, 0);
    TypeId u2 = b.add_union("u", 8);
    b.add_member("x", l, 0);
    TypeId p = b.add_ptr(second ? u2 : u1);
    b.add_struct("s", 8);
    b.add_member("p", p, 0);
    return b;
  };
  DiffResult r = diff(make(false), make(true));
  EXPECT_FALSE(r.equivalent);
  EXPECT_NE(r.report.find("whole graphs differ"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("STRUCT s"), std::string::npos) << r.report;
}

// Random type graphs (tests/support/random_btf.h: every kind, twins,
// forward references): each is equivalent to itself shuffled, and not to a
// shuffled copy with one change (a member's offset, an enumerator's value,
// an integer's size, a function's linkage: the first such type in id
// order; a table with none of them, a few pointers, is left out).
TEST(Diff, RandomGraphsAgainstShuffledAndChangedCopies) {
  int changed = 0;
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    testing::SeededChoices c(seed);
    testing::RandomTables t = testing::random_tables(c);
    ASSERT_TRUE(t.base);
    const Btf& a = *t.base;
    DiffResult same = diff(a, shuffled(a, seed));
    ASSERT_TRUE(same.equivalent) << same.report;
    Btf b = reorder(a, all_ids(a));
    bool edited = false;
    for (TypeId id = 1; id < b.end_id() && !edited; ++id) {
      uint32_t* r = b.mutable_record(id);
      switch (info_kind(r[1])) {
        case Kind::Struct: case Kind::Union:
          if (info_vlen(r[1])) r[5] += 8, edited = true;  // the first member's offset
          break;
        case Kind::Enum:
          if (info_vlen(r[1])) r[4] += 7, edited = true;  // the first enumerator's value
          break;
        case Kind::Int: r[2] = r[2] == 8 ? 4 : 8, r[3] = (r[3] & ~0xffu) | (r[2] * 8), edited = true; break;
        case Kind::Func: r[1] ^= 1, edited = true; break;  // static <-> global
        default: break;
      }
    }
    if (!edited) continue;  // none of those kinds: a pointer or two
    DiffResult other = diff(a, shuffled(b, seed));
    EXPECT_FALSE(other.equivalent) << other.report;
    EXPECT_GT(other.differences, 0u) << other.report;
    ++changed;
  }
  EXPECT_GT(changed, 280);
}

TEST(Diff, UsageErrors) {
  EXPECT_EQ(test::run_btfc("diff onlyone.btf").status, 2);
  test::RunResult r = test::run_btfc("diff /nonexistent/a.btf /nonexistent/b.btf");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("/nonexistent/a.btf"), std::string::npos) << r.err;
}

// ---- the vmlinux reference ----

std::string reference(const std::string& name) { return testing::reference_dir() + "/" + name; }

TEST(DiffCorpus, ShuffledVmlinuxIsEquivalentAndEachChangeIsNamed) {
  Btf a = read_file(reference("vmlinux.legacy-flags.btf"));
  Btf b = shuffled(a, 2024);
  auto t = std::chrono::steady_clock::now();
  DiffResult r = diff(a, b);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  EXPECT_TRUE(r.equivalent) << r.report.substr(0, 4000);
  EXPECT_NE(r.report.find("equivalent: 101517 types"), std::string::npos);
  EXPECT_LT(secs, 5.0) << "diff of vmlinux took " << secs << " s";

  // One change each in the copy, found by name among 100k types.
  TypeId sk = find_type(b, Kind::Struct, "sk_buff");
  uint32_t len_type = 0;
  {
    Btf c = reorder(b, all_ids(b));
    member_word(c, sk, "len", 2) += 8;
    DiffResult d = diff(a, c);
    EXPECT_EQ(d.differences, 1u) << d.report.substr(0, 4000);
    EXPECT_NE(d.report.find("STRUCT sk_buff"), std::string::npos);
    EXPECT_NE(d.report.find("member 'len': bit offset"), std::string::npos) << d.report.substr(0, 4000);
    len_type = member_word(c, sk, "len", 1);
  }
  {
    Btf c = reorder(b, all_ids(b));
    member_word(c, sk, "len", 1) = find_type(c, Kind::Int, "long int");
    DiffResult d = diff(a, c);
    EXPECT_EQ(d.differences, 1u) << d.report.substr(0, 4000);
    EXPECT_NE(d.report.find("member 'len': type unsigned int -> long int"), std::string::npos)
        << d.report.substr(0, 4000);
  }
  (void)len_type;
  {
    Btf c = reorder(b, all_ids(b));
    TypeId func = find_type(c, Kind::Func, "tcp_v4_rcv");
    uint32_t* r = c.mutable_record(func);
    bool was_static = info_vlen(r[1]) == 0;  // pahole's legacy encoding says static
    r[1] = make_info(Kind::Func, false, was_static ? 1 : 0);
    DiffResult d = diff(a, c);
    EXPECT_EQ(d.differences, 1u) << d.report.substr(0, 4000);
    EXPECT_NE(d.report.find("FUNC tcp_v4_rcv"), std::string::npos);
    EXPECT_NE(d.report.find(was_static ? "linkage static -> global" : "linkage global -> static"), std::string::npos)
        << d.report.substr(0, 4000);
  }
  {
    std::vector<TypeId> ids = all_ids(b);
    ids.erase(std::find(ids.begin(), ids.end(), find_type(b, Kind::Func, "tcp_v4_rcv")));
    std::string pa = test::scratch_dir() + "/vmlinux.btf";
    write_raw_file(pa, a);
    std::string pc = file_of(reorder(b, ids), "vmlinux-minus-one.btf");
    test::RunResult cli = test::run_btfc("diff " + pa + " " + pc);
    EXPECT_EQ(cli.status, 1) << cli.err;
    EXPECT_NE(cli.out.find("only in " + pa + ":\n  FUNC tcp_v4_rcv"), std::string::npos) << cli.out.substr(0, 4000);
    EXPECT_NE(cli.out.find("1 difference\n"), std::string::npos);
  }
}

// Split BTF through the command line: a module against itself on the same
// base, then the two encodings of ext4 on their own bases. bpftool (-B) is
// the oracle for which FUNCs each side has.
TEST(DiffCorpus, ModulesOnTheirBases) {
  std::string va = reference("vmlinux.legacy-flags.btf"), vb = reference("vmlinux.features-default.btf");
  std::string ea = reference("ext4.legacy-flags.btf"), eb = reference("ext4.features-default.btf");
  test::RunResult same = test::run_btfc("diff " + ea + " " + ea + " --base " + va);
  EXPECT_EQ(same.status, 0) << same.out << same.err;
  EXPECT_NE(same.out.find("equivalent: "), std::string::npos);

  test::RunResult r = test::run_btfc("diff " + ea + " " + eb + " --base-a " + va + " --base-b " + vb);
  EXPECT_EQ(r.status, 1) << r.err;
  auto funcs = [](const std::string& file, const std::string& base) {
    std::set<std::string> names;
    test::RunResult d = test::run("bpftool btf dump file " + file + " -B " + base);
    EXPECT_EQ(d.status, 0) << d.err;
    for (size_t at = 0; (at = d.out.find("] FUNC '", at)) != std::string::npos;) {
      at += 8;
      names.insert(d.out.substr(at, d.out.find('\'', at) - at));
    }
    return names;
  };
  std::set<std::string> fa = funcs(ea, va), fb = funcs(eb, vb);
  size_t checked = 0;
  for (const std::string& f : fb)
    if (!fa.count(f)) {
      size_t only_b = r.out.find("only in " + eb + ":");
      ASSERT_NE(only_b, std::string::npos) << r.out.substr(0, 4000);
      EXPECT_NE(r.out.find("  FUNC " + f + ":", only_b), std::string::npos) << f;
      ++checked;
    }
  for (const std::string& f : fa)
    if (!fb.count(f)) {
      EXPECT_NE(r.out.find("  FUNC " + f + ":"), std::string::npos) << f;
      ++checked;
    }
  EXPECT_GT(checked, 0u);
}

}  // namespace
}  // namespace btfc::btf
