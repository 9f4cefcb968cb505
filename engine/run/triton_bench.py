#!/usr/bin/env python3
# LEGO Studio's Triton bench harness, written into a bundle by `lego export-bench`.
#
#   python3 bench.py [--out results.json] [--runs 50] [--seed S] [--only TEXT]   on a GPU (PyTorch, Triton 3.6)
#   python3 bench.py --interpret                                                 on a CPU, under Triton's interpreter
#
# Each variant is verified at its verification sizes against the project's
# reference (host.cpp, run here on the host, on inputs drawn from a seed this
# prints), then, on a GPU, run at its own sizes, compared with its PyTorch
# baselines, and timed with CUDA events beside them and a device copy, all in
# this one process. The results file is Google Benchmark's JSON with LEGO
# Studio's fields, for `lego import-results`. Needs `make libhost.so` first.
import argparse
import ctypes
import datetime
import importlib.util
import json
import os
import socket
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# harness.hpp's Kind, in order: numpy's and torch's names for each.
KINDS = [("float32", "float32"), ("float64", "float64"), ("int32", "int32"), ("int64", "int64"), ("float16", "float16")]
INPUT, OUTPUT = 1, 2


def arguments():
    parser = argparse.ArgumentParser(description="Verify and time the bundle's Triton variants (LEGO Studio).")
    parser.add_argument("--interpret", action="store_true",
                        help="run under Triton's interpreter on the CPU: each variant at its verification sizes, nothing timed")
    parser.add_argument("--out", default="results.json", help="results file (GPU runs only; default results.json)")
    parser.add_argument("--runs", type=int, default=50, help="timed runs of each variant and baseline, the median kept (at least 20)")
    parser.add_argument("--seed", type=int, default=None, help="the inputs' seed (default: drawn, and printed)")
    parser.add_argument("--only", default="", help="only variants whose kernel/variant name contains this text")
    args = parser.parse_args()
    if not args.interpret and args.runs < 20:
        parser.error("--runs: at least 20 (a median of fewer says little)")
    if args.seed is None:
        args.seed = int.from_bytes(os.urandom(4), "little")
    if not 0 <= args.seed < 2 ** 64:
        parser.error("--seed: a whole number from 0 to 2^64 - 1")
    return args


