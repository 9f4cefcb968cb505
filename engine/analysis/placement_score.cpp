#include "analysis/placement_score.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace lego::analysis {
namespace {

std::int64_t offset_of(const BufferTrace& t, const std::vector<std::int64_t>& offsets, const BufferAccess& a) {
  return offsets[static_cast<std::size_t>(a.row * t.columns + a.column)];
}

// The bytes a lane's access at `site` moves when an instruction moves more
// than the element, else 0.
int access_bytes(const BufferTrace& t, int site) {
  const auto it = t.access_bytes.find(site);
  return it != t.access_bytes.end() && it->second > t.bytes.at(site) ? it->second : 0;
}

// The traced accesses at the placement's offsets.
std::vector<TraceRecord> trace_records(const BufferTrace& t, const std::vector<std::int64_t>& offsets) {
  std::vector<TraceRecord> records;
  records.reserve(t.accesses.size());
  for (const BufferAccess& a : t.accesses)
    records.push_back({a.site, a.phase, a.occurrence, a.thread, 0, offset_of(t, offsets, a), t.bytes.at(a.site), access_bytes(t, a.site)});
  return records;
}

// Each thread's consecutive steps read consecutive, aligned offsets. An
// instruction that moves several elements (ldmatrix, cp.async) is a vector
// of its own width (widened_access_problem checks the placement keeps it).
int vector_elements(const BufferTrace& t, const std::vector<std::int64_t>& offsets) {
  std::map<std::pair<int, std::int32_t>, std::vector<std::int64_t>> by_thread;  // (site, thread) -> offsets by step
  int instruction_width = 0;
  for (const BufferAccess& a : t.accesses) {
    if (const int bytes = access_bytes(t, a.site)) {
      const int elements = bytes / t.bytes.at(a.site);
      instruction_width = instruction_width ? std::min(instruction_width, elements) : elements;
      continue;
    }
    auto& v = by_thread[{a.site, a.thread}];
    if (v.size() <= static_cast<std::size_t>(a.step)) v.resize(static_cast<std::size_t>(a.step) + 1, -1);
    v[static_cast<std::size_t>(a.step)] = offset_of(t, offsets, a);
  }
  int widest = 1;
  for (int width : {2, 4}) {
    bool ok = true;
    for (const auto& [key, steps] : by_thread) {
      if (width * t.bytes.at(key.first) > 16 || steps.size() % static_cast<std::size_t>(width) != 0) ok = false;
      for (std::size_t k = 0; ok && k < steps.size(); k += static_cast<std::size_t>(width)) {
        if (steps[k] < 0 || steps[k] % width != 0) ok = false;
        for (int j = 1; ok && j < width; ++j) ok = steps[k + static_cast<std::size_t>(j)] == steps[k] + j;
      }
      if (!ok) break;
    }
    if (ok) widest = width;
  }
  if (by_thread.empty() && instruction_width) return instruction_width;
  return instruction_width ? std::min(widest, instruction_width) : widest;
}

// The lanes that pile into one bank in the worst request: "lanes 0, 1, .., 31 on bank 0".
std::string collision(const SiteReport& s) {
  int bank = 0;
  std::int64_t most = -1;
  for (int b = 0; b < kBanks; ++b) {
    std::int64_t lanes = 0;
    for (int l = 0; l < kWarp; ++l) lanes += s.worst_lane_bank[static_cast<std::size_t>(l)][static_cast<std::size_t>(b)] > 0;
    if (lanes > most) most = lanes, bank = b;
  }
  std::vector<int> lanes;
  for (int l = 0; l < kWarp; ++l)
    if (s.worst_lane_bank[static_cast<std::size_t>(l)][static_cast<std::size_t>(bank)] > 0) lanes.push_back(l);
  std::string list;
  for (std::size_t k = 0; k < lanes.size(); ++k) {
    if (k == 3 && lanes.size() > 4) {
      list += ", .., " + std::to_string(lanes.back());
      break;
    }
    list += (k ? ", " : "") + std::to_string(lanes[k]);
  }
  return fmt::format("lanes {} on bank {}", list, bank);
}

}  // namespace

