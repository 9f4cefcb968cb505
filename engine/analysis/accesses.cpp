#include "analysis/accesses.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace lego::analysis {
namespace {

using RequestKey = std::tuple<std::int64_t, std::int32_t, std::int32_t, std::int32_t>;  // block, phase, occurrence, warp

// The lanes of each warp request of one site, keyed in execution order.
std::map<RequestKey, std::vector<const TraceRecord*>> requests_of(const std::vector<const TraceRecord*>& records) {
  std::map<RequestKey, std::vector<const TraceRecord*>> out;
  for (const TraceRecord* r : records) out[{r->block, r->phase, r->occurrence, r->thread / kWarp}].push_back(r);
  return out;
}

void shared_site(SiteReport& s, const std::vector<const TraceRecord*>& records) {
  std::int64_t ways_sum = 0;
  for (const auto& [key, lanes] : requests_of(records)) {
    WarpAccess w;
    // 8- and 16-byte accesses are served in half- and quarter-warp phases.
    w.bytes = s.access_bytes == 8 || s.access_bytes == 16 ? s.access_bytes : 4;
    for (const TraceRecord* r : lanes) {
      if (r->access_bytes < 0) continue;  // an address the instruction does not use
      const int lane = r->thread % kWarp;
      w.active[static_cast<std::size_t>(lane)] = true;
      const std::int64_t byte = r->offset * s.bytes;
      w.address[static_cast<std::size_t>(lane)] = s.bytes < 4 ? byte / 4 * 4 : byte;  // narrow types: the word they sit in
    }
    const ConflictReport c = analyze(w);
    ++s.executions;
    ways_sum += c.ways;
    if (c.ways > s.max_ways) {
      s.max_ways = c.ways;
      s.worst_lane_bank = {};
      add_lane_bank(s.worst_lane_bank, c);
    }
    s.wavefronts += c.wavefronts;
    s.excess_wavefronts += c.excess();
    add_lane_bank(s.lane_bank, c);
  }
  s.mean_ways = s.executions ? double(ways_sum) / double(s.executions) : 0;
}

void global_site(SiteReport& s, const std::vector<const TraceRecord*>& records) {
  std::int64_t sectors = 0, useful = 0, ideal = 0;
  for (const auto& [key, lanes] : requests_of(records)) {
    // Bytes the lanes ask for, each counted once (lanes may overlap).
    std::set<std::int64_t> sector, byte_asked;
    for (const TraceRecord* r : lanes) {
      if (r->access_bytes < 0) continue;
      const std::int64_t byte = r->offset * s.bytes;
      for (std::int64_t b = byte; b < byte + s.access_bytes; ++b) byte_asked.insert(b);
      for (std::int64_t b = byte / 32; b <= (byte + s.access_bytes - 1) / 32; ++b) sector.insert(b);
    }
    ++s.executions;
    sectors += static_cast<std::int64_t>(sector.size());
    useful += static_cast<std::int64_t>(byte_asked.size());
    ideal += (static_cast<std::int64_t>(byte_asked.size()) + 31) / 32;
  }
  if (!s.executions) return;
  s.sectors_per_request = double(sectors) / double(s.executions);
  s.ideal_sectors_per_request = double(ideal) / double(s.executions);
  s.efficiency = double(useful) / double(sectors * 32);
}

void host_site(SiteReport& s, const std::vector<const TraceRecord*>& records) {
  s.executions = static_cast<std::int64_t>(records.size());
  if (records.size() < 2) return;
  std::map<std::int64_t, std::int64_t> strides;
  std::int64_t new_lines = 0;
  for (std::size_t k = 1; k < records.size(); ++k) {
    ++strides[records[k]->offset - records[k - 1]->offset];
    if (records[k]->offset * s.bytes / 64 != records[k - 1]->offset * s.bytes / 64) ++new_lines;
  }
  s.lines_per_access = double(new_lines) / double(records.size() - 1);
  s.common_stride = std::max_element(strides.begin(), strides.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
  s.unit_stride = s.common_stride == 1;
}

}  // namespace

const char* to_string(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::Shared:
      return "shared";
    case MemoryKind::Global:
      return "global";
    case MemoryKind::Host:
      break;
  }
  return "host";
}

