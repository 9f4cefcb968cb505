#include "kernel/instantiate.hpp"

#include <algorithm>
#include <cctype>

#include "kernel/index_code.hpp"
#include "kernel/loop_code.hpp"
#include "kernel/placeholder.hpp"
#include "layout/untiled_view.hpp"

namespace lego::kernel {
namespace {

// A plain build leaves accesses as their indices; a tracing build defines LEGO_ACCESS first.
std::string access_macro() { return "#ifndef LEGO_ACCESS\n#define LEGO_ACCESS(site, array, index) (index)\n#endif\n"; }

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};

// Binds the variant, parses the template's placeholders, expands each in
// order (index code, loop nests, constants) and assembles the source.
class Instantiator {
 public:
  Instantiator(const KernelSpec& spec, const Variant& variant, sym::Lang lang, const InstantiateOptions& options)
      : spec_(spec), variant_(variant), lang_(spec.backend == Backend::Cuda ? sym::Lang::Cuda : lang), options_(options) {}

  Instance run() {
    if (const std::string why = ruled_out_by(spec_, variant_.parameters, options_.target); !why.empty()) throw RuledOut(why);
    Instance inst;
    inst.target = options_.target.name;
    inst.kernel = spec_.name;
    inst.variant = variant_.id;
    inst.parameters = variant_.parameters;
    inst.reference = reference_source(spec_, variant_.parameters);
    inst.tolerance = spec_.tolerance;
    binding_ = bind_variant(spec_, variant_);
    inst.tensors = binding_.tensors;
    const auto formula = [&](const Expr& e, const std::string& what) { return formula_value(spec_, e, variant_.parameters, what); };
    inst.flops = formula(spec_.flops, "flops");
    inst.bytes = formula(spec_.bytes, "bytes");
    inst.backend = spec_.backend;
    for (std::size_t d = 0; d < 3; ++d) {
      if (d < spec_.grid.size()) inst.grid[d] = formula(spec_.grid[d], "launch.grid");
      if (d < spec_.block.size()) inst.block[d] = formula(spec_.block[d], "launch.block");
      if (inst.grid[d] < 1 || inst.block[d] < 1) throw LegoError("kernel " + spec_.name + ": a launch extent is less than 1");
    }
    placeholders_ = parse_placeholders(spec_.template_text, spec_.template_name);
    for (std::size_t k = 0; k < placeholders_.size(); ++k) {
      const Placeholder& p = placeholders_[k];
      inst.expansions.push_back(Expansion{p.line, p.column, p.text, "", 0});
      try {
        expand(k, inst);
      } catch (const TemplateError&) {
        throw;
      } catch (const LegoError& e) {
        fail(p.at, p.text.size(), e.what());
      }
    }
    if (!nests_.empty()) fail(placeholders_[nests_.back().placeholder].open, 2, "this loop nest has no {{ end }}");
    inst.source = header() + body(inst);
    return inst;
  }

 private:
  [[noreturn]] void fail(std::size_t offset, std::size_t length, const std::string& message) const {
    template_error(spec_.template_text, spec_.template_name, offset, std::max<std::size_t>(length, 1), message);
  }

  IndexContext context() const { return {spec_, binding_, variant_.parameters, lang_, nests_}; }

  void expand(std::size_t k, Instance& inst) {
    const Placeholder& p = placeholders_[k];
    Expansion& x = inst.expansions[k];
    if (!nests_.empty()) nests_.back().statements.push_back(k);
    const auto set = [&x](const IndexCode& c) {
      x.code = c.code;
      x.ops = c.ops;
    };
    std::visit(Overloaded{
                   [&](const placeholder::Access& a) {
                     set(access_index(context(), a, k + 1));
                     record_access(x, a.name, a.shared, inst);
                   },
                   [&](const placeholder::Inverse& v) { set(inverse_declarations(context(), v.layout, v.indices, v.names, k + 1)); },
                   [&](const placeholder::For& f) { open(f, k, inst); },
                   [&](const placeholder::End&) { close(k, inst); },
                   [&](const placeholder::Move& m) { move(m, k, inst); },
                   [&](const placeholder::Size& s) { x.code = std::to_string(storage_size(context(), s.name)); },
                   [&](const placeholder::Stride& s) { x.code = std::to_string(constant_stride(context(), s, inst.notes)); },
                   [&](const placeholder::Run& r) { x.code = std::to_string(proved_run(context(), r, inst.notes)); },
                   [&](const placeholder::Constant& c) { x.code = std::to_string(value(c.expression, p.at, p.text.size())); },
               },
               p.form);
  }

