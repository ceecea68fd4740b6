// The oracles of the layout tests: Debian's pahole 1.24 on the same object,
// and the pahole 1.31 reference files. pahole 1.31 prints a few summary
// details 1.24 does not (after a struct member: "XXX last struct has N
// holes / bit holes / bits of padding / a flexible array"; in the summary:
// "member types with ...", "flexible array members: ..."). Comparing btfc
// (which prints as 1.31) with 1.24 therefore first removes exactly those,
// with the blank lines pahole puts around them; the function was checked to
// turn the ext4 1.31 references into pahole 1.24's output byte for byte
// (LayoutCorpus.FilterTurns131Into124).
#pragma once

#include <regex>
#include <string>
#include <vector>

namespace btfc::test {

inline std::string only_what_124_prints(const std::string& text) {
  std::vector<std::string> lines;
  size_t p = 0;
  while (p <= text.size()) {
    size_t e = text.find('\n', p);
    if (e == std::string::npos) e = text.size();
    lines.push_back(text.substr(p, e - p));
    p = e + 1;
  }
  static const std::regex last_struct(R"(^(\t*)/\* XXX last struct has(.*) \*/$)");
  static const std::regex summary(R"(^\t*/\* (member types with |flexible array members: ))");
  static const std::regex padding(R"(^\d+ bytes? of padding$)");
  static const std::regex comment_after(R"(^\t*/\* (XXX|size:|Force))");
  std::vector<std::string> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    const std::string& l = lines[i];
    if (std::regex_match(l, m, last_struct)) {
      std::string parts = m[2].str(), kept;
      size_t q = 0;
      while (q <= parts.size()) {
        size_t c = parts.find(',', q);
        if (c == std::string::npos) c = parts.size();
        std::string part = parts.substr(q, c - q);
        while (!part.empty() && part.front() == ' ') part.erase(part.begin());
        if (kept.empty() && std::regex_match(part, padding)) kept = part;
        q = c + 1;
      }
      if (!kept.empty()) {
        out.push_back(m[1].str() + "/* XXX last struct has " + kept + " */");
        continue;
      }
      if (i + 1 < lines.size() && lines[i + 1].empty()) {
        if (i + 2 < lines.size() && std::regex_search(lines[i + 2], comment_after)) {
          ++i;
          continue;
        }
        if (!out.empty() && out.back().empty()) out.pop_back();
        ++i;
      }
      continue;
    }
    if (std::regex_search(l, summary)) continue;
    out.push_back(l);
  }
  std::string r;
  for (size_t i = 0; i < out.size(); ++i) {
    if (i) r += '\n';
    r += out[i];
  }
  return r;
}

}  // namespace btfc::test
