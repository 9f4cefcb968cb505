#include "convert/emit_cuda.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "expr/diagnostic.hpp"
#include "expr/text_file.hpp"
#include "layout/ast.hpp"

namespace lego::convert {

namespace {

using analysis::kWarp;  // lanes of a warp, as the bank analysis counts them

struct ElementNames {
  const char* storage;  // the kernel's type
  const char* project;  // the project's tensor type
};

// The project's tensors are integers where the size has one (int32,
// int64), so the check is exact: a conversion moves bits and changes none.
// 2-byte elements are half, checked to a tolerance no two halves are within.
ElementNames names_for(int bytes) {
  switch (bytes) {
    case 2:
      return {"uint16_t", "half"};
    case 4:
      return {"int32_t", "int32"};
    case 8:
      return {"int64_t", "int64"};
    default:
      throw LegoError("--emit cuda moves 2-, 4- or 8-byte elements (f16 and bf16; f32, tf32 and s32; f64); not " + std::to_string(bytes) +
                      "-byte ones");
  }
}

// `name`[rows][cols] of ints, brace-initialised without a "{{" (the
// template language's placeholder opener).
std::string table(const std::string& name, const std::vector<std::vector<int>>& rows) {
  std::ostringstream s;
  const std::size_t cols = rows.empty() ? 0 : rows.front().size();
  s << "__device__ const int " << name << "[" << rows.size() << "][" << std::max<std::size_t>(cols, 1) << "] = {\n";
  for (const auto& r : rows) {
    s << "  { ";
    for (std::size_t k = 0; k < r.size(); ++k) s << r[k] << (k + 1 < r.size() ? ", " : "");
    if (r.empty()) s << "0";
    s << " },\n";
  }
  s << "};\n";
  return s.str();
}

std::vector<std::vector<int>> elements_of(const atom::TvLayout& tv) {
  std::vector<std::vector<int>> out(static_cast<std::size_t>(tv.threads));
  for (int t = 0; t < tv.threads; ++t)
    for (int v = 0; v < tv.values; ++v) out[static_cast<std::size_t>(t)].push_back(static_cast<int>(tv.element(t, v)));
  return out;
}

// [thread][access]: the buffer position each of a side's vector accesses starts at.
std::vector<std::vector<int>> access_positions(const atom::TvLayout& tv, const SharedSide& side, const std::vector<std::int64_t>& offsets) {
  std::vector<std::vector<int>> out(static_cast<std::size_t>(tv.threads));
  for (int t = 0; t < tv.threads; ++t)
    for (int g = 0; g < side.instructions; ++g)
      out[static_cast<std::size_t>(t)].push_back(static_cast<int>(offsets[tv.element(t, g * side.vector_elements)]));
  return out;
}

// `text` with each byte that is not part of valid UTF-8 as '?': a path need
// not be UTF-8 (a Latin-1 folder name), and the files, the project's JSON
// among them, are read as UTF-8.
std::string valid_utf8(const std::string& text) {
  std::string out;
  for (std::size_t k = 0; k < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[k]);
    const std::size_t length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    bool ok = length > 0 && k + length <= text.size();
    for (std::size_t n = 1; ok && n < length; ++n) ok = (static_cast<unsigned char>(text[k + n]) & 0xc0) == 0x80;
    if (ok) {
      out.append(text, k, length);
      k += length;
    } else {
      out += '?';
      ++k;
    }
  }
  return out;
}

// comment_text for a file that is itself a template: "{{" (a
// placeholder's opener) is broken as well.
std::string comment(const std::string& text) {
  std::string out;
  for (const char c : comment_text(valid_utf8(text))) {
    if (c == '{' && !out.empty() && out.back() == '{') out += ' ';
    out += c;
  }
  return out;
}

void registers_code(const ConversionPlan& p, const std::string& k, std::ostream& tables, std::ostream& body) {
  if (same_in_every_thread(p)) {
    body << "  // Every thread holds what it needs in the same registers: renames.\n";
    for (std::size_t v = 0; v < p.source_value.front().size(); ++v)
      body << "  dst[" << v << "] = src[" << p.source_value.front()[v] << "];\n";
    return;
  }
  tables << table("lego_source_value" + k, p.source_value);
  body << "  for (int v = 0; v < W; ++v) dst[v] = src[lego_source_value" << k << "[threadIdx.x][v]];\n";
}

// Plan `p` as the device function lego_convert<k> (k: "_0", "_1", ..) and
// its tables.
void plan_code(const ConversionReport& r, const ConversionPlan& p, const atom::TvLayout& from, const atom::TvLayout& to,
               const std::string& k, std::ostream& tables, std::ostream& body) {
  body << "// " << comment(p.name) << "\n"
       << "__device__ __forceinline__ void lego_convert" << k << "(const T (&src)[V], T (&dst)[W]) {\n";
  switch (p.kind) {
    case PlanKind::Registers:
      registers_code(p, k, tables, body);
      break;
    case PlanKind::Shuffles: {
      std::size_t rounds = 0;
      for (const auto& w : p.rounds) rounds = std::max(rounds, w.size());
      std::vector<std::vector<int>> local(p.source_value.size()), lanes, sent, received;
      for (std::size_t t = 0; t < p.source_value.size(); ++t)
        for (std::size_t v = 0; v < p.source_value[t].size(); ++v)
          local[t].push_back(p.source_thread[t][v] == static_cast<int>(t) ? p.source_value[t][v] : -1);
      // [warp * rounds + round][lane]; rounds a warp does not need read from itself and keep nothing.
      for (const auto& w : p.rounds)
        for (std::size_t n = 0; n < rounds; ++n) {
          std::vector<int> lane(kWarp), send(kWarp), into(kWarp);
          for (int l = 0; l < kWarp; ++l) {
            const bool has = n < w.size();
            lane[static_cast<std::size_t>(l)] =
                has && w[n].source_lane[static_cast<std::size_t>(l)] >= 0 ? w[n].source_lane[static_cast<std::size_t>(l)] : l;
            send[static_cast<std::size_t>(l)] = has ? std::max(0, w[n].sent_value[static_cast<std::size_t>(l)]) : 0;
            into[static_cast<std::size_t>(l)] = has ? w[n].received_value[static_cast<std::size_t>(l)] : -1;
          }
          lanes.push_back(lane);
          sent.push_back(send);
          received.push_back(into);
        }
      tables << table("lego_local" + k, local) << table("lego_source_lane" + k, lanes) << table("lego_sent" + k, sent)
             << table("lego_received" + k, received);
      body << "  const int thread = threadIdx.x, lane = thread % 32, warp = thread / 32;\n"
           << "  for (int v = 0; v < W; ++v)\n"
           << "    if (lego_local" << k << "[thread][v] >= 0) dst[v] = src[lego_local" << k << "[thread][v]];\n"
           << "  // Every lane takes part in every round (a shuffle is warp-collective); a lane with\n"
           << "  // nothing to receive reads its own value and keeps nothing.\n";
      if (p.packed == 2) {
        // Two halves a shuffle: round 2g sends the low half of the sender's word, 2g + 1 its high half.
        body << "  for (int round = 0; round < " << rounds << "; round += 2) {\n"
             << "    const int row = warp * " << rounds << " + round, first = lego_sent" << k << "[row][lane];\n"
             << "    const unsigned word = unsigned(src[first]) | unsigned(src[first + 1]) << 16;\n"
             << "    const unsigned got = __shfl_sync(lego_lanes(), word, lego_source_lane" << k << "[row][lane]);\n"
             << "    if (lego_received" << k << "[row][lane] >= 0) dst[lego_received" << k << "[row][lane]] = T(got & 0xffffu);\n"
             << "    if (lego_received" << k << "[row + 1][lane] >= 0) dst[lego_received" << k << "[row + 1][lane]] = T(got >> 16);\n"
             << "  }\n";
      } else {
        body << "  for (int round = 0; round < " << rounds << "; ++round) {\n"
             << "    const int row = warp * " << rounds << " + round;\n"
             << "    const T got = lego_shfl(src[lego_sent" << k << "[row][lane]], lego_source_lane" << k << "[row][lane]);\n"
             << "    if (lego_received" << k << "[row][lane] >= 0) dst[lego_received" << k << "[row][lane]] = got;\n"
             << "  }\n";
      }
      break;
    }
    case PlanKind::Shared: {
      std::int64_t footprint = 0;
      for (const auto o : p.offsets) footprint = std::max(footprint, o + 1);
      tables << "// The buffer of " << comment(p.name) << ": " << comment(print(p.buffer.layout)) << "\n"
             << table("lego_store_at" + k, access_positions(from, p.store, p.offsets))
             << table("lego_load_at" + k, access_positions(to, p.load, p.offsets));
      const int ks = p.store.vector_elements, kl = p.load.vector_elements;
      body << "  // One access moves a whole vector: the planner scored these widths.\n"
           << "  struct alignas(" << ks * r.element_bytes << ") StoreVector { T e[" << ks << "]; };\n"
           << "  struct alignas(" << kl * r.element_bytes << ") LoadVector { T e[" << kl << "]; };\n"
           << "  __shared__ __align__(16) T lego_buffer[" << footprint << "];\n"
           << "  const int thread = threadIdx.x;\n"
           << "  for (int g = 0; g < " << p.store.instructions << "; ++g) {\n"
           << "    StoreVector x;\n"
           << "    for (int e = 0; e < " << ks << "; ++e) x.e[e] = src[g * " << ks << " + e];\n"
           << "    *reinterpret_cast<StoreVector*>(&lego_buffer[lego_store_at" << k << "[thread][g]]) = x;\n"
           << "  }\n"
           << "  __syncthreads();\n"
           << "  for (int g = 0; g < " << p.load.instructions << "; ++g) {\n"
           << "    const LoadVector x = *reinterpret_cast<const LoadVector*>(&lego_buffer[lego_load_at" << k << "[thread][g]]);\n"
           << "    for (int e = 0; e < " << kl << "; ++e) dst[g * " << kl << " + e] = x.e[e];\n"
           << "  }\n"
           << "  __syncthreads();  // the buffer may be reused after this\n";
      break;
    }
  }
  body << "}\n\n";
}

// The register constraint of an element in inline PTX.
const char* ptx_register(int bytes) { return bytes == 2 ? "h" : bytes == 4 ? "r" : "l"; }

}  // namespace

