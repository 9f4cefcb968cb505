#include "run/triton_bundle.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "expr/diagnostic.hpp"
#include "run/bench_harness.hpp"

namespace lego::run {
namespace {

const char kHarness[] =
#include "triton_bench_text.inc"
    ;

const char kHostTensor[] =
#include "triton_host_tensor_text.inc"
    ;

// The host library bench.py loads with ctypes: the CUDA bundle's inputs,
// packing and checks (harness_common.hpp), behind a C interface. Python
// holds the buffers; this fills, packs, unpacks and judges them, so that a
// Triton variant is checked by the same code as a CUDA one.
const char* const kHostLibrary = R"(// LEGO Studio Triton bench bundle: the host side of bench.py (ctypes).
#include "harness_common.hpp"

namespace {

struct Prepared {
  std::string key;               // kernel, tensors' types and extents, seed
  std::vector<Bytes> reference;  // the reference's logical outputs (empty for inputs)
};
Prepared prepared;

const Variant& at(int v) { return registry().at(size_t(v)); }
const Tensor& tensor(int v, int t) { return at(v).tensors.at(size_t(t)); }

std::string key_of(const Variant& var, unsigned long long seed) {
  std::string key = std::string(var.kernel) + "|" + std::to_string(seed);
  for (const Tensor& t : var.tensors) {
    key += std::string("|") + t.name + ":" + std::to_string(int(t.kind));
    for (int64_t e : t.extents) key += "," + std::to_string(e);
  }
  return key;
}

std::vector<Bytes> logical_inputs(const Variant& var, unsigned long long seed) {
  std::vector<Bytes> logical;
  for (size_t k = 0; k < var.tensors.size(); ++k) {
    const Tensor& t = var.tensors[k];
    logical.emplace_back(size_t(elements(t)) * size_t(t.element_bytes));
    fill(logical.back(), t, seed * 1000003ull + k);
  }
  return logical;
}

}  // namespace

extern "C" {

int lego_variant_count() { return int(registry().size()); }
const char* lego_variant_kernel(int v) { return at(v).kernel; }
const char* lego_variant_id(int v) { return at(v).id; }
double lego_variant_bytes(int v) { return at(v).bytes; }
double lego_variant_flops(int v) { return at(v).flops; }
int lego_tensor_count(int v) { return int(at(v).tensors.size()); }
const char* lego_tensor_name(int v, int t) { return tensor(v, t).name; }
int lego_tensor_kind(int v, int t) { return int(tensor(v, t).kind); }  // harness.hpp's Kind: F32, F64, I32, I64, F16
int lego_tensor_role(int v, int t) { return (tensor(v, t).input ? 1 : 0) | (tensor(v, t).output ? 2 : 0); }
int lego_tensor_rank(int v, int t) { return int(tensor(v, t).extents.size()); }
long long lego_tensor_extent(int v, int t, int d) { return tensor(v, t).extents.at(size_t(d)); }
long long lego_tensor_physical_elements(int v, int t) { return (long long)std::max(elements(tensor(v, t)), tensor(v, t).physical); }

// The layout's strides, where its offset is affine in the index (a torch
// view over the buffer then reads the same elements): checked at every
// corner and at 64 scattered indices. 0 where it is not.
int lego_tensor_strides(int v, int t, long long* strides) {
  const Tensor& x = tensor(v, t);
  const size_t rank = x.extents.size();
  std::vector<int64_t> index(rank, 0);
  const int64_t origin = x.offset(index.data());
  for (size_t d = 0; d < rank; ++d) {
    index.assign(rank, 0);
    index[d] = x.extents[d] > 1 ? 1 : 0;
    strides[d] = x.extents[d] > 1 ? (long long)(x.offset(index.data()) - origin) : 1;
  }
  std::mt19937_64 rng(7);
  for (int probe = 0; probe < 64 + (1 << std::min<size_t>(rank, 10)); ++probe) {
    int64_t affine = origin;
    for (size_t d = 0; d < rank; ++d) {
      const int64_t e = x.extents[d];
      index[d] = probe < (1 << std::min<size_t>(rank, 10)) ? ((probe >> d) & 1) * (e - 1)
                                                            : std::uniform_int_distribution<int64_t>(0, e - 1)(rng);
      affine += index[d] * strides[d];
    }
    if (x.offset(index.data()) != affine) return 0;
  }
  return origin == 0;
}

// Fills the variant's inputs from `seed`, packs them into `buffers` (one per
// tensor, physical elements each; outputs are filled with 0xff bytes so that
// an unwritten element shows) and, with `reference`, runs the reference once
// per kernel, sizes and seed, for lego_compare.
void lego_prepare(int v, unsigned long long seed, void** buffers, int reference) {
  const Variant& var = at(v);
  std::vector<Bytes> logical = logical_inputs(var, seed);
  for (size_t k = 0; k < var.tensors.size(); ++k) {
    const Tensor& t = var.tensors[k];
    if (t.output && !t.input) std::memset(buffers[k], 0xff, physical_bytes(t));
    permute(t, logical[k].data(), static_cast<char*>(buffers[k]), true);
  }
  if (!reference || prepared.key == key_of(var, seed)) return;
  std::vector<void*> args;
  for (auto& l : logical) args.push_back(l.data());
  var.reference(args.data());
  prepared.key = key_of(var, seed);
  prepared.reference.assign(logical.size(), Bytes());
  for (size_t k = 0; k < var.tensors.size(); ++k)
    if (var.tensors[k].output) prepared.reference[k] = std::move(logical[k]);
}

// The variant's outputs in `buffers` against the reference's of the last
// lego_prepare with a reference at the same sizes and seed: the mismatched
// elements (-1: no reference prepared), the largest error, and the first
// mismatch as "Y[3][17]" in `first`.
long long lego_compare(int v, unsigned long long seed, void** buffers, double* max_error, char* first, int first_size) {
  const Variant& var = at(v);
  if (prepared.key != key_of(var, seed)) return -1;
  long long mismatches = 0;
  *max_error = 0;
  if (first_size > 0) first[0] = '\0';
  for (size_t k = 0; k < var.tensors.size(); ++k) {
    const Tensor& t = var.tensors[k];
    if (!t.output) continue;
    Bytes unpacked(size_t(elements(t)) * size_t(t.element_bytes));
    permute(t, static_cast<const char*>(buffers[k]), unpacked.data(), false);
    const lego_check::Checked c = check(t, unpacked.data(), prepared.reference[k].data(), var.tolerance);
    if (c.mismatches > 0 && mismatches == 0 && first_size > 0) {
      std::string where = t.name;
      int64_t rest = c.first_mismatch;
      std::vector<int64_t> index(t.extents.size());
      for (size_t d = t.extents.size(); d-- > 0;) index[d] = rest % t.extents[d], rest /= t.extents[d];
      for (int64_t i : index) where += "[" + std::to_string(i) + "]";
      std::snprintf(first, size_t(first_size), "%s", where.c_str());
    }
    mismatches += c.mismatches;
    *max_error = std::max(*max_error, c.max_error);
  }
  return mismatches;
}

// A tensor's buffer in its layout -> its elements in row-major logical order
// (`pack` 0), or back (`pack` 1): for baselines over layouts a view cannot take.
void lego_permute(int v, int t, const void* from, void* to, int pack) {
  permute(tensor(v, t), static_cast<const char*>(from), static_cast<char*>(to), pack != 0);
}

}  // extern "C"
)";

// The host side of one instance: its offsets, reference and registration,
// renamed apart (every variant file links into one library).
std::string host_variant_file(const kernel::Instance& inst, std::size_t n) {
  const std::string suffix = "_" + std::to_string(n);
  // The reference's includes go first: a standard header inside a namespace declares its names there.
  std::string includes = "#include <cstdint>\n", reference;
  std::istringstream lines(inst.reference);
  for (std::string line; std::getline(lines, line);) (line.starts_with("#include ") ? includes : reference) += line + "\n";
  std::string f = variant_banner(inst) + includes + "#include \"harness.hpp\"\n";
  f += "#define lego_reference lego_reference" + suffix + "\nnamespace variant" + suffix + " {\n";
  f += "namespace reference {\n" + reference + "}  // namespace reference\n";
  const TensorCode code = tensor_code(inst);
  f += code.offsets;
  f += "static void reference_entry(void** a) { reference::lego_reference(" + code.call + "); }\n";
  f += registration(inst, code, "nullptr");
  return f + "}  // namespace variant" + suffix + "\n";
}

std::string parameters_text(const kernel::Instance& inst) {
  std::string text;
  for (const auto& [name, value] : inst.parameters) text += (text.empty() ? "" : ", ") + name + "=" + std::to_string(value);
  return text;
}

}  // namespace