PlacementScore score_placement(const BufferTrace& t, const std::vector<std::int64_t>& offsets) {
  const AccessReport report = analyze_trace(t.sites, trace_records(t, offsets));
  PlacementScore c;
  double mean = 0, sectors = 0, lines = 0;
  for (const auto& s : report.sites) {
    if (s.executions == 0 || !t.bytes.count(s.info.site)) continue;  // another buffer's access
    if (s.info.kind == MemoryKind::Shared) {
      ++c.shared_sites;
      mean += s.mean_ways;
      c.excess_wavefronts += s.excess_wavefronts;
      c.sites.push_back({s.info.placeholder, s.info.line, s.max_ways, s.excess_wavefronts});
      if (s.max_ways > c.worst_ways) {
        c.worst_ways = s.max_ways;
        c.worst_lane_bank = s.worst_lane_bank;
        c.worst_site = fmt::format("{} (line {}): {}-way, {}", s.info.placeholder, s.info.line, s.max_ways, collision(s));
      }
    } else if (s.info.kind == MemoryKind::Global) {
      ++c.global_sites;
      sectors += s.sectors_per_request;
    } else {
      ++c.host_sites;
      lines += s.lines_per_access;
    }
  }
  if (c.shared_sites) c.mean_ways = mean / c.shared_sites;
  if (c.global_sites) c.sectors_per_request = sectors / c.global_sites;
  if (c.host_sites) c.lines_per_access = lines / c.host_sites;
  c.vector_elements = vector_elements(t, offsets);
  return c;
}

std::string widened_access_problem(const BufferTrace& t, const std::vector<std::int64_t>& offsets) {
  for (const BufferAccess& a : t.accesses) {
    const int bytes = access_bytes(t, a.site);
    if (!bytes) continue;
    // The elements from the address on, in the buffer's row-major order (a
    // run may continue on the next row), at consecutive offsets.
    const std::int64_t elements = bytes / t.bytes.at(a.site), first = offset_of(t, offsets, a), flat = a.row * t.columns + a.column;
    bool fits = first % elements == 0 && flat + elements <= static_cast<std::int64_t>(offsets.size());
    for (std::int64_t k = 1; fits && k < elements; ++k) fits = offsets[static_cast<std::size_t>(flat + k)] == first + k;
    if (!fits)
      return fmt::format(
          "{} (line {}) moves {} bytes per lane, and ({}, {}) .. ({}, {}) are not {} consecutive elements from a {}-byte boundary",
          t.sites.at(static_cast<std::size_t>(a.site)).placeholder, t.sites.at(static_cast<std::size_t>(a.site)).line, bytes, a.row,
          a.column, a.row, a.column + elements - 1, elements, bytes);
  }
  return "";
}

std::array<int, 3> ways_by_width(const BufferTrace& t, const std::vector<std::int64_t>& offsets, int worst_ways) {
  std::array<int, 3> out{-1, -1, -1};
  if (worst_ways < 0) return out;
  std::vector<TraceRecord> records = trace_records(t, offsets);
  for (std::size_t w = 0; w < 3; ++w) {
    const int bytes = 4 << w;
    if (std::all_of(t.bytes.begin(), t.bytes.end(), [&](const auto& site) { return site.second == bytes; })) {
      out[w] = std::max(worst_ways, 1);  // the element's own width, scored already
      continue;
    }
    for (auto& r : records) r.bytes = bytes;
    int worst = 1;
    for (const auto& s : analyze_trace(t.sites, records).sites)
      if (s.executions > 0 && t.bytes.count(s.info.site) && s.info.kind == MemoryKind::Shared) worst = std::max(worst, s.max_ways);
    out[w] = worst;
  }
  return out;
}

}  // namespace lego::analysis