EmittedConversion emit_cuda(const ConversionReport& r, const ConversionPlan& p, const atom::TvLayout& from, const atom::TvLayout& to,
                            const std::string& command) {
  if (!p.possible) throw LegoError("the " + p.name + " plan is not possible: " + p.why_not);
  const ElementNames type = names_for(r.element_bytes);
  // PLAN=0 is the plan asked for; every other possible plan follows, so
  // that a GPU times them side by side (lego export-bench).
  std::vector<const ConversionPlan*> plans = {&p};
  for (const auto& other : r.plans)
    if (other.possible && &other != &p) plans.push_back(&other);
  // Each plan's code, and its value of PLAN with its name: in convert.cu's
  // header and in the project's description.
  std::ostringstream tables, body, legend;
  std::string names;
  std::vector<int> plan_values;
  bool shuffles = false;
  for (std::size_t n = 0; n < plans.size(); ++n) {
    plan_code(r, *plans[n], from, to, "_" + std::to_string(n), tables, body);
    legend << "//   PLAN=" << n << ": " << comment(plans[n]->name) << (n == 0 ? " (the plan asked for)" : "") << "\n";
    names += (n ? "; " : "") + ("PLAN=" + std::to_string(n) + ": " + plans[n]->name);
    plan_values.push_back(static_cast<int>(n));
    shuffles = shuffles || plans[n]->kind == PlanKind::Shuffles;
  }

  const std::int64_t tile = static_cast<std::int64_t>(r.rows) * r.cols;
  std::ostringstream cuda;
  cuda << "// Generated by LEGO Studio: " << comment(command) << "\n"
       << "// A " << r.rows << " x " << r.cols << " tile over " << r.threads << " threads, " << from.values << " values each.\n"
       << "// Plan: " << p.name << ". " << comment(p.reason) << "\n"
       << "// The project's variants, one a plan:\n"
       << legend.str() << "// Each thread's positions are read from tables indexed by the thread: exact for any\n"
       << "// layout, and what this test needs; a production kernel computes them instead.\n"
       << "typedef " << type.storage << " T;\n"
       << "constexpr int V = " << from.values << ", W = " << to.values << ";\n\n";
  if (shuffles) {
    // The lanes of this thread's warp that exist: a partial last warp's shuffles name only those.
    cuda << "__device__ __forceinline__ unsigned lego_lanes() {\n"
         << "  const int lanes = " << r.threads << " - int(threadIdx.x) / 32 * 32;\n"
         << "  return lanes >= 32 ? 0xffffffffu : (1u << lanes) - 1u;\n"
         << "}\n";
    if (r.element_bytes == 2)
      cuda << "__device__ __forceinline__ T lego_shfl(T x, int from) { return T(__shfl_sync(lego_lanes(), unsigned(x), from)); }\n";
    else
      cuda << "__device__ __forceinline__ T lego_shfl(T x, int from) { return __shfl_sync(lego_lanes(), x, from); }\n";
  }
  cuda << tables.str() << "\n"
       << body.str() << "// The value as the compiler must assume it changed: each repeat converts again\n"
       << "// instead of reusing the first conversion (an empty asm; no instruction).\n"
       << "__device__ __forceinline__ void lego_opaque(T& x) {\n"
       << "#ifdef LEGO_CUDA_ON_CPU\n"
       << "  asm volatile(\"\" : \"+m\"(x));\n"
       << "#else\n"
       << "  asm volatile(\"\" : \"+" << ptx_register(r.element_bytes) << "\"(x));\n"
       << "#endif\n"
       << "}\n\n"
       << "// The test: element (r, c) of tile b of IN, row-major, held as FROM says; each\n"
       << "// thread's values after the conversion stored where TO says they belong. OUT == IN\n"
       << "// when it is right. Block b converts tile b, REPEAT times (a GPU times the plans\n"
       << "// against each other with many tiles and repeats: --set TILES=.. REPEAT=..).\n"
       << table("lego_from_element", elements_of(from)) << table("lego_to_element", elements_of(to))
       << "extern \"C\" __global__ void lego_kernel(const T* __restrict__ IN, T* __restrict__ OUT) {\n"
       << "  const int thread = threadIdx.x;\n"
       << "  const long long base = (long long)blockIdx.x * " << tile << ";\n"
       << "  T src[V], dst[W];\n"
       << "  for (int v = 0; v < V; ++v) src[v] = IN[base + lego_from_element[thread][v]];\n"
       << "  for (int repeat = 0; repeat < {{ REPEAT }}; ++repeat) {\n"
       << "    for (int v = 0; v < V; ++v) lego_opaque(src[v]);\n"
       << "    switch ({{ PLAN }}) {\n";
  for (std::size_t n = 0; n < plans.size(); ++n)
    cuda << "      case " << n << ":\n"
         << "        lego_convert_" << n << "(src, dst);\n"
         << "        break;\n";
  cuda << "    }\n"
       << "  }\n"
       << "  for (int v = 0; v < W; ++v) OUT[base + lego_to_element[thread][v]] = dst[v];\n"
       << "}\n";

  std::ostringstream ref;
  ref << "// The conversion moves data and changes none: OUT is IN.\n"
      << "extern \"C\" void lego_reference(const " << type.storage << "* IN, " << type.storage << "* OUT) {\n"
      << "  for (int64_t i = 0; i < TILES * " << tile << "; ++i) OUT[i] = IN[i];\n"
      << "}\n";

  // Built as JSON values, so any text in the command line is escaped.
  // The tile is fixed (the tables are its): only the number of tiles, the
  // repeats and the plan vary.
  const std::string rows = std::to_string(r.rows), cols = std::to_string(r.cols);
  const std::string layout = "OrderBy(Row(TILES, " + rows + ", " + cols + ")).GroupBy([(TILES, " + rows + ", " + cols + ")])";
  const auto tensor = [&](const char* name, const char* role) {
    return nlohmann::ordered_json{
        {"name", name}, {"type", type.project}, {"role", role}, {"extents", {"TILES", rows, cols}}, {"layouts", {{"row", layout}}}};
  };
  const nlohmann::ordered_json kernel = {
      {"name", "convert"},
      {"backend", "cuda"},
      {"description", "Tiles loaded as FROM, converted REPEAT times, stored as TO. " + names},
      {"template", "convert.cu"},
      {"reference", "convert.ref.cpp"},
      {"tensors", {tensor("IN", "in"), tensor("OUT", "out")}},
      {"parameters", {{"TILES", 1}, {"REPEAT", 1}, {"PLAN", plan_values}}},
      {"constraints", {"TILES >= 1", "REPEAT >= 1", "REPEAT <= 1000000", "PLAN >= 0", "PLAN <= " + std::to_string(plans.size() - 1)}},
      {"verify_at", {{"TILES", 2}, {"REPEAT", 2}}},
      {"launch", {{"grid", {"TILES"}}, {"block", {r.threads}}}},
      {"flops", "0"},
      {"bytes", "2 * " + std::to_string(r.element_bytes) + " * TILES * " + std::to_string(tile)},
      // Integers are checked exactly; halves to less than the gap between any two.
      {"tolerance", r.element_bytes == 2 ? 1e-9 : 0.0}};
  const nlohmann::ordered_json project = {
      {"lego_studio_project", 1}, {"name", "conversion"}, {"description", comment(command)}, {"kernels", {kernel}}};
  // The command line is in the description, and a path need not be UTF-8
  // (a Latin-1 folder name): such bytes become U+FFFD there.
  return {cuda.str(), ref.str(), project.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n"};
}

}  // namespace lego::convert
