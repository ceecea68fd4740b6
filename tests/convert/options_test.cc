// pahole 1.31's encoding flags (pahole-rules.md 5.1, 5.2): what each legacy
// flag and each --btf_features spelling turns on, as a kernel build passes
// them, and the errors a user sees for a mistake.
#include <gtest/gtest.h>

#include "convert/options.h"

namespace btfc::convert {
namespace {

EncodeOptions parse(std::vector<std::string_view> args, bool pahole = false) {
  EncodeOptions o;
  parse_encode_args(args, o, pahole);
  return o;
}

TEST(Options, LegacyDefaultsWithoutBtfFeatures) {
  EncodeOptions o = parse({"-J", "vmlinux"});
  EXPECT_EQ(o.input, "vmlinux");
  EXPECT_TRUE(o.var && o.decl_tag && o.type_tag && o.enum64);
  EXPECT_FALSE(o.float_ || o.consistent_func || o.decl_tag_kfuncs || o.global_var || o.encode_force);
  EXPECT_TRUE(o.detached_path.empty());  // in place
}

TEST(Options, Linux61PaholeFlags) {
  // scripts/pahole-flags.sh of Linux 6.1 with pahole >= 1.25.
  EncodeOptions o = parse({"-J", "--btf_gen_floats", "-j", "--lang_exclude=rust",
                           "--skip_encoding_btf_inconsistent_proto", "--btf_gen_optimized", ".tmp_vmlinux.btf"});
  EXPECT_TRUE(o.float_ && o.consistent_func && o.optimized_func && o.var);
  EXPECT_EQ(o.jobs, 0u);  // -j alone: every core
  ASSERT_EQ(o.lang_exclude.size(), 1u);
  EXPECT_TRUE(language_excluded(o, 0x1c));   // DW_LANG_Rust
  EXPECT_FALSE(language_excluded(o, 0x1d));  // DW_LANG_C11
}

TEST(Options, BtfFeaturesResetThenEnable) {
  EncodeOptions o = parse({"--btf_features=float", "x.o"});
  EXPECT_TRUE(o.float_);
  EXPECT_FALSE(o.var || o.decl_tag || o.type_tag || o.enum64);  // reset by the first --btf_features
  o = parse({"--btf_features=default", "x.o"});
  EXPECT_TRUE(o.encode_force && o.var && o.float_ && o.decl_tag && o.type_tag && o.enum64 && o.optimized_func &&
              o.consistent_func && o.decl_tag_kfuncs);
  EXPECT_FALSE(o.global_var || o.distilled_base || o.attributes || o.reproducible_build);
  o = parse({"--btf_features=default,global_var", "x.o"});
  EXPECT_TRUE(o.global_var && o.consistent_func);
  o = parse({"--btf_features=+attributes", "x.o"});
  EXPECT_TRUE(o.attributes && o.var && o.consistent_func);
  // Repeated occurrences add up (bpf-next passes several).
  o = parse({"--btf_features=var", "--btf_features=layout,float", "x.o"});
  EXPECT_TRUE(o.var && o.float_);
  EXPECT_FALSE(o.enum64);
}

TEST(Options, UnknownFeaturesIgnoredUnlessStrict) {
  EXPECT_NO_THROW(parse({"--btf_features=default,layout,inline", "x.o"}));
  try {
    parse({"--btf_features_strict=default,bogus", "x.o"});
    FAIL() << "strict accepted an unknown feature";
  } catch (const OptionError& e) {
    EXPECT_NE(std::string(e.what()).find("Feature 'bogus' in 'default,bogus' is not supported."), std::string::npos)
        << e.what();
  }
}

TEST(Options, SupportedFeaturesInPaholeOrder) {
  EXPECT_EQ(supported_btf_features(),
            "encode_force,var,float,decl_tag,type_tag,enum64,optimized_func,consistent_func,decl_tag_kfuncs,"
            "reproducible_build,distilled_base,global_var,attributes");
  EXPECT_EQ(parse({"--supported_btf_features"}).action, Action::SupportedFeatures);
  EXPECT_EQ(parse({"--version"}, true).action, Action::Version);
}

TEST(Options, ValueSpellings) {
  // modfinal: "--btf_base vmlinux" with a space; gen-btf.sh: "=".
  EncodeOptions o = parse({"-J", "--btf_base", "vmlinux", "--btf_encode_detached=m.btf", "-j4", "m.ko"});
  EXPECT_EQ(o.base_path, "vmlinux");
  EXPECT_EQ(o.detached_path, "m.btf");
  EXPECT_EQ(o.jobs, 4u);
  EXPECT_EQ(parse({"--jobs=3", "x"}).jobs, 3u);
  EXPECT_EQ(parse({"-Jj2", "x"}).jobs, 2u);
  EXPECT_FALSE(parse({"--skip_encoding_btf_vars", "--skip_encoding_btf_enum64", "x"}).enum64);
}

TEST(Options, Mistakes) {
  EXPECT_THROW(parse({"-J"}), OptionError);                       // no FILE
  EXPECT_THROW(parse({"a", "b"}, true), OptionError);             // pahole takes one FILE
  EXPECT_THROW(parse({"--btf_encode_detached=o.btf", "a", "b"}), OptionError);  // one output, two FILEs
  EXPECT_THROW(parse({"--output-dir=d", "--btf_encode_detached=o.btf", "a"}), OptionError);
  EXPECT_EQ(parse({"a", "b"}).inputs.size(), 2u);                 // btfc's batch mode takes several
  EXPECT_THROW(parse({"--btf_base"}), OptionError);               // missing value
  EXPECT_THROW(parse({"-jx", "a"}), OptionError);
  // `-j 2`: the count must be attached (pahole's -j[N]); the 2 is said to
  // be taken for a FILE, not reported as a second FILE or a missing one.
  for (bool pahole : {false, true}) {
    try {
      parse({"-J", "-j", "2", "--btf_encode_detached=o.btf", "vmlinux"}, pahole);
      FAIL();
    } catch (const OptionError& e) {
      EXPECT_STREQ(e.what(), "-j takes its count attached, as pahole's: -j2 (a separate '2' is a FILE)");
    }
  }
  try {
    parse({"--jobs", "4", "a.ko"});
    FAIL();
  } catch (const OptionError& e) {
    EXPECT_STREQ(e.what(), "--jobs takes its count attached, as pahole's: --jobs=4 (a separate '4' is a FILE)");
  }
  EXPECT_EQ(parse({"-j", "m.ko"}).jobs, 0u);  // -j alone, then a FILE: as a kernel build writes it
  // An empty file name is a mistake, not "no detached file": encoding in
  // place instead would rewrite the input ELF the user meant to keep.
  EXPECT_THROW(parse({"--btf_encode_detached=", "a"}), OptionError);
  EXPECT_THROW(parse({"--btf_encode_detached", "", "a"}, true), OptionError);
  EXPECT_THROW(parse({"--btf_base=", "a"}), OptionError);
  EXPECT_THROW(parse({"--output-dir=", "a", "b"}), OptionError);
  EXPECT_THROW(parse({"--lang_exclude=klingon", "a"}), OptionError);
  try {
    parse({"--sort", "vmlinux"}, true);
    FAIL();
  } catch (const OptionError& e) {
    EXPECT_STREQ(e.what(), "pahole option --sort is not supported by btfc when encoding (-J)");
  }
  try {
    parse({"-C", "task_struct", "vmlinux"}, true);
    FAIL();
  } catch (const OptionError& e) {
    EXPECT_STREQ(e.what(), "pahole option -C is not supported by btfc when encoding (-J)");
  }
}

}  // namespace
}  // namespace btfc::convert