std::optional<MemoryKind> memory_kind_from_text(const std::string& text) {
  for (MemoryKind k : {MemoryKind::Shared, MemoryKind::Global, MemoryKind::Host})
    if (text == to_string(k)) return k;
  return std::nullopt;
}

AccessReport analyze_trace(const std::vector<SiteInfo>& sites, const std::vector<TraceRecord>& records) {
  std::vector<std::vector<const TraceRecord*>> by_site(sites.size());
  for (const auto& r : records)
    if (r.site >= 0 && static_cast<std::size_t>(r.site) < sites.size()) by_site[static_cast<std::size_t>(r.site)].push_back(&r);
  AccessReport out;
  std::int64_t global_useful_weight = 0;
  double global_weighted = 0;
  for (std::size_t k = 0; k < sites.size(); ++k) {
    SiteReport s;
    s.info = sites[k];
    if (by_site[k].empty()) {
      out.sites.push_back(std::move(s));
      continue;
    }
    s.bytes = by_site[k].front()->bytes;
    s.access_bytes = s.bytes;
    for (const TraceRecord* r : by_site[k])
      if (r->access_bytes > 0) {
        s.access_bytes = r->access_bytes;
        break;
      }
    if (s.info.kind == MemoryKind::Shared) {
      shared_site(s, by_site[k]);
      out.worst_ways = std::max(out.worst_ways, s.max_ways);
      out.excess_wavefronts += s.excess_wavefronts;
    } else if (s.info.kind == MemoryKind::Global) {
      global_site(s, by_site[k]);
      global_weighted += s.efficiency * double(s.executions);
      global_useful_weight += s.executions;
    } else {
      host_site(s, by_site[k]);
      out.lines_per_iteration += s.lines_per_access;
    }
    out.sites.push_back(std::move(s));
  }
  out.global_efficiency = global_useful_weight ? global_weighted / double(global_useful_weight) : 0;
  return out;
}

SiteTouches site_touches(const std::vector<TraceRecord>& records, int site, int max_steps, std::size_t max_touches) {
  SiteTouches out;
  std::unordered_map<std::int32_t, std::int32_t> executed;  // per thread
  for (const auto& r : records) {
    if (r.site != site || r.access_bytes < 0) continue;  // not this site's, or an address the instruction ignores
    out.threads = std::max(out.threads, r.thread + 1);
    const std::int32_t step = executed[r.thread]++;
    if (step >= max_steps || out.touches.size() >= max_touches) {
      out.truncated = true;
      continue;
    }
    out.steps = std::max(out.steps, step + 1);
    out.touches.push_back({step, r.thread, r.offset, r.phase, r.occurrence});
  }
  return out;
}

std::string verdict(const SiteReport& s) {
  if (s.executions == 0) return "not reached in the trace";
  // An instruction moving several elements per lane (ldmatrix, cp.async) says so.
  const std::string width = s.access_bytes > s.bytes ? fmt::format("{} B per lane; ", s.access_bytes) : "";
  if (s.info.kind == MemoryKind::Shared)
    return width + fmt::format("{}-way (mean {:.2f}), {} excess wavefronts", s.max_ways, s.mean_ways, s.excess_wavefronts);
  if (s.info.kind == MemoryKind::Global)
    return width + fmt::format("{:.2f} sectors/request (ideal {:.2f}), {:.0f}% efficient", s.sectors_per_request,
                               s.ideal_sectors_per_request, 100 * s.efficiency);
  return fmt::format("{:.3f} cache lines/iteration, stride {}{}", s.lines_per_access, s.common_stride, s.unit_stride ? " (unit)" : "");
}

}  // namespace lego::analysis
