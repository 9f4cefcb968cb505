// The CPU emulator's side of the warp-level atoms (kernel/cuda_atoms.hpp):
// C++ text, pasted into the emulated kernel's source after the scheduler,
// that defines the atoms' device functions on the CPU. ldmatrix, stmatrix
// and mma.sync make the warp's lanes meet, and the scheduler computes the
// result from the atom's thread-value tables, emitted here from the atom
// library (so a wrong table fails verification). cp.async copies wait in a
// per-thread queue until cp.async.wait_group (or the thread's end)
// completes their group, so a kernel that reads shared memory before it
// waits reads what was there before, as it may on the device.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "atom/atoms.hpp"

namespace lego::run {

using AtomSource = std::function<atom::Atom(std::string_view name)>;

// `atom_of` gives each atom's tables (the library's by default; a test may
// plant a wrong one). Needs the scheduler shim's LegoWarpSlot, lego_slots,
// lego_current, lego_wait, lego_emulation_fault and lego_atom_kind.
std::string emulated_atoms_source(const AtomSource& atom_of = atom::resolve_atom);

}  // namespace lego::run
