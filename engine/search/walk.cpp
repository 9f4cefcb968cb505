#include "search/walk.hpp"

#include <algorithm>
#include <bit>
#include <map>

namespace lego::search {

namespace {

// A set-associative cache of `sets` x `ways` blocks, least recently used out.
class CacheModel {
 public:
  CacheModel(std::int64_t bytes, int block_bytes, int ways) : ways_(ways) {
    sets_ = std::max<std::int64_t>(1, bytes / block_bytes / ways);
    tags_.assign(static_cast<std::size_t>(sets_ * ways_), -1);
    stamps_.assign(tags_.size(), 0);
  }
  // Whether `block` missed; it is cached after.
  bool miss(std::int64_t block) {
    const std::size_t base = static_cast<std::size_t>((block % sets_) * ways_);
    ++clock_;
    std::size_t victim = base;
    for (std::size_t w = base; w < base + static_cast<std::size_t>(ways_); ++w) {
      if (tags_[w] == block) {
        stamps_[w] = clock_;
        return false;
      }
      if (stamps_[w] < stamps_[victim]) victim = w;
    }
    tags_[victim] = block;
    stamps_[victim] = clock_;
    return true;
  }

 private:
  int ways_;
  std::int64_t sets_ = 1;
  std::vector<std::int64_t> tags_;
  std::vector<std::uint64_t> stamps_;
  std::uint64_t clock_ = 0;
};

// The L2 streamer's view of the misses (Intel's and AMD's prefetch a page's
// next lines once its requests ascend): it follows one ascending run of
// lines per 4 KiB page, in a table of 32 pages, least recently used out.
// A line that continues its page's run was fetched ahead of the request; a
// line that starts a run, or jumps within a page whose rows the loop visits
// interleaved, waits for memory.
class StreamTable {
 public:
  // Whether `line` continues the run of its page; it is the run's last line after.
  bool continues(std::int64_t page, std::int64_t line) {
    ++clock_;
    Entry* victim = &entries_[0];
    for (Entry& e : entries_) {
      if (e.page == page) {
        const bool ahead = line > e.last && line - e.last <= 2;
        e.last = line;
        e.stamp = clock_;
        return ahead;
      }
      if (e.stamp < victim->stamp) victim = &e;
    }
    *victim = {page, line, clock_};
    return false;
  }

