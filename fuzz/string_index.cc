// Fuzz target: a string table's index built for asked texts only
// (StringTable::index_only, a single module's base) against its whole
// index. The input's first byte says which of its strings are asked for;
// the rest, NUL-terminated, is the table's bytes (strings of any length
// and bytes, duplicates, the block edges the scan finds NULs by). Every
// find must answer as the whole index does, asked or not, and add() must
// find before it appends.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "btf/btf.h"

using btfc::btf::StringTable;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t pick = data[0];
  std::vector<uint8_t> bytes(data + 1, data + size);
  bytes.push_back(0);  // the reader checks a table ends with NUL
  const std::span<const uint8_t> table(bytes);

  StringTable whole;
  whole.assign(table);
  StringTable partial;
  partial.assign_unindexed(table);
  partial.defer_index();

  // Each string, and each string with its last byte cut (mostly absent).
  std::vector<std::string_view> texts;
  for (size_t off = 0; off < bytes.size();) {
    std::string_view s(reinterpret_cast<const char*>(bytes.data()) + off);
    texts.push_back(s);
    if (!s.empty()) texts.push_back(s.substr(0, s.size() - 1));
    off += s.size() + 1;
  }
  StringTable asked(/*leading_empty=*/false);
  for (size_t i = 0; i < texts.size(); ++i)
    if (!texts[i].empty() && (pick >> (i % 8) & 1)) asked.add(texts[i]);
  partial.index_only(std::move(asked));

  for (std::string_view s : texts)
    if (partial.find(s) != whole.find(s)) __builtin_trap();
  if (partial.find("\xff not in the table \xff") != whole.find("\xff not in the table \xff")) __builtin_trap();
  for (std::string_view s : texts) {
    if (s.empty()) continue;
    const std::optional<uint32_t> had = whole.find(s);
    if (had && partial.add(s) != *had) __builtin_trap();
  }
  return 0;
}