std::map<std::string, std::string> triton_bundle(const std::vector<TritonBundleVariant>& variants) {
  std::map<std::string, std::string> files;
  files["harness.hpp"] = kHarnessHeader;
  files["harness_common.hpp"] = harness_common();
  files["host.cpp"] = kHostLibrary;
  files["bench.py"] = kHarness;
  files["host_tensor.py"] = kHostTensor;
  nlohmann::ordered_json manifest = nlohmann::ordered_json::array();
  std::map<std::string, std::string> baseline_files;  // kernel -> its baselines' module
  std::string sources, table;
  std::size_t host_index = 0;
  auto add_instance = [&](const kernel::Instance& inst, const std::string& module) {
    files[module] = inst.source;
    const std::string host = "host_" + std::to_string(host_index) + ".cpp";
    files[host] = host_variant_file(inst, host_index);
    sources += " " + host;
    return host_index++;
  };
  for (std::size_t n = 0; n < variants.size(); ++n) {
    const TritonBundleVariant& v = variants[n];
    if (v.timed.backend != kernel::Backend::Triton) throw LegoError("kernel " + v.timed.kernel + " is not a Triton kernel");
    nlohmann::ordered_json row{{"kernel", v.timed.kernel}, {"variant", v.timed.variant}};
    row["timed"] = {{"module", "variant_" + std::to_string(n) + ".py"},
                    {"host", add_instance(v.timed, "variant_" + std::to_string(n) + ".py")},
                    {"parameters", parameters_text(v.timed)}};
    if (v.verify)
      row["verify"] = {{"module", "verify_" + std::to_string(n) + ".py"},
                       {"host", add_instance(*v.verify, "verify_" + std::to_string(n) + ".py")},
                       {"parameters", parameters_text(*v.verify)}};
    nlohmann::ordered_json baselines = nlohmann::ordered_json::array();
    for (const auto& b : v.spec->baselines) {
      if (b.library != "torch") continue;
      const std::string module = "baseline_" + kernel::comment_text(v.spec->name) + "_" + b.name + ".py";
      files[module] =
          "# baseline " + b.name + " of kernel " + v.spec->name + " (" + b.source_name + ", exported by LEGO Studio)\n" + b.source_text;
      baselines.push_back({{"name", b.name}, {"module", module}});
    }
    row["baselines"] = baselines;
    manifest.push_back(row);
    table += fmt::format("| variant_{}.py | {} | `{}` | {} |\n", n, v.timed.kernel, v.timed.variant,
                         v.verify ? "verify_" + std::to_string(n) + ".py at " + parameters_text(*v.verify) : "none (checked at its size)");
  }
  files["variants.json"] = manifest.dump(2) + "\n";
  files["Makefile"] =
      "# The host library needs a C++17 compiler; bench.py needs Python 3 with numpy and Triton 3.6 (and PyTorch on a GPU).\n"
      "CXX ?= c++\nPYTHON ?= python3\nCXXFLAGS ?= -O2 -std=c++17 -fPIC\n\n"
      "libhost.so: host.cpp" +
      sources + " harness.hpp harness_common.hpp\n\t$(CXX) $(CXXFLAGS) -shared -o $@ host.cpp" + sources +
      "\n\n"
      "run: libhost.so\n\t$(PYTHON) bench.py --out results.json\n\n"
      "# On a machine without a GPU: every variant at its verification sizes under Triton's interpreter, nothing timed.\n"
      "check: libhost.so\n\t$(PYTHON) bench.py --interpret\n\n"
      "clean:\n\trm -f libhost.so results.json\n\n.PHONY: run check clean\n";
  files["README.md"] =
      "# LEGO Studio Triton bench bundle\n\n" + std::to_string(variants.size()) +
      " Triton variants, each at its own sizes (`variant_N.py`) and at its verification sizes (`verify_N.py`), a host library "
      "(`host.cpp`, the inputs, layouts and checks of LEGO Studio's CUDA bundle) and `bench.py`. Nothing here has been run: "
      "`lego export-bench` only wrote it.\n\n"
      "On a GPU machine with PyTorch and Triton 3.6:\n\n    make run\n\n"
      "For each variant, bench.py:\n\n"
      "- verifies it on the GPU at its verification sizes against the project's reference (run on the host, on inputs drawn from "
      "a seed it prints; `--seed S` repeats them);\n"
      "- runs it at its own sizes and compares its outputs with each PyTorch baseline's (the largest relative difference is "
      "reported, not judged: the reference at full size could take minutes);\n"
      "- times it with CUDA events: 3 warm-up runs, then the median of 50 (`--runs`), the tensors rotated through enough copies to "
      "exceed twice the L2 cache;\n"
      "- times its baselines the same way in the same process, on views of the same buffers (the same layouts, where a view "
      "can read the layout; else on row-major copies, which the results say), and a device-to-device copy.\n\n"
      "`results.json` is Google Benchmark's JSON with LEGO Studio's fields (verified, median_ms, gbs, percent_of_copy, "
      "baseline, baseline_ms, percent_of_baseline); bring it back with\n\n    lego import-results <project>.lego.json results.json\n\n"
      "Without a GPU, `make check` runs every verification-size module under Triton's interpreter (TRITON_INTERPRET=1) on "
      "numpy arrays, checks it the same way and times nothing.\n\n"
      "| module | kernel | variant | verified at |\n|---|---|---|---|\n" +
      table;
  return files;
}

}  // namespace lego::run
