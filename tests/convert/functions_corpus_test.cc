// Functions and variables of the corpus kernel and modules against pahole
// 1.31's reference encodings: the same FUNC names with the same prototypes
// (parameter names, type names and shapes), the same VARs and DATASECs.
// Runs the collectors through the test stand-in pipeline (stand_in.h), so it
// checks exactly the function/variable rules, independently of the type
// conversion and of dedup.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <string>

#include "btf/reader.h"
#include "convert/btf_compare.h"
#include "convert/stand_in.h"
#include "support/test_support.h"

namespace btfc::test {
namespace {

// Worktrees have no ../shared next to them; fall back as the btf tests do.
std::string reference(const std::string& name) {
  std::string d = shared_dir() + "/reference/pahole-1.31";
  if (!std::filesystem::exists(d)) d = "/work/shared/reference/pahole-1.31";
  return d + "/" + name;
}

// Reports up to 20 differences by name, so a failure says what differs.
template <typename Map>
void expect_same_map(const Map& got, const Map& want, const std::string& what) {
  int shown = 0;
  size_t missing = 0, extra = 0, differ = 0;
  for (const auto& [k, v] : want) {
    auto it = got.find(k);
    if (it == got.end()) {
      missing++;
      if (shown++ < 20) ADD_FAILURE() << what << " missing: " << k << " = " << v;
    } else if (it->second != v) {
      differ++;
      if (shown++ < 20) ADD_FAILURE() << what << " differs: " << k << "\n  got:  " << it->second << "\n  want: " << v;
    }
  }
  for (const auto& [k, v] : got)
    if (!want.count(k)) {
      extra++;
      if (shown++ < 20) ADD_FAILURE() << what << " extra: " << k << " = " << v;
    }
  EXPECT_EQ(missing + extra + differ, 0u) << what << ": " << missing << " missing, " << extra << " extra, " << differ
                                          << " different";
}

StandInOptions legacy() {
  StandInOptions o;
  o.funcs.consistent_func = false;
  o.vars.percpu = true;
  return o;
}

StandInOptions features_default() {
  StandInOptions o;
  o.funcs.consistent_func = true;
  o.funcs.decl_tag_kfuncs = true;
  o.vars.percpu = true;
  o.vars.encode_force = true;
  return o;
}

convert::FunctionStats compare(const std::string& elf, const StandInOptions& o, const std::string& ref,
                               const btf::Btf* base, size_t want_funcs, size_t want_vars) {
  StandInResult r = run_stand_in(elf, o);
  const convert::FunctionStats& st = r.stats;
  std::cout << elf << ": " << st.candidates << " candidates, " << st.names << " names, " << st.emitted
            << " FUNCs; flagged: " << st.inconsistent << " inconsistent, " << st.unexpected_reg
            << " unexpected_reg, " << st.uncertain_parm_loc << " uncertain_parm_loc, " << st.ambiguous_addr
            << " ambiguous_addr\n";
  Summary got = summarize(r.btf);
  if (base) {
    // Split BTF: dedup replaces a module FUNC identical to one of the base
    // (same name, same prototype) by the base's, so it is not in the
    // module's reference; the stand-in has no dedup, so drop those here.
    Summary b = summarize(*base);
    for (auto it = got.funcs.begin(); it != got.funcs.end();) {
      auto bt = b.funcs.find(it->first);
      if (bt != b.funcs.end() && bt->second == it->second) {
        it = got.funcs.erase(it);
        got.func_count--;
      } else {
        ++it;
      }
    }
  }
  btf::Btf want_btf = btf::read_file(ref, base);
  Summary want = summarize(want_btf);
  EXPECT_EQ(want.func_count, want_funcs) << "reference " << ref;
  EXPECT_EQ(want.var_count, want_vars) << "reference " << ref;
  EXPECT_EQ(got.func_count, want.func_count);
  EXPECT_EQ(got.var_count, want.var_count);
  EXPECT_EQ(got.decl_tags, want.decl_tags);
  expect_same_map(got.funcs, want.funcs, "FUNC");
  expect_same_map(got.datasecs, want.datasecs, "DATASEC");
  EXPECT_TRUE(got.vars == want.vars) << "VAR sets differ";
  return st;
}

class FunctionsCorpus : public ::testing::Test {
 protected:
  void SetUp() override {
    if (corpus_dir().empty()) GTEST_SKIP() << "LOUD SKIP: corpus not unpacked (scripts/test.sh unpacks it)";
  }
};

TEST_F(FunctionsCorpus, VmlinuxLegacyFlags) {
  compare(corpus_dir() + "/vmlinux", legacy(), reference("vmlinux.legacy-flags.btf"), nullptr, 44811, 381);
}

TEST_F(FunctionsCorpus, VmlinuxFeaturesDefault) {
  compare(corpus_dir() + "/vmlinux", features_default(), reference("vmlinux.features-default.btf"), nullptr, 44111,
          381);
}

TEST_F(FunctionsCorpus, VmlinuxGlobalVar) {
  StandInOptions o = features_default();
  o.vars.global_var = true;
  compare(corpus_dir() + "/vmlinux", o, reference("vmlinux.features-default-global_var.btf"), nullptr, 44111, 23709);
}

TEST_F(FunctionsCorpus, ModulesLegacyAndDefault) {
  btf::Btf base_legacy = btf::read_file(reference("vmlinux.legacy-flags.btf"));
  btf::Btf base_default = btf::read_file(reference("vmlinux.features-default.btf"));
  for (const std::string& m : corpus_modules()) {
    SCOPED_TRACE(m);
    const std::string ko = corpus_dir() + "/mods/" + m + ".ko";
    // Expected counts come from the references themselves here; the
    // assertions that matter are the name/prototype/VAR comparisons.
    Summary l = summarize(btf::read_file(reference(m + ".legacy-flags.btf"), &base_legacy));
    compare(ko, legacy(), reference(m + ".legacy-flags.btf"), &base_legacy, l.func_count, l.var_count);
    Summary d = summarize(btf::read_file(reference(m + ".features-default.btf"), &base_default));
    convert::FunctionStats st = compare(ko, features_default(), reference(m + ".features-default.btf"),
                                        &base_default, d.func_count, d.var_count);
    if (m == "ext4") {
      EXPECT_EQ(l.func_count, 1215u);
      EXPECT_EQ(d.func_count, 1195u);
      // Modules keep .debug_loclists: names dropped for unexpected
      // registers found in location lists are part of what matches.
      EXPECT_EQ(st.unexpected_reg, 13u);
    }
  }
}

}  // namespace
}  // namespace btfc::test