 private:
  struct Entry {
    std::int64_t page = -1, last = -1;
    std::uint64_t stamp = 0;
  };
  Entry entries_[32];
  std::uint64_t clock_ = 0;
};

// The element offset `w` reaches at the loop's coordinates `at`; `index` is scratch.
std::int64_t offset(const WalkAccess& w, const std::vector<std::int64_t>& at, std::vector<std::int64_t>& index) {
  index.resize(w.coordinate.size());
  for (std::size_t d = 0; d < index.size(); ++d)
    index[d] = w.coordinate[d] >= 0 ? at[static_cast<std::size_t>(w.coordinate[d])] : w.constant[d];
  return w.layout->apply(index.data());
}

// The innermost loop is the run of x whose coordinates step alike from x = 0;
// the loop outside it steps from x = 0 to the run's end.
bool vectorizes(const Plan& loop, const std::vector<WalkAccess>& accesses, std::int64_t& inner_run) {
  const std::int64_t n = loop.size();
  inner_run = n;
  if (n < 2 || accesses.empty()) return true;
  const auto coordinates = [&](std::int64_t x) {
    std::vector<std::int64_t> at(static_cast<std::size_t>(loop.rank()));
    loop.inv(x, at.data());
    return at;
  };
  const std::vector<std::int64_t> first = coordinates(0), second = coordinates(1);
  std::int64_t run = 1;
  for (std::vector<std::int64_t> last = second; run + 1 < n; ++run) {
    std::vector<std::int64_t> next = coordinates(run + 1);
    bool alike = true;
    for (std::size_t d = 0; d < next.size(); ++d) alike = alike && next[d] - last[d] == second[d] - first[d];
    if (!alike) break;
    last = std::move(next);
  }
  ++run;  // x = 0 .. run - 1 is the innermost loop
  inner_run = run;
  const std::vector<std::int64_t> outer = run < n ? coordinates(run) : first;
  std::vector<std::int64_t> inner_stride, outer_stride, index;
  for (const WalkAccess& w : accesses) {
    const std::int64_t origin = offset(w, first, index);
    inner_stride.push_back(std::llabs(offset(w, second, index) - origin));
    outer_stride.push_back(run < n ? std::llabs(offset(w, outer, index) - origin) : -1);
  }
  if (std::all_of(inner_stride.begin(), inner_stride.end(), [](std::int64_t s) { return s <= 1; })) return true;
  // The register transpose's smallest tile is 4 x 4 (SSE, NEON).
  if (accesses.size() != 2 || run < 4) return false;
  for (std::size_t a = 0; a < 2; ++a)
    if (inner_stride[a] == 1 && outer_stride[1 - a] == 1) return true;
  return false;
}

}  // namespace

int l1_ways(const target::Target& target) {
  constexpr std::int64_t kPage = 4096;
  return target.arch == target::Arch::X86_64 ? static_cast<int>(std::clamp<std::int64_t>(target.l1d_bytes / kPage, 1, 64)) : 4;
}

WalkCounts walk(const Plan& loop, const std::vector<WalkAccess>& accesses, const target::Target& target, std::int64_t limit,
                const WalkTile& tile) {
  constexpr int kLine = 64, kPage = 4096;
  // An x86 L1 data cache has one 4 KiB page's worth of sets (64 of 64
  // bytes: it is indexed by the address bits a page keeps, as a virtually
  // indexed, physically tagged cache must be), so the ways grow with it:
  // 8 in 32 KiB, 12 in a Zen 5's or a Sapphire Rapids's 48 KiB. Arm's
  // cores differ (Neoverse's 64 KiB are 4-way, Apple's use 16 KiB pages):
  // 4 ways there. 16-way L2s (8 on some Arm cores, which changes little
  // here). Two TLBs: a first-level one of 64 entries, fully associative as
  // Zen's are (Intel's 4- or 6-way ones would alias a register transpose's
  // 16 rows of a 32 KiB-row matrix, 8 pages apart, more than their misses
  // cost), and a second-level one of 1536 entries, 12-way (Intel since
  // Skylake, Zen 2 and 3; 2048 on later cores), whose misses walk the page
  // table.
  CacheModel l1(target.l1d_bytes, kLine, l1_ways(target)), l2(target.l2_bytes, kLine, 16), tlb(64 * kPage, kPage, 64),
      stlb(1536 * kPage, kPage, 12);
  StreamTable streams;
  WalkCounts counts;
  const std::int64_t n = std::min(limit, loop.size());
  const int rank = loop.rank();
  const bool blocked =
      tile.tile > 1 && tile.outer >= 0 && tile.inner >= 0 && tile.outer < rank && tile.inner < rank && tile.outer != tile.inner;
  std::vector<std::int64_t> at(static_cast<std::size_t>(rank)), point, index;
  std::map<std::int64_t, int> streamed;  // a block's streamed lines: the bytes it writes to each
  // The 256-byte groups of streamed lines of the last few tiles: which of
  // their four lines were streamed, and the tile that last streamed one.
  constexpr int kGroupLines = 4, kRunTiles = 4;
  struct StreamedGroup {
    unsigned lines = 0;
    std::int64_t tile = 0;
    bool neighboured = false;  // a group beside it streamed within the window
  };
  std::map<std::int64_t, StreamedGroup> groups;
  std::int64_t tiles = 0;
  const auto close_groups = [&](std::int64_t before_tile) {
    for (auto g = groups.begin(); g != groups.end();) {
      if (g->second.tile >= before_tile) {
        ++g;
        continue;
      }
      const int written = std::popcount(g->second.lines);
      if (written == 1) counts.lone_streamed_lines += 1;
      if (written == 2 || written == 3) counts.paired_streamed_lines += written;
      if (written == kGroupLines && !g->second.neighboured) counts.quad_streamed_lines += written;
      g = groups.erase(g);
    }
  };
  const auto touch = [&](std::size_t a, const std::vector<std::int64_t>& coordinates) {
    // Each tensor 2^40 bytes from the last: apart in every set of every model.
    const std::int64_t address =
        (static_cast<std::int64_t>(a + 1) << 40) + offset(accesses[a], coordinates, index) * accesses[a].element_bytes;
    ++counts.accesses;
    if (blocked && accesses[a].streamed) {
      streamed[address / kLine] += accesses[a].element_bytes;
    } else if (l1.miss(address / kLine)) {
      counts.l1_misses += 1;
      const bool ahead = streams.continues(address / kPage, address / kLine);
      if (l2.miss(address / kLine)) {
        counts.l2_misses += accesses[a].written ? 2 : 1;
        if (!ahead) counts.unprefetched_misses += 1;
      }
    }
    if (tlb.miss(address / kPage)) {
      counts.tlb_misses += 1;
      if (stlb.miss(address / kPage)) counts.page_walks += 1;
    }
  };
  const std::size_t outer = static_cast<std::size_t>(tile.outer), inner = static_cast<std::size_t>(tile.inner);
  for (std::int64_t x = 0; x < n; ++x) {
    loop.inv(x, at.data());
    if (!blocked) {
      for (std::size_t a = 0; a < accesses.size(); ++a) touch(a, at);
      continue;
    }
    if (at[outer] % tile.tile != 0 || at[inner] % tile.tile != 0) continue;
    ++tiles;
    for (std::size_t a = 0; a < accesses.size(); ++a) {
      point = at;
      // Each side a row at a time along its own contiguous dimension: the
      // micro-kernel loads the source's rows and stores the destination's.
      const std::int64_t origin = offset(accesses[a], at, index);
      point[outer] = at[outer] + 1;
      const bool along_outer = std::llabs(offset(accesses[a], point, index) - origin) == 1;
      const std::size_t row = along_outer ? inner : outer, column = along_outer ? outer : inner;
      streamed.clear();
      for (int p = 0; p < tile.tile; ++p)
        for (int q = 0; q < tile.tile; ++q) {
          point[row] = at[row] + p;
          point[column] = at[column] + q;
          touch(a, point);
        }
      // A streamed line goes to memory once, as a missed line would; one
      // the block wrote only part of is flushed without the rest.
      for (const auto& [line, bytes] : streamed) {
        counts.l1_misses += 1;
        counts.l2_misses += 1;
        counts.streamed_lines += 1;
        if (bytes < kLine) counts.partial_streamed_lines += 1;
        const std::int64_t key = line / kGroupLines;
        StreamedGroup& group = groups[key];
        group.lines |= 1u << (line % kGroupLines);
        group.tile = tiles;
        for (const std::int64_t beside : {key - 1, key + 1})
          if (const auto other = groups.find(beside); other != groups.end()) other->second.neighboured = group.neighboured = true;
      }
    }
    close_groups(tiles - kRunTiles);
  }
  close_groups(tiles + 1);
  if (blocked) {
    counts.vectorizes = true;  // the micro-kernel's registers
    counts.inner_run = tile.tile;
  } else {
    counts.vectorizes = vectorizes(loop, accesses, counts.inner_run);
  }
  if (counts.accesses > 0) {
    const double per = 1.0 / static_cast<double>(counts.accesses);
    counts.l1_misses *= per;
    counts.l2_misses *= per;
    counts.tlb_misses *= per;
    counts.page_walks *= per;
    counts.partial_streamed_lines *= per;
    counts.streamed_lines *= per;
    counts.unprefetched_misses *= per;
    counts.lone_streamed_lines *= per;
    counts.paired_streamed_lines *= per;
    counts.quad_streamed_lines *= per;
  }
  return counts;
}

}  // namespace lego::search
