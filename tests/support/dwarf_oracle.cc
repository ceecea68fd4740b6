#include "support/dwarf_oracle.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "support/test_support.h"

namespace btfc::test {

std::string llvm_dwarfdump_stats(const std::string& file) {
  // awk reduces the (possibly huge) dump to counts as it streams by; grep
  // first keeps only the lines that start a DIE or a unit (vmlinux: 3.7 GB
  // of text, 61 -> 43 s of CPU).
  RunResult r = run("llvm-dwarfdump-14 --debug-info --debug-types '" + file +
                    "' 2>/dev/null | LC_ALL=C grep '^0x' | awk '$1 ~ /^0x[0-9a-f]+:$/ { if ($2 ~ /^DW_TAG_/) c[$2]++; "
                    "else if ($3 == \"Unit:\") u++ } END { for (t in c) print t, c[t]; print \"units\", u+0 }'");
  EXPECT_EQ(r.status, 0) << r.err;
  std::map<std::string, unsigned long long> tags;
  unsigned long long units = 0, dies = 0;
  std::istringstream in(r.out);
  std::string name;
  unsigned long long n;
  while (in >> name >> n) {
    if (name == "units") units = n;
    else tags[name] = n, dies += n;
  }
  std::string out;
  for (const auto& [t, c] : tags) out += t + " " + std::to_string(c) + "\n";
  out += "units " + std::to_string(units) + "\ndies " + std::to_string(dies) + "\n";
  return out;
}

}  // namespace btfc::test
