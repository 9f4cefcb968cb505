#include "views/diff_align.hpp"

#include <algorithm>
#include <cctype>
#include <dtl/dtl.hpp>

namespace lego::views {

namespace {

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

// Rows for a[a0, a1) against b[b0, b1): line by line through dtl.
void align_range(const std::vector<std::string>& a, std::size_t a0, std::size_t a1, const std::vector<std::string>& b, std::size_t b0,
                 std::size_t b1, std::vector<DiffRow>& rows) {
  const std::vector<std::string> left(a.begin() + static_cast<long>(a0), a.begin() + static_cast<long>(a1));
  const std::vector<std::string> right(b.begin() + static_cast<long>(b0), b.begin() + static_cast<long>(b1));
  dtl::Diff<std::string> diff(left, right);
  diff.compose();
  std::vector<long long> removed, added;
  const auto flush = [&] {
    for (std::size_t k = 0; k < std::max(removed.size(), added.size()); ++k)
      rows.push_back({k < removed.size() ? removed[k] : -1, k < added.size() ? added[k] : -1});
    removed.clear();
    added.clear();
  };
  const auto at_a = [&](long long i) { return static_cast<long long>(a0) + i - 1; };
  const auto at_b = [&](long long i) { return static_cast<long long>(b0) + i - 1; };
  for (const auto& [line, info] : diff.getSes().getSequence()) {
    if (info.type == dtl::SES_DELETE) {
      removed.push_back(at_a(info.beforeIdx));
    } else if (info.type == dtl::SES_ADD) {
      added.push_back(at_b(info.afterIdx));
    } else {
      flush();
      rows.push_back({at_a(info.beforeIdx), at_b(info.afterIdx)});
    }
  }
  flush();
}

// A label line: "name:" possibly followed by a comment.
bool label_of(const std::string& t, std::string& name) {
  const auto colon = t.find(':');
  if (colon == std::string::npos || colon == 0) return false;
  const std::string head = t.substr(0, colon);
  if (head.find_first_of(" \t,(") != std::string::npos) return false;  // an instruction operand, not a label
  const std::string rest = trimmed(t.substr(colon + 1));
  if (!rest.empty() && rest[0] != '#' && rest.rfind("//", 0) != 0) return false;
  name = head;
  return true;
}

bool local_label(const std::string& name) { return name.rfind(".L", 0) == 0 || name.rfind("$L", 0) == 0 || name.rfind("$", 0) == 0; }

// PTX: ".visible .entry lego_kernel(" -> lego_kernel.
bool ptx_function(const std::string& t, std::string& name) {
  for (const char* word : {".entry ", ".func "}) {
    const auto at = t.find(word);
    if (at == std::string::npos) continue;
    std::string rest = trimmed(t.substr(at + std::string(word).size()));
    if (rest.rfind('(', 0) == 0) rest = rest.substr(rest.find(')') + 1);  // .func (.param ..) name(
    rest = trimmed(rest);
    name = rest.substr(0, rest.find_first_of(" (\t"));
    return !name.empty();
  }
  return false;
}

std::string mnemonic(const std::string& t) {
  if (t.empty() || t[0] == '.' || t[0] == '#' || t.rfind("//", 0) == 0 || t[0] == '{' || t[0] == '}') return {};
  std::string rest = t;
  if (rest[0] == '@') rest = trimmed(rest.substr(rest.find_first_of(" \t") == std::string::npos ? rest.size() : rest.find_first_of(" \t")));
  return rest.substr(0, rest.find_first_of(" \t;"));
}

}  // namespace

std::vector<DiffRow> align_lines(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<DiffRow> rows;
  align_range(a, 0, a.size(), b, 0, b.size(), rows);
  return rows;
}

std::vector<AsmBlock> asm_blocks(const std::vector<std::string>& lines) {
  std::vector<AsmBlock> blocks(1);
  std::string function;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const std::string t = trimmed(lines[k]);
    std::string name;
    const bool ptx_head = ptx_function(t, name);
    const bool label = !ptx_head && label_of(t, name);
    if (ptx_head || label) {
      if (ptx_head || !local_label(name)) function = name;
      if (k > blocks.back().first) blocks.push_back({});
      blocks.back().first = k;
    }
    blocks.back().function = function;
    blocks.back().end = k + 1;
    if (const std::string m = mnemonic(t); !m.empty() && !label) blocks.back().signature += m + " ";
  }
  if (blocks.size() == 1 && blocks[0].end == 0) blocks.clear();
  return blocks;
}