  // A constant expression over the parameters and the target's constants;
  // an error points into the expression (it starts at `at`).
  std::int64_t value(const Expr& e, std::size_t at, std::size_t length) const {
    try {
      return evaluate(e, with_target(variant_.parameters, options_.target));
    } catch (const LegoError& err) {
      const Span s = err.diagnostic().span;
      if (s.known()) fail(at + s.begin, s.end - s.begin, err.diagnostic().message);
      fail(at, length, err.what());
    }
  }

  void open(const placeholder::For& f, std::size_t k, Instance& inst) {
    const NamedView* v = binding_.view(f.layout);
    if (!v) throw LegoError("\"" + f.layout + "\" is not a layout of kernel " + spec_.name);
    const bool flat = f.flat && value(*f.flat, f.flat_at, 1) != 0;
    try {
      const LayoutAst view = f.names.size() == logical_rank(v->ast) ? v->ast : untiled_view(v->ast, f.names.size());
      OpenNest n = open_nest(f, k, view, variant_.parameters, flat);
      if (!n.flat_fallback.empty()) {
        const IndexCode inv = inverse_declarations(context(), f.layout, {"lego_x"}, f.names, k + 1);
        n.flat_code = "for (int64_t lego_x = 0; lego_x < " + std::to_string(n.flat_size) + "; ++lego_x) { " + inv.code;
        inst.expansions[k].ops = inv.ops;
      }
      inst.notes.push_back(n.note);
      nests_.push_back(std::move(n));
    } catch (const LegoError& e) {
      throw LegoError(v->where + ": " + e.what());
    }
  }

  void close(std::size_t k, Instance& inst) {
    if (nests_.empty()) fail(placeholders_[k].at, 3, "this {{ end }} closes no loop nest");
    OpenNest n = std::move(nests_.back());
    nests_.pop_back();
    n.statements.pop_back();  // the end itself
    if (!nests_.empty())      // the inner nest's placeholders are the outer one's too
      for (std::size_t s : n.statements) nests_.back().statements.push_back(s);
    const bool lone_move = n.statements.size() == 1 && n.moves.size() == 1 && !options_.mark_accesses &&
                           body_is_only(n.placeholder, n.moves[0].placeholder, k);
    NestCode code = close_nest(n, lone_move, options_.target);
    inst.expansions[n.placeholder].code = code.open;
    inst.expansions[k].code = code.close;
    if (code.move_code) inst.expansions[n.moves[0].placeholder].code = *code.move_code;
    uses_microkernels_ = uses_microkernels_ || code.microkernel;
    inst.notes.insert(inst.notes.end(), code.notes.begin(), code.notes.end());
  }

  // {{ [stream] B[j, i] = A[i, j] }}: each side is an access site of its own,
  // named by its own text; inside a nest the move may become a micro-kernel.
  void move(const placeholder::Move& m, std::size_t k, Instance& inst) {
    for (const placeholder::Access* side : {&m.dst, &m.src})
      if (!binding_.tensor(side->name)) throw LegoError("\"" + side->name + "\" is not a tensor of kernel " + spec_.name);
    Expansion& x = inst.expansions[k];
    NestMove n{k, m.dst.name, m.src.name, "", "", {}, {}, m.stream};
    const auto side = [&](const placeholder::Access& a, const std::string& text, std::string& code, AccessShape& shape) {
      Expansion part = x;
      part.placeholder = text;
      const IndexCode c = access_index(context(), a, k + 1);
      part.code = c.code;
      record_access(part, a.name, false, inst);
      code = a.name + "[" + part.code + "]";
      shape = AccessShape{c.derived.strides, c.derived.constant, static_cast<int>(element_bytes(binding_.tensor(a.name)->type))};
      return c.ops;
    };
    x.ops = side(m.dst, m.dst_text, n.dst_code, n.dst_shape);
    x.ops += side(m.src, m.src_text, n.src_code, n.src_shape);
    x.code = n.dst_code + " = " + n.src_code + ";";
    if (!nests_.empty()) nests_.back().moves.push_back(std::move(n));
  }

