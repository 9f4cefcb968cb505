// Variants: one layout alternative per tensor and named layout, one value per
// parameter, kept when every constraint holds. Ids are readable and stable
// ("A=row,B=tiled,T=16") so a result can be named on the command line.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kernel/spec.hpp"
#include "target/target.hpp"

namespace lego::kernel {

struct Variant {
  std::string id;
  std::map<std::string, std::string, std::less<>> layout_choice;  // tensor or layout name -> alternative name
  Env parameters;
};

struct SearchOptions {
  std::size_t max_variants = 0;  // 0: no limit; else a random sample of this many (by seed) when the space is larger
  std::uint64_t seed = 1;
  Env overrides;  // parameter -> the one value to use (e.g. a smaller N for tests)
  // When set, variants this CPU cannot run (ruled_out_by) leave the space
  // before sampling, as a constraint's rejects do, and are counted.
  const target::Target* target = nullptr;
  // "NAME=VALUE" parts every kept variant's id has (lego bench --only),
  // applied before sampling, so a sample is drawn from what is left.
  std::vector<std::string> only = {};
};

struct VariantSpace {
  std::vector<Variant> variants;
  std::uint64_t candidates = 0;  // the cartesian product before the constraints
  std::uint64_t rejected = 0;    // candidates a constraint ruled out
  std::uint64_t ruled_out = 0;   // candidates options.target cannot run
  std::string ruled_out_reason;  // the first of them: "id: why"
  std::uint64_t left_out = 0;    // candidates options.only left out (after the constraints, before the target)
  bool sampled = false;
};

VariantSpace enumerate_variants(const KernelSpec& spec, const SearchOptions& options);

// The CPU a command makes a project's variants for: `chosen` (--target, the
// app's picker) when given, else the project's "target", else this machine.
target::Target target_for(const Project& project, const std::string& chosen);

// The parameters with the target's figures a template and a register tile
// may use: VECTOR_BYTES and VECTOR_REGISTERS (a parameter of that name wins).
Env with_target(const Env& parameters, const target::Target& target);

// Why `target` rules out a CPU variant with these parameters, or "" when it
// can run it: the template uses intrinsics of a feature the target lacks
// (target::required_features), or its register tile (KernelSpec::
// register_tile) does not fit the target's vector registers.
std::string ruled_out_by(const KernelSpec& spec, const Env& parameters, const target::Target& target);

// The variant named `id` ("best" is resolved by the caller); throws LegoError listing a few valid ids.
Variant find_variant(const KernelSpec& spec, const std::string& id, const Env& overrides);

// Why no variant of `spec` is left at its parameters' values (with
// `overrides` as their only values), naming the constraint no combination
// meets ("N % T == 0 holds for none of these values (e.g. N=100, T=32)") or
// the target's reason; empty when some variant is left. Evaluates every
// constraint over up to 2^16 combinations: for a worker thread, not a UI's.
std::string why_no_variant(const KernelSpec& spec, const target::Target& target, const Env& overrides = {});

// The values `id` gives the spec's parameters ("N=512" in
// "A=row,N=512,T=16" for parameters N and T: {N: 512, T: 16}); nullopt when
// an item is not name=value or a parameter's value is not an integer.
std::optional<Env> parameters_named_in(const KernelSpec& spec, const std::string& id);

// Whether `id` names a variant of `spec` at some parameter values: its
// parameters are read from the id itself (a results file may come from a
// sweep run with --set), the layouts must be the spec's alternatives and the
// constraints must hold. Never throws for a malformed id.
bool names_a_variant(const KernelSpec& spec, const std::string& id);

}  // namespace lego::kernel
