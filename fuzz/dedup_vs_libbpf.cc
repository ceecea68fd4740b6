// Fuzz target: bytes as the choices of the random type graphs of
// tests/support/random_btf.h (a base of one or two compiler-like units, a
// split table of more on it, referring to the base's types directly at
// times); every way btfc deduplicates each table must give the bytes of
// libbpf's btf__dedup (tests/support/dedup_ways.h). A difference traps,
// after naming the way on stderr.
#include <cstdint>
#include <cstdio>
#include <string>

#include "support/dedup_ways.h"
#include "support/random_btf.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace btfc::btf::testing;
  ByteChoices choices({data, size});
  RandomTables t = random_tables(choices);
  for (const btfc::btf::Btf* table : {t.base.get(), t.split.get()}) {
    if (!table) break;
    const bool split = table == t.split.get();
    const std::string difference = dedup_difference(*table, split ? t.stages : std::vector<btfc::btf::TypeId>{});
    if (!difference.empty()) {
      std::fprintf(stderr, "dedup differs from libbpf's: %s\n", difference.c_str());
      __builtin_trap();
    }
  }
  return 0;
}
