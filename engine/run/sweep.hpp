// A sweep over a kernel's variants, shared by `lego bench` / `lego export`
// and the desktop app: each variant instantiated, deduplicated by its code,
// run in a lego-worker (compile, verify, time), and placed against the
// machine's measured roofs; and a variant written out as standalone source.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "kernel/instantiate.hpp"
#include "run/executor.hpp"
#include "run/worker_client.hpp"

namespace lego::run {

// A reader never sees half a file: written beside it, then renamed over it.
// Throws LegoError when it cannot be written.
void write_atomically(const std::filesystem::path& file, const std::string& text);

// STREAM copy/triad and peak FMA, measured once per machine and thread count
// by a lego-worker and cached in ~/.cache/lego-studio/ceilings-<host>.json.
// `note` hears about a measurement before it starts (it takes seconds).
nlohmann::json machine_ceilings(bool refresh, const std::function<void(const std::string&)>& note = {});

double median_ms(const nlohmann::json& result);
// Percent of the roof that bounds the kernel: copy bandwidth without FLOPs,
// else min(peak, intensity x triad bandwidth).
double percent_of_roof(const kernel::Instance& inst, double ms, const nlohmann::json& roof);
// The code that differs between variants (source and layouts): equal keys
// run once.
std::string code_key(const kernel::Instance& inst);

struct VariantResult {
  std::string id, status, message;
  double ms = -1, gbs = 0, gflops = 0, roof = 0;
  bool verified = false;
  nlohmann::json raw;  // the worker's result
};

// Runs one instance in `worker`; never throws for a bad kernel.
VariantResult run_variant(WorkerClient& worker, const kernel::Instance& inst, const RunOptions& options, double timeout_s,
                          const nlohmann::json& roof, std::int64_t id, const WorkerClient::OnEvent& on_event = {},
                          const std::atomic<bool>* cancel = nullptr);

// The files of a standalone export: <kernel>.cpp, <kernel>.hpp (layouts and
// <tensor>_offset()), example.cpp, README.md and <kernel>.s (the JIT's
// assembly for this machine).
std::map<std::string, std::string> export_files(const kernel::KernelSpec& spec, const kernel::Instance& inst);

}  // namespace lego::run
