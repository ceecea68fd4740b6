// Myers' greedy diff, keeping one V vector per edit distance for the
// backtrack. Lines are compared by a 64-bit hash plus the text. A very
// large edit distance (more than kMaxEdits) is reported as one hunk that
// replaces everything: such inputs are not worth a line-exact diff.
#include "layout/diff.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

namespace btfc::layout {

std::vector<std::string_view> split_lines(std::string_view s) {
  std::vector<std::string_view> v;
  size_t p = 0;
  while (p < s.size()) {
    size_t e = s.find('\n', p);
    if (e == std::string_view::npos) e = s.size();
    v.push_back(s.substr(p, e - p));
    p = e + 1;
  }
  return v;
}

namespace {

constexpr int kMaxEdits = 6000;

struct Edit {
  char op;  // ' ', '-', '+'
  int a, b; // line indexes
};

}  // namespace

std::string unified_diff(std::string_view a_text, std::string_view b_text, std::string_view label_a,
                         std::string_view label_b, int context) {
  if (a_text == b_text) return "";
  std::vector<std::string_view> a = split_lines(a_text), b = split_lines(b_text);
  int n = static_cast<int>(a.size()), m = static_cast<int>(b.size());
  std::vector<uint64_t> ha(n), hb(m);
  for (int i = 0; i < n; ++i) ha[i] = std::hash<std::string_view>{}(a[i]);
  for (int i = 0; i < m; ++i) hb[i] = std::hash<std::string_view>{}(b[i]);
  auto eq = [&](int i, int j) { return ha[i] == hb[j] && a[i] == b[j]; };

  std::vector<Edit> edits;
  int max = n + m;
  int offset = max + 1;
  std::vector<int> v(2 * max + 3, 0);
  std::vector<std::vector<int>> trace;
  int found = -1;
  for (int d = 0; d <= std::min(max, kMaxEdits); ++d) {
    trace.push_back(v);
    for (int k = -d; k <= d; k += 2) {
      int x = (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1])) ? v[offset + k + 1]
                                                                              : v[offset + k - 1] + 1;
      int y = x - k;
      while (x < n && y < m && eq(x, y)) ++x, ++y;
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
    if (found >= 0) break;
  }
  if (found < 0) {
    for (int i = 0; i < n; ++i) edits.push_back({'-', i, 0});
    for (int j = 0; j < m; ++j) edits.push_back({'+', n, j});
  } else {
    int x = n, y = m;
    for (int d = found; d > 0; --d) {
      const std::vector<int>& pv = trace[d];
      int k = x - y;
      int pk = (k == -d || (k != d && pv[offset + k - 1] < pv[offset + k + 1])) ? k + 1 : k - 1;
      int px = pv[offset + pk], py = px - pk;
      while (x > px && y > py) edits.push_back({' ', --x, --y});
      if (x == px)
        edits.push_back({'+', x, --y});
      else
        edits.push_back({'-', --x, y});
    }
    while (x > 0 && y > 0) edits.push_back({' ', --x, --y});
    std::reverse(edits.begin(), edits.end());
  }

  std::string out;
  out += "--- ";
  out += label_a;
  out += "\n+++ ";
  out += label_b;
  out += '\n';
  size_t i = 0;
  while (i < edits.size()) {
    while (i < edits.size() && edits[i].op == ' ') ++i;
    if (i == edits.size()) break;
    size_t start = i >= static_cast<size_t>(context) ? i - context : 0;
    size_t end = i;
    // Extend the hunk while changes are within 2*context of each other.
    size_t last_change = i;
    for (size_t j = i; j < edits.size(); ++j) {
      if (edits[j].op != ' ') last_change = j;
      else if (j - last_change > static_cast<size_t>(2 * context)) break;
      end = j + 1;
    }
    end = std::min(edits.size(), last_change + 1 + context);
    int a0 = edits[start].a, b0 = edits[start].b, ac = 0, bc = 0;
    for (size_t j = start; j < end; ++j) {
      if (edits[j].op != '+') ++ac;
      if (edits[j].op != '-') ++bc;
    }
    out += "@@ -" + std::to_string(ac ? a0 + 1 : a0) + "," + std::to_string(ac) + " +" +
           std::to_string(bc ? b0 + 1 : b0) + "," + std::to_string(bc) + " @@\n";
    for (size_t j = start; j < end; ++j) {
      out += edits[j].op;
      out += edits[j].op == '+' ? b[edits[j].b] : a[edits[j].a];
      out += '\n';
    }
    i = end;
  }
  return out;
}

}  // namespace btfc::layout