class Host:
    # host.cpp's C interface (libhost.so).
    def __init__(self):
        path = os.path.join(HERE, "libhost.so")
        if not os.path.exists(path):
            sys.exit("bench.py: %s is missing: run `make libhost.so` (a C++17 compiler) first" % path)
        self.lib = lib = ctypes.CDLL(path)
        for name, result, params in [
            ("lego_variant_count", ctypes.c_int, []),
            ("lego_variant_bytes", ctypes.c_double, [ctypes.c_int]),
            ("lego_variant_flops", ctypes.c_double, [ctypes.c_int]),
            ("lego_tensor_count", ctypes.c_int, [ctypes.c_int]),
            ("lego_tensor_name", ctypes.c_char_p, [ctypes.c_int, ctypes.c_int]),
            ("lego_tensor_kind", ctypes.c_int, [ctypes.c_int, ctypes.c_int]),
            ("lego_tensor_role", ctypes.c_int, [ctypes.c_int, ctypes.c_int]),
            ("lego_tensor_rank", ctypes.c_int, [ctypes.c_int, ctypes.c_int]),
            ("lego_tensor_extent", ctypes.c_longlong, [ctypes.c_int, ctypes.c_int, ctypes.c_int]),
            ("lego_tensor_physical_elements", ctypes.c_longlong, [ctypes.c_int, ctypes.c_int]),
            ("lego_tensor_strides", ctypes.c_int, [ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_longlong)]),
            ("lego_prepare", None, [ctypes.c_int, ctypes.c_ulonglong, ctypes.POINTER(ctypes.c_void_p), ctypes.c_int]),
            ("lego_compare", ctypes.c_longlong, [ctypes.c_int, ctypes.c_ulonglong, ctypes.POINTER(ctypes.c_void_p),
                                               ctypes.POINTER(ctypes.c_double), ctypes.c_char_p, ctypes.c_int]),
            ("lego_permute", None, [ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]),
        ]:
            f = getattr(lib, name)
            f.restype, f.argtypes = result, params

    def tensors(self, v):
        out = []
        for t in range(self.lib.lego_tensor_count(v)):
            rank = self.lib.lego_tensor_rank(v, t)
            strides = (ctypes.c_longlong * max(rank, 1))()
            affine = self.lib.lego_tensor_strides(v, t, strides)
            out.append({"name": self.lib.lego_tensor_name(v, t).decode(), "kind": self.lib.lego_tensor_kind(v, t),
                        "role": self.lib.lego_tensor_role(v, t),
                        "extents": [self.lib.lego_tensor_extent(v, t, d) for d in range(rank)],
                        "elements": self.lib.lego_tensor_physical_elements(v, t),
                        "strides": list(strides)[:rank] if affine else None})
        return out

    @staticmethod
    def pointers(arrays):
        return (ctypes.c_void_p * len(arrays))(*[a.ctypes.data for a in arrays])

    def prepare(self, numpy, v, seed, reference):
        arrays = [numpy.empty(t["elements"], dtype=KINDS[t["kind"]][0]) for t in self.tensors(v)]
        self.lib.lego_prepare(v, seed, self.pointers(arrays), 1 if reference else 0)
        return arrays

    def check(self, v, seed, arrays):
        error, first = ctypes.c_double(0), ctypes.create_string_buffer(256)
        mismatches = self.lib.lego_compare(v, seed, self.pointers(arrays), ctypes.byref(error), first, len(first))
        return mismatches, error.value, first.value.decode()

    def logical(self, numpy, v, t, tensor, array):
        out = numpy.empty(tensor["extents"], dtype=array.dtype)
        self.lib.lego_permute(v, t, array.ctypes.data, out.ctypes.data, 0)
        return out


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, path))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)  # a file on disk: @triton.jit reads its source back
    return module


def verify(host, numpy, torch, entry, seed, on_device):
    # One launch at the entry's sizes, checked against the reference: (wrong elements, largest error, the first wrong one).
    v = entry["host"]
    arrays = host.prepare(numpy, v, seed, reference=True)
    module = load(entry["module"], "lego_" + os.path.splitext(entry["module"])[0])
    if on_device:
        tensors = [torch.from_numpy(a).to("cuda") for a in arrays]
        module.launch(*tensors)
        torch.cuda.synchronize()
        arrays = [t.cpu().numpy() for t in tensors]
    else:
        shim = sys.modules.get("lego_host_tensor") or load("host_tensor.py", "lego_host_tensor")
        module.launch(*[shim.lego_host_tensor(a, t["name"]) for a, t in zip(arrays, host.tensors(v))])
    return host.check(v, seed, arrays)