  // True when the template between placeholders `open` and `close` is placeholder `only` and white space.
  bool body_is_only(std::size_t open, std::size_t only, std::size_t close) const {
    const std::string& t = spec_.template_text;
    const auto blank = [&](std::size_t b, std::size_t e) {
      return std::all_of(t.begin() + static_cast<std::ptrdiff_t>(b), t.begin() + static_cast<std::ptrdiff_t>(e),
                         [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
    };
    return blank(placeholders_[open].close, placeholders_[only].open) && blank(placeholders_[only].close, placeholders_[close].open);
  }

  // Records an access to a tensor or a shared array (an iteration or thread
  // layout is index arithmetic, not memory) and, for tracing builds, wraps it in LEGO_ACCESS.
  void record_access(Expansion& x, const std::string& name, bool shared, Instance& inst) const {
    const bool tensor = binding_.tensor(name) != nullptr;
    if (shared && tensor) throw LegoError("\"" + name + "\" is a tensor; smem names a layout that stores a __shared__ array");
    if (!shared && !tensor) return;
    AccessSite a;
    a.site = static_cast<int>(inst.accesses.size());
    a.name = name;
    a.kind = shared                           ? analysis::MemoryKind::Shared
             : spec_.backend == Backend::Cuda ? analysis::MemoryKind::Global
                                              : analysis::MemoryKind::Host;
    a.line = x.line;
    a.column = x.column;
    a.placeholder = x.placeholder;
    if (options_.mark_accesses) x.code = "LEGO_ACCESS(" + std::to_string(a.site) + ", " + name + ", " + x.code + ")";
    inst.accesses.push_back(std::move(a));
  }

  std::string header() const {
    return "// generated by LEGO Studio: kernel " + comment_text(spec_.name) + ", variant " + comment_text(variant_.id) + "\n";
  }

  // The prelude and the template with each placeholder replaced, assembled
  // last: closing a loop nest rewrites its opening and its move.
  std::string body(const Instance& inst) const {
    std::string out = lang_ == sym::Lang::Cuda ? cuda_prelude() : "#include <cstdint>\n" + sym::c_prelude(lang_) + access_macro();
    if (uses_microkernels_) out += microkernel_prelude(options_.target);
    out += "#line 1 \"" + spec_.template_name + "\"\n";
    const std::string& t = spec_.template_text;
    std::size_t pos = 0;
    for (std::size_t k = 0; k < placeholders_.size(); ++k) {
      out += t.substr(pos, placeholders_[k].open - pos) + inst.expansions[k].code;
      pos = placeholders_[k].close;
    }
    return out + t.substr(pos);
  }

  const KernelSpec& spec_;
  const Variant& variant_;
  sym::Lang lang_;
  InstantiateOptions options_;
  Binding binding_;
  std::vector<Placeholder> placeholders_;
  std::vector<OpenNest> nests_;
  bool uses_microkernels_ = false;
};

}  // namespace

std::string cuda_prelude() {
  // NVRTC has no system headers; nvcc and the tracing C++ build do.
  return "#ifdef __CUDACC_RTC__\ntypedef long long int64_t;\ntypedef int int32_t;\ntypedef unsigned long long uint64_t;\n"
         "typedef unsigned uint32_t;\n#else\n#include <cstdint>\n#include <math.h>\n#endif\n" +
         sym::c_prelude(sym::Lang::Cuda).substr(std::string("#include <math.h>\n#include <stdint.h>\n").size()) + access_macro();
}

Instance instantiate(const KernelSpec& spec, const Variant& variant, sym::Lang lang, const InstantiateOptions& options) {
  return Instantiator(spec, variant, lang, options).run();
}

std::string comment_text(const std::string& text) {
  std::string out = text;
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return out;
}

}  // namespace lego::kernel