std::vector<DiffRow> align_assembly(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const std::vector<AsmBlock> left = asm_blocks(a), right = asm_blocks(b);
  std::vector<DiffRow> rows;
  const auto lone = [&](const AsmBlock& block, bool is_left) {
    for (std::size_t k = block.first; k < block.end; ++k)
      rows.push_back(is_left ? DiffRow{static_cast<long long>(k), -1} : DiffRow{-1, static_cast<long long>(k)});
  };
  const auto pair = [&](const AsmBlock& x, const AsmBlock& y) { align_range(a, x.first, x.end, b, y.first, y.end, rows); };
  // Blocks of matched functions: same mnemonics face each other; between two
  // such, the others pair up in order, the longer run against blank rows.
  const auto align_blocks = [&](const std::vector<const AsmBlock*>& xs, const std::vector<const AsmBlock*>& ys) {
    std::vector<std::string> sx, sy;
    for (const AsmBlock* x : xs) sx.push_back(x->signature);
    for (const AsmBlock* y : ys) sy.push_back(y->signature);
    dtl::Diff<std::string> diff(sx, sy);
    diff.compose();
    std::vector<const AsmBlock*> removed, added;
    const auto flush = [&] {
      for (std::size_t k = 0; k < std::max(removed.size(), added.size()); ++k) {
        if (k < removed.size() && k < added.size())
          pair(*removed[k], *added[k]);
        else if (k < removed.size())
          lone(*removed[k], true);
        else
          lone(*added[k], false);
      }
      removed.clear();
      added.clear();
    };
    for (const auto& [signature, info] : diff.getSes().getSequence()) {
      if (info.type == dtl::SES_DELETE) {
        removed.push_back(xs[static_cast<std::size_t>(info.beforeIdx - 1)]);
      } else if (info.type == dtl::SES_ADD) {
        added.push_back(ys[static_cast<std::size_t>(info.afterIdx - 1)]);
      } else {
        flush();
        pair(*xs[static_cast<std::size_t>(info.beforeIdx - 1)], *ys[static_cast<std::size_t>(info.afterIdx - 1)]);
      }
    }
    flush();
  };
  // Functions in order of appearance, matched by name.
  const auto functions = [](const std::vector<AsmBlock>& blocks) {
    std::vector<std::pair<std::string, std::vector<const AsmBlock*>>> out;
    for (const AsmBlock& block : blocks) {
      if (out.empty() || out.back().first != block.function) out.push_back({block.function, {}});
      out.back().second.push_back(&block);
    }
    return out;
  };
  // Functions face the function of the same name wherever it is (the
  // right pane then lists them in the left's order; its line numbers stay
  // its own); one only a side has faces blank rows where it stood.
  const auto fa = functions(left), fb = functions(right);
  std::vector<bool> shown(fb.size(), false);
  const auto match = [&](const std::string& name) {
    for (std::size_t k = 0; k < fb.size(); ++k)
      if (!shown[k] && fb[k].first == name) return static_cast<long>(k);
    return -1L;
  };
  const auto only_right = [&](std::size_t k) {
    for (const auto& f : fa)
      if (f.first == fb[k].first) return false;
    return true;
  };
  std::size_t next_right = 0;
  for (const auto& [name, blocks] : fa) {
    const long k = match(name);
    if (k < 0) {
      for (const AsmBlock* block : blocks) lone(*block, true);
      continue;
    }
    for (; next_right < static_cast<std::size_t>(k); ++next_right)  // right-only functions before it, where they stood
      if (!shown[next_right] && only_right(next_right)) {
        for (const AsmBlock* block : fb[next_right].second) lone(*block, false);
        shown[next_right] = true;
      }
    align_blocks(blocks, fb[static_cast<std::size_t>(k)].second);
    shown[static_cast<std::size_t>(k)] = true;
  }
  for (std::size_t k = 0; k < fb.size(); ++k)
    if (!shown[k])
      for (const AsmBlock* block : fb[k].second) lone(*block, false);
  return rows;
}

}  // namespace lego::views