def median_ms(torch, call, sets, runs):
    for w in range(3):
        call(sets[w % len(sets)])
    torch.cuda.synchronize()
    times = []
    for r in range(runs):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        call(sets[r % len(sets)])
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return sorted(times)[len(times) // 2], len(times)


def copy_gbs(torch, l2):
    count = max(256 << 20, 8 * l2) // 4
    a, b = torch.empty(count, dtype=torch.float32, device="cuda"), torch.empty(count, dtype=torch.float32, device="cuda")
    ms, _ = median_ms(torch, lambda s: b.copy_(a), [None], 20)
    return 2.0 * count * 4 / (ms * 1e-3) / 1e9


def views(torch, tensors, buffers):
    # The baseline's arguments: each tensor at its logical shape, a view of the
    # variant's own buffer where the layout is strided, else a row-major copy.
    out, copies = [], []
    for t, b in zip(tensors, buffers):
        if t["strides"] is not None:
            out.append(torch.as_strided(b, t["extents"], t["strides"]))
        else:
            out.append(None)
            copies.append(t["name"])
    return out, copies


def outputs_of(result):
    if result is None:
        return []
    return list(result) if isinstance(result, (tuple, list)) else [result]


def time_variant(host, numpy, torch, row, seed, runs, l2):
    entry = row["timed"]
    v = entry["host"]
    tensors = host.tensors(v)
    # verify() checked the variant, at its verification sizes where it has them: the
    # reference at full size would take minutes for a large matmul.
    arrays = host.prepare(numpy, v, seed, reference=False)
    module = load(entry["module"], "lego_" + os.path.splitext(entry["module"])[0])
    set_bytes = sum(a.nbytes for a in arrays)
    rotation = int(min(64, 2 * l2 // max(set_bytes, 1) + 1))
    sets = [[torch.from_numpy(a).to("cuda") for a in arrays] for _ in range(rotation)]
    module.launch(*sets[0])
    torch.cuda.synchronize()
    got = [t.cpu().numpy() for t in sets[0]]
    ms, iterations = median_ms(torch, lambda s: module.launch(*s), sets, runs)
    result = {"ms": ms, "iterations": iterations, "baselines": []}
    for b in row["baselines"]:
        try:
            result["baselines"].append(time_baseline(host, numpy, torch, b, v, tensors, sets, arrays, got, runs))
        except Exception as e:  # the variant's own timing stands
            print("baseline %s: %s: %s" % (b["name"], type(e).__name__, e), flush=True)
    return result


def time_baseline(host, numpy, torch, b, v, tensors, sets, arrays, got, runs):
    base = load(b["module"], "lego_baseline_" + b["name"])
    logical_sets = []
    for s in sets:
        args, copies = views(torch, tensors, s)
        for k, t in enumerate(tensors):
            if args[k] is None:
                args[k] = torch.from_numpy(host.logical(numpy, v, k, t, arrays[k])).to("cuda")
        logical_sets.append(args)
    expected = outputs_of(base.baseline(*logical_sets[0]))
    torch.cuda.synchronize()
    difference = None
    produced = [host.logical(numpy, v, k, t, got[k]) for k, t in enumerate(tensors) if t["role"] & OUTPUT]
    if len(expected) == len(produced):
        difference = 0.0
        for mine, theirs in zip(produced, expected):
            theirs = theirs.float().cpu().numpy().astype(numpy.float64)
            scale = max(float(numpy.abs(theirs).max()), 1e-30)
            difference = max(difference, float(numpy.abs(mine.astype(numpy.float64) - theirs).max()) / scale)
    base_ms, _ = median_ms(torch, lambda s: base.baseline(*s), logical_sets, runs)
    return {"name": b["name"], "ms": base_ms, "difference": difference, "copies": copies}


def write_results(path, context, rows):
    with open(path, "w") as out:
        json.dump({"context": context, "benchmarks": rows}, out, indent=2)
        out.write("\n")


def main():
    args = arguments()
    if args.interpret:
        os.environ["TRITON_INTERPRET"] = "1"  # read when triton is imported
    import numpy
    import triton
    torch = None
    if not args.interpret:
        try:
            import torch
        except ImportError:
            sys.exit("bench.py: PyTorch is not installed: a GPU run times against it (on a CPU, run with --interpret)")
        if not torch.cuda.is_available():
            sys.exit("bench.py: no CUDA device here (on a CPU, run with --interpret)")
    host = Host()
    with open(os.path.join(HERE, "variants.json")) as f:
        rows = [r for r in json.load(f) if args.only in r["kernel"] + "/" + r["variant"]]
    if not rows:
        sys.exit("bench.py: no variant matches --only %r" % args.only)
    print("inputs' seed %d (--seed %d repeats them); Triton %s" % (args.seed, args.seed, triton.__version__), flush=True)
    context, l2, copy = {}, 0, 0.0
    if torch is not None:
        properties = torch.cuda.get_device_properties(0)
        l2 = int(getattr(properties, "L2_cache_size", 50 << 20))
        copy = copy_gbs(torch, l2)
        arch = "sm_%d%d" % (properties.major, properties.minor)
        print("device %s (%s), copy bandwidth %.1f GB/s; PyTorch %s" % (properties.name, arch, copy, torch.__version__), flush=True)
        context = {"date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"), "host_name": socket.gethostname(),
                   "executable": "bench.py", "num_cpus": os.cpu_count(), "library_build_type": "release", "lego_bench_results": 1,
                   "device": properties.name, "arch": arch, "copy_gbs": round(copy, 3), "triton": triton.__version__,
                   "torch": torch.__version__, "input_seed": args.seed}
    failures, results = 0, []
    for row in rows:
        name = "%s/%s" % (row["kernel"], row["variant"])
        entry = row.get("verify", row["timed"])
        try:
            mismatches, error, first = verify(host, numpy, torch, entry, args.seed, on_device=torch is not None)
        except Exception as e:  # the kernel's own error: this variant fails, the others still run
            failures += 1
            print("%-60s ERROR %s: %s" % (name, type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else ""), flush=True)
            continue
        verdict = "ok" if mismatches == 0 else "WRONG (%d element(s) differ, first %s, largest error %.3g)" % (mismatches, first, error)
        at = "at " + entry["parameters"]
        if torch is None:
            failures += mismatches != 0
            print("%-60s %s, %s (interpreter; not timed)" % (name, verdict, at), flush=True)
            continue
        try:
            timed = time_variant(host, numpy, torch, row, args.seed, args.runs, l2)
        except Exception as e:
            failures += 1
            print("%-60s verified %s, %s; ERROR at full size: %s: %s" % (name, verdict, at, type(e).__name__, e), flush=True)
            continue
        failures += mismatches != 0
        v = row["timed"]["host"]
        ms = timed["ms"]
        gbs, gflops = host.lib.lego_variant_bytes(v) / (ms * 1e-3) / 1e9, host.lib.lego_variant_flops(v) / (ms * 1e-3) / 1e9
        line = "%-60s %s %10.4f ms %9.1f GB/s %9.1f GFLOP/s" % (name, "ok   " if mismatches == 0 else "WRONG", ms, gbs, gflops)
        bench = {"name": name, "run_name": name, "run_type": "iteration", "repetitions": 1, "repetition_index": 0, "threads": 1,
                 "iterations": timed["iterations"], "real_time": ms, "cpu_time": ms, "time_unit": "ms", "bytes_per_second": gbs * 1e9,
                 "kernel": row["kernel"], "variant": row["variant"], "verified": mismatches == 0, "mismatches": mismatches,
                 "max_error": error, "verified_at": entry["parameters"], "median_ms": ms, "gbs": round(gbs, 3), "gflops": round(gflops, 3),
                 "percent_of_copy": 100 * gbs / copy if copy > 0 else 0.0}
        for b in timed["baselines"][:1]:  # the first baseline is the one the table compares with
            bench.update(baseline=b["name"], baseline_ms=b["ms"], percent_of_baseline=100 * b["ms"] / ms,
                         baseline_difference=b["difference"], baseline_row_major_copies=b["copies"])
        for b in timed["baselines"]:
            line += "; %s %.4f ms (%.1f %%)" % (b["name"], b["ms"], 100 * b["ms"] / ms)
        print(line, flush=True)
        results.append(bench)
    if torch is None:
        print("verified under the interpreter, nothing timed or written (%d of %d variants wrong)" % (failures, len(rows)))
    else:
        write_results(args.out, context, results)
        print("results written to %s (%d of %d variants wrong)" % (args.out, failures, len(rows)))
    return 2 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
