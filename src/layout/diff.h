// A line-based unified diff (Myers' O(ND) algorithm), for `btfc btfdiff`:
// the output reads like `diff -u` so the two sides can be compared by eye.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace btfc::layout {

// "" when a == b; otherwise ---/+++ headers and @@ hunks with `context`
// lines around each change.
// The lines of `s`, without their '\n' (a last line without one counts).
std::vector<std::string_view> split_lines(std::string_view s);

std::string unified_diff(std::string_view a, std::string_view b, std::string_view label_a,
                         std::string_view label_b, int context = 3);

}  // namespace btfc::layout
