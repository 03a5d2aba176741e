#!/usr/bin/env python3
"""jitk next to torch on the same GPU and the same inputs.

  scaled_add  vs torch.add(x, y, alpha=s): fp32/fp16/bf16, n = 2^20 ... 2^28,
              TB/s counting bytes read + written (3 n elements), and parity of
              both against an fp64 reference.
  sparse_attn vs SDPA (dense causal) and FlexAttention with the same BlockMask
              (causal; sliding window 1024 + 128 global tokens; random 10 %
              block density), B=4 H=32 D=128, L = 4096 / 16384, fp16/bf16:
              ms and TFLOP/s counting only the blocks each mask computes
              (4 * D * block^2 per (batch, head, block); block 128, or
              --attn-block), and parity against an fp32 reference. Runs only
              when libjitk_c.so has sparse_attn.

Timing: CUDA events around CUDA-graph replays of many calls (so Python's
launch cost is not what is measured), after a warm-up; the median of the
samples. Attention is timed eagerly with one call queued ahead of the start
event, so that too measures the GPU; what each call costs the host is its own
table (tiny shapes, where the host is the bound). When one call's data fits in 4x the L2 cache, calls rotate over
several buffer sets so each reads from HBM. Each graph is checked to have
written its outputs before it is timed; if capture fails the calls are timed
eagerly and the row says so.

Writes into --out: results.md (header + every table), short.md (the short
table run.sh prints last), scaled_add.csv, attention.csv, parity.csv,
header.json. C++ benchmark JSON files already in --out (launch_bench.json,
get_kernel_bench.json, c_api_bench.json) are summarised too.

  python3 bench/device/side_by_side.py --out $OUT [--quick] [--skip-attention]
"""

import argparse
import csv
import datetime
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python"))

import jitk  # noqa: E402

try:
    import torch
except ImportError:
    torch = None


# --- the run's header ---------------------------------------------------------

def run_text(cmd):
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              universal_newlines=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def commit_of(build):
    for path in (os.path.join(build, "COMMIT"), os.path.join(REPO, "build", "COMMIT")):
        if os.path.isfile(path):
            with open(path) as f:
                return f.read().strip()
    if os.path.isdir(os.path.join(REPO, ".git")):
        return run_text(["git", "-C", REPO, "rev-parse", "HEAD"]) or "unknown"
    return "unknown"


def header(args):
    smi = run_text(["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                    "--format=csv,noheader"]).splitlines()
    gpu, driver, memory = (smi[0].split(", ") + ["", "", ""])[:3] if smi else ("", "", "")
    h = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "gpu": gpu or (torch.cuda.get_device_name(0) if torch and torch.cuda.is_available()
                       else "none"),
        "driver": driver or "unknown",
        "gpu_memory": memory,
        "commit": commit_of(args.build),
        "command": " ".join([os.path.relpath(sys.argv[0], REPO)] + sys.argv[1:]),
        "host": platform.node(),
        "python": platform.python_version(),
        "torch": torch.__version__ if torch else "not installed",
        "torch_cuda": (torch.version.cuda or torch.version.hip or "") if torch else "",
        "jitk": jitk.version() if jitk.available() else "libjitk_c.so not found",
        "libjitk_c": jitk.library_path() or "",
        "timing": "CUDA events around CUDA-graph replays, median of samples, after warm-up",
    }
    return h


def header_md(h):
    keys = ("date", "gpu", "driver", "commit", "command", "torch", "torch_cuda", "jitk",
            "libjitk_c", "timing")
    return "\n".join("- {}: {}".format(k, h[k]) for k in keys if h.get(k) != "")


# --- timing -------------------------------------------------------------------

def l2_bytes():
    try:
        size = torch.cuda.get_device_properties(0).L2_cache_size
        if size > 0:
            return size
    except Exception:  # older torch has no L2_cache_size
        pass
    return 60 << 20


def time_eager(calls, per_sample, samples):
    """Median ms per call, GPU time only: one call is queued ahead of the start
    event, so the host's cost of preparing each call runs while the GPU works
    on the one before instead of being timed as GPU idle time (with one call
    per sample, as long attention calls get, it would be timed in full)."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(samples):
        calls[-1]()
        start.record()
        for i in range(per_sample):
            calls[i % len(calls)]()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / per_sample)
    return statistics.median(times)


def time_graph(calls, per_sample, samples, check):
    """Median ms per call over graph replays; None when capture fails or the
    graph did not produce what `check` expects."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):  # warm up on a side stream, as capture requires
        for c in calls:
            c()
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(graph):
            for i in range(per_sample):
                calls[i % len(calls)]()
    except Exception as error:  # capture is best effort; eager timing follows
        print("  graph capture failed ({}); timing eagerly".format(error), flush=True)
        torch.cuda.synchronize()
        return None
    if check is not None and not check(graph):
        print("  the captured graph did not write the outputs; timing eagerly", flush=True)
        return None
    graph.replay()  # warm
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(samples):
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / per_sample)
    del graph
    return statistics.median(times)


def time_calls(calls, est_ms, samples, check=None, use_graph=True, min_sample_ms=2.0):
    """(ms per call, 'graph' | 'eager'). `est_ms` sizes a sample to about
    min_sample_ms of GPU time, rounded up to a multiple of len(calls)."""
    per_sample = max(len(calls), int(math.ceil(min_sample_ms / max(est_ms, 1e-4))))
    per_sample = min(4096, int(math.ceil(per_sample / len(calls))) * len(calls))
    for c in calls:  # warm-up (compiles jitk kernels, loads torch's)
        c()
    torch.cuda.synchronize()
    if use_graph:
        ms = time_graph(calls, per_sample, samples, check)
        if ms is not None:
            return ms, "graph"
    return time_eager(calls, per_sample, samples), "eager"


# --- scaled_add -----------------------------------------------------------------

DTYPES = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16"}


def scaled_add_section(args, rows, parity_rows):
    scale = -0.7
    l2 = l2_bytes()
    lo, hi = (int(v) for v in args.sizes.split("-"))
    for dtype_name in args.dtypes.split(","):
        dtype = getattr(torch, dtype_name)
        esize = torch.empty(0, dtype=dtype).element_size()
        for log2n in range(lo, hi + 1):
            n = 1 << log2n
            set_bytes = 3 * n * esize
            sets = 1 if set_bytes >= 4 * l2 else min(64, int(math.ceil(4.0 * l2 / set_bytes)))
            g = torch.Generator(device="cuda").manual_seed(log2n)
            xs = [torch.randn(n, device="cuda", dtype=dtype, generator=g) for _ in range(sets)]
            ys = [torch.randn(n, device="cuda", dtype=dtype, generator=g) for _ in range(sets)]
            outs = [torch.empty_like(xs[0]) for _ in range(sets)]
            est_ms = set_bytes / 4e12 * 1e3
            want0 = torch.add(xs[0], ys[0], alpha=scale)

            def check(graph):
                for o in outs:
                    o.fill_(float("nan"))
                graph.replay()
                torch.cuda.synchronize()
                return bool(torch.allclose(outs[0].float(), want0.float(), rtol=1e-2,
                                           atol=1e-2))

            results = {}
            for impl, make in (
                    ("jitk", lambda i: (lambda: jitk.scaled_add(xs[i], ys[i], scale, out=outs[i]))),
                    ("torch", lambda i: (lambda: torch.add(xs[i], ys[i], alpha=scale,
                                                           out=outs[i])))):
                calls = [make(i) for i in range(sets)]
                ms, mode = time_calls(calls, est_ms, args.samples, check,
                                      use_graph=not args.eager)
                results[impl] = (ms, mode)
            # Parity against fp64, on the first set.
            ref = torch.add(xs[0].double(), ys[0].double(), alpha=scale)
            got = {"jitk": jitk.scaled_add(xs[0], ys[0], scale),
                   "torch": torch.add(xs[0], ys[0], alpha=scale)}
            for impl in ("jitk", "torch"):
                p = jitk.parity(got[impl], ref, verbose=False)
                parity_rows.append({"kernel": "scaled_add", "case": "n=2^{}".format(log2n),
                                    "dtype": DTYPES[dtype_name], "impl": impl,
                                    "reference": "fp64", "cosine": p["cosine"],
                                    "max_abs": p["max_abs"], "rel_err": p["rel_err"]})
            jk, tk = results["jitk"][0], results["torch"][0]
            row = {"dtype": DTYPES[dtype_name], "n": n, "log2n": log2n, "buffer_sets": sets,
                   "jitk_ms": jk, "torch_ms": tk,
                   "jitk_tbs": set_bytes / (jk * 1e-3) / 1e12,
                   "torch_tbs": set_bytes / (tk * 1e-3) / 1e12,
                   "jitk_over_torch": tk / jk,
                   "timing": results["jitk"][1] + "/" + results["torch"][1],
                   "jitk_config": jitk._core.kernel_cache.get(
                       "scaled_add", "{};n={}".format(jitk.dtype_name(dtype), n), 0).config}
            rows.append(row)
            print("scaled_add {:>4} n=2^{:<2} jitk {:6.3f} TB/s  torch {:6.3f} TB/s  "
                  "ratio {:5.3f}  ({}, {} sets)".format(
                      row["dtype"], log2n, row["jitk_tbs"], row["torch_tbs"],
                      row["jitk_over_torch"], row["timing"], sets), flush=True)
            xs = ys = outs = got = ref = want0 = None  # free before the next size
            torch.cuda.empty_cache()


def python_call_overhead(rows, attention):
    """Host time of one call from Python on tiny tensors (launch-bound): what
    a call costs the CPU, which eager timing of long calls no longer sees."""
    x = torch.randn(1024, device="cuda")
    y = torch.randn(1024, device="cuda")
    out = torch.empty_like(x)
    cases = [("jitk.scaled_add from Python, n=1024", lambda: jitk.scaled_add(x, y, 0.5, out=out)),
             ("torch.add from Python, n=1024", lambda: torch.add(x, y, alpha=0.5, out=out))]
    if attention:
        from torch.nn.attention.flex_attention import create_block_mask
        L = 256
        q, k, v = (torch.randn(1, 1, L, D, device="cuda", dtype=torch.float16) for _ in range(3))
        o = torch.empty_like(q)
        bm = create_block_mask(lambda b, h, qi, ki: ki <= qi, None, None, L, L, device="cuda",
                               BLOCK_SIZE=DEFAULT_BLOCK)
        sdpa = torch.nn.functional.scaled_dot_product_attention
        what = "from Python, causal B=1 H=1 L={} D={} fp16".format(L, D)
        cases += [("jitk.sparse_attn " + what,
                   lambda: jitk.sparse_attn(q, k, v, bm, mask="causal", out=o)),
                  ("SDPA " + what, lambda: sdpa(q, k, v, is_causal=True))]
    for impl, fn in cases:
        for _ in range(100):
            fn()
        torch.cuda.synchronize()
        samples = []
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(2000):
                fn()
            torch.cuda.synchronize()
            samples.append((time.perf_counter() - t0) / 2000 * 1e6)
        rows.append({"what": impl, "us_per_call": min(samples)})


# --- sparse attention -------------------------------------------------------------

B, H, D = 4, 32, 128
DEFAULT_BLOCK = 128  # the BlockMasks' block size unless --attn-block
WINDOW, GLOBAL_TOKENS, DENSITY = 1024, 128, 0.10


def masks_for(L, block):
    """name -> (mask_mod, jitk element mask, window, global tokens)."""
    nb = (L + block - 1) // block
    g = torch.Generator(device="cuda").manual_seed(L)
    table = torch.rand(nb, nb, device="cuda", generator=g) < DENSITY
    table |= torch.eye(nb, dtype=torch.bool, device="cuda")  # every query sees its block

    def causal(b, h, q, k):
        return k <= q

    def sliding(b, h, q, k):
        return (k <= q) & ((q - k < WINDOW) | (k < GLOBAL_TOKENS))

    def random_blocks(b, h, q, k):
        return table[q // block, k // block]

    return {"causal": (causal, "causal", 0, 0),
            "sliding_window_1024+128": (sliding, "sliding_window_causal", WINDOW, GLOBAL_TOKENS),
            "random_10pct": (random_blocks, "none", 0, 0)}


def computed_blocks(block_mask):
    counts = block_mask.kv_num_blocks.sum().item()
    if block_mask.full_kv_num_blocks is not None:
        counts += block_mask.full_kv_num_blocks.sum().item()
    b, h = block_mask.kv_num_blocks.shape[:2]
    return counts * (B // b) * (H // h)  # broadcast masks count once per (batch, head)


def dense_reference(q, k, v, mod, L):
    """fp32 attention with the element mask, one batch at a time."""
    qi = torch.arange(L, device="cuda")[:, None]
    ki = torch.arange(L, device="cuda")[None, :]
    allowed = mod(0, 0, qi, ki)
    outs = []
    for bi in range(q.shape[0]):
        outs.append(torch.nn.functional.scaled_dot_product_attention(
            q[bi:bi + 1].float(), k[bi:bi + 1].float(), v[bi:bi + 1].float(),
            attn_mask=allowed))
    return torch.cat(outs)


def attention_section(args, rows, parity_rows):
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    # One compile per dtype, length and mask: past torch's recompile limit (8)
    # it would run the unfused flex_attention, which materializes every score.
    import torch._dynamo
    for limit in ("recompile_limit", "cache_size_limit"):  # the name before torch 2.6: the second
        if hasattr(torch._dynamo.config, limit):
            setattr(torch._dynamo.config, limit, 64)
    flex = torch.compile(flex_attention, dynamic=False)
    sdpa = torch.nn.functional.scaled_dot_product_attention
    deadline = time.time() + args.attn_budget_s
    block = args.attn_block
    for dtype_name in args.attn_dtypes.split(","):
        dtype = getattr(torch, dtype_name)
        for L in (int(v) for v in args.attn_lengths.split(",")):
            g = torch.Generator(device="cuda").manual_seed(L)
            q, k, v = (torch.randn(B, H, L, D, device="cuda", dtype=dtype, generator=g)
                       for _ in range(3))
            out = torch.empty_like(q)
            nb = (L + block - 1) // block
            causal_blocks = nb * (nb + 1) // 2 * B * H
            flops_per_block = 4.0 * D * block * block
            est = causal_blocks * flops_per_block / 3e14 * 1e3
            sdpa_ms, _ = time_calls([lambda: sdpa(q, k, v, is_causal=True)], est,
                                    args.attn_samples, use_graph=False, min_sample_ms=est)
            masks = masks_for(L, block)
            for mask_name, (mod, element_mask, window, global_tokens) in masks.items():
                if time.time() > deadline:
                    rows.append({"dtype": DTYPES[dtype_name], "L": L, "mask": mask_name,
                                 "impl": "all", "note": "skipped: time budget spent"})
                    continue
                bm = create_block_mask(mod, None, None, L, L, device="cuda",
                                       BLOCK_SIZE=block)
                blocks = computed_blocks(bm)
                flops = blocks * flops_per_block
                density = blocks / float(nb * nb * B * H)

                def run_jitk():
                    return jitk.sparse_attn(q, k, v, bm, mask=element_mask, window=window,
                                            global_tokens=global_tokens, out=out)

                def run_flex():
                    # Its tiles must divide the mask's blocks (128 rows by default).
                    options = {"BLOCK_M": block, "BLOCK_N": block} if block < 128 else None
                    return flex(q, k, v, block_mask=bm, kernel_options=options)

                timed = {}
                for impl, fn in (("jitk", run_jitk), ("flex", run_flex)):
                    try:
                        ms, _ = time_calls([fn], flops / 3e14 * 1e3, args.attn_samples,
                                           use_graph=False, min_sample_ms=1.0)
                        timed[impl] = ms
                    except Exception as error:
                        traceback.print_exc()
                        rows.append({"dtype": DTYPES[dtype_name], "L": L, "mask": mask_name,
                                     "impl": impl, "note": "failed: {}".format(error)[:300]})
                if mask_name == "causal":
                    timed["sdpa"] = sdpa_ms
                for impl, ms in timed.items():
                    rows.append({"dtype": DTYPES[dtype_name], "L": L, "mask": mask_name,
                                 "impl": impl, "ms": ms, "tflops": flops / (ms * 1e-3) / 1e12,
                                 "density": density, "computed_blocks": blocks,
                                 "sdpa_causal_ms": sdpa_ms,
                                 "jitk_speedup": (ms / timed["jitk"]) if "jitk" in timed
                                 else ""})
                print("attention {} L={} {:<24} ".format(DTYPES[dtype_name], L, mask_name) +
                      "  ".join("{} {:.3f} ms".format(i, m) for i, m in timed.items()),
                      flush=True)
                if L <= args.parity_max_len:
                    ref = dense_reference(q, k, v, mod, L)
                    got = {"jitk": run_jitk().clone()}
                    if "flex" in timed:
                        got["flex"] = run_flex()
                    if mask_name == "causal":
                        got["sdpa"] = sdpa(q, k, v, is_causal=True)
                    for impl, o in got.items():
                        p = jitk.parity(o, ref, verbose=False)
                        parity_rows.append({"kernel": "sparse_attn",
                                            "case": "{} L={}".format(mask_name, L),
                                            "dtype": DTYPES[dtype_name], "impl": impl,
                                            "reference": "fp32", "cosine": p["cosine"],
                                            "max_abs": p["max_abs"], "rel_err": p["rel_err"]})
                    del ref, got
                bm = None
            q = k = v = out = None
            torch.cuda.empty_cache()


# --- C++ benchmarks (JSON from run.sh) -----------------------------------------------

def benchmark_summary(out_dir):
    """{benchmark name: real_time ns} from the Google Benchmark JSON files in out_dir."""
    times, errors = {}, {}
    for name in ("launch_bench", "get_kernel_bench", "c_api_bench"):
        path = os.path.join(out_dir, name + ".json")
        if not os.path.isfile(path):
            continue
        try:
            with open(path) as f:
                data = json.load(f)
        except ValueError:
            errors[name] = "unreadable JSON"
            continue
        for b in data.get("benchmarks", []):
            if b.get("error_occurred"):
                errors[b["name"]] = b.get("error_message", "error")[:120]
                continue
            scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
            times[b["name"]] = b["real_time"] * scale
    return times, errors


# --- output ---------------------------------------------------------------------------

def md_table(rows, columns, formats):
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for r in rows:
        cells = []
        for c in columns:
            value = r.get(c, "")
            fmt = formats.get(c)
            cells.append(fmt.format(value) if fmt and value != "" else str(value))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_csv(path, rows):
    if not rows:
        return
    columns = []
    for r in rows:
        columns += [c for c in r if c not in columns]
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.environ.get("OUT", "bench-out"))
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--sizes", default="20-28", help="log2 n range, e.g. 20-28")
    ap.add_argument("--dtypes", default="float32,float16,bfloat16")
    ap.add_argument("--samples", type=int, default=15)
    ap.add_argument("--eager", action="store_true", help="no CUDA graphs")
    ap.add_argument("--attn-lengths", default="4096,16384")
    ap.add_argument("--attn-dtypes", default="float16,bfloat16")
    ap.add_argument("--attn-samples", type=int, default=7)
    ap.add_argument("--attn-block", type=int, default=DEFAULT_BLOCK,
                    help="the BlockMasks' block size (64: only 64-row tiles divide it)")
    ap.add_argument("--attn-budget-s", type=float, default=200.0,
                    help="no new attention case starts after this many seconds")
    ap.add_argument("--parity-max-len", type=int, default=4096,
                    help="attention parity (dense fp32 reference) up to this length")
    ap.add_argument("--skip-attention", action="store_true")
    ap.add_argument("--quick", action="store_true", help="n = 2^20..2^22, L = 4096, fewer samples")
    args = ap.parse_args()
    if args.quick:
        args.sizes, args.samples, args.attn_lengths, args.attn_samples = "20-22", 5, "4096", 3
    os.makedirs(args.out, exist_ok=True)

    h = header(args)
    with open(os.path.join(args.out, "header.json"), "w") as f:
        json.dump(h, f, indent=1)
    print(header_md(h), flush=True)

    sa_rows, attn_rows, parity_rows, overhead_rows, notes = [], [], [], [], []
    if torch is None or not torch.cuda.is_available():
        notes.append("torch with a GPU is not available: no side-by-side numbers")
    elif not jitk.available():
        notes.append("libjitk_c.so not found: " + str(jitk.library_path()))
    else:
        try:
            scaled_add_section(args, sa_rows, parity_rows)
        except Exception as error:
            traceback.print_exc()
            notes.append("scaled_add section failed: {!r}".format(error))
        try:
            python_call_overhead(overhead_rows, attention=not args.skip_attention and
                                 "sparse_attn" in jitk.kernel_names())
        except Exception as error:
            traceback.print_exc()
            notes.append("call overhead failed: {!r}".format(error))
        if args.skip_attention:
            notes.append("attention skipped (--skip-attention)")
        elif "sparse_attn" not in jitk.kernel_names():
            notes.append("attention skipped: this libjitk_c.so has no sparse_attn kernel")
        else:
            try:
                attention_section(args, attn_rows, parity_rows)
            except Exception as error:
                traceback.print_exc()
                notes.append("attention section failed: {!r}".format(error))

    write_csv(os.path.join(args.out, "scaled_add.csv"), sa_rows)
    write_csv(os.path.join(args.out, "attention.csv"), attn_rows)
    write_csv(os.path.join(args.out, "parity.csv"), parity_rows)
    bench_times, bench_errors = benchmark_summary(args.out)

    sa_md = md_table(sa_rows, ["dtype", "n", "jitk_tbs", "torch_tbs", "jitk_over_torch",
                               "buffer_sets", "timing", "jitk_config"],
                     {"jitk_tbs": "{:.3f}", "torch_tbs": "{:.3f}", "jitk_over_torch": "{:.3f}"})
    attn_md = md_table(attn_rows, ["dtype", "L", "mask", "impl", "ms", "tflops", "density",
                                   "jitk_speedup", "sdpa_causal_ms", "note"],
                       {"ms": "{:.3f}", "tflops": "{:.1f}", "density": "{:.3f}",
                        "jitk_speedup": "{:.2f}", "sdpa_causal_ms": "{:.3f}"})
    parity_md = md_table(parity_rows, ["kernel", "case", "dtype", "impl", "reference", "cosine",
                                       "max_abs", "rel_err"],
                         {"cosine": "{:.8f}", "max_abs": "{:.3e}", "rel_err": "{:.3e}"})
    overhead_md = md_table(overhead_rows, ["what", "us_per_call"], {"us_per_call": "{:.2f}"})

    bench_lines = []
    raw = bench_times.get("BM_LaunchRawBackend")
    attn_raw = bench_times.get("BM_LaunchSparseAttnRawBackend")
    for name, label, base in (
            ("BM_LaunchKernel", "Kernel::Launch", raw),
            ("BM_LaunchKernelBuildingArgs", "Kernel::Launch, args built per call", raw),
            ("BM_CApiLaunch", "jitk_kernel_launch (C ABI)", raw),
            ("BM_LaunchSparseAttnEncodeEachTime", "sparse_attn: raw + tensor maps encoded",
             attn_raw),
            ("BM_LaunchSparseAttnPlanEachTime", "sparse_attn: raw + PlanLaunch + encode",
             attn_raw),
            ("BM_LaunchSparseAttnKernel", "sparse_attn: Kernel::Launch", attn_raw)):
        if base and name in bench_times:
            bench_lines.append("| {} | {:.0f} ns | {:.0f} ns | {:.3f} |".format(
                label, bench_times[name], base, bench_times[name] / base))
    hot = [(n, t) for n, t in sorted(bench_times.items()) if "HotHit" in n]
    bench_md = ""
    if bench_lines:
        bench_md += ("| launch | time | raw Backend::Launch | ratio (target <= 1.1) |\n"
                     "|---|---|---|---|\n" + "\n".join(bench_lines) + "\n\n")
    if hot:
        bench_md += ("| get_kernel memo hit | ns (target <= 100) |\n|---|---|\n" +
                     "\n".join("| {} | {:.1f} |".format(n, t) for n, t in hot) + "\n")
    if bench_errors:
        bench_md += "\nbenchmark errors:\n" + "\n".join(
            "- {}: {}".format(n, e) for n, e in sorted(bench_errors.items())) + "\n"

    notes_md = "\n".join("- " + n for n in notes)
    sections = ["# jitk vs torch on {}".format(h["gpu"]), header_md(h)]
    if notes_md:
        sections += ["## Notes", notes_md]
    sections += ["## scaled_add vs torch.add (TB/s, bytes read + written)", sa_md,
                 "## sparse_attn vs FlexAttention and SDPA (TFLOP/s over computed blocks)",
                 attn_md, "## Parity", parity_md, "## Call overhead from Python", overhead_md,
                 "## Host benchmarks (Google Benchmark)", bench_md or "(none found)"]
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write("\n\n".join(sections) + "\n")

    # The short table: the largest size per dtype, attention per case, launch ratio.
    short = ["## short: {} | {} | driver {} | commit {}".format(
        h["date"], h["gpu"], h["driver"], h["commit"][:12])]
    short.append("| what | jitk | torch | jitk/torch |")
    short.append("|---|---|---|---|")
    for r in sa_rows:
        if r["log2n"] in (20, 24, 28):
            short.append("| scaled_add {} n=2^{} TB/s | {:.2f} | {:.2f} | {:.2f} |".format(
                r["dtype"], r["log2n"], r["jitk_tbs"], r["torch_tbs"], r["jitk_over_torch"]))
    by_case = {}
    for r in attn_rows:
        if "ms" in r:
            by_case.setdefault((r["dtype"], r["L"], r["mask"]), {})[r["impl"]] = r
    for (dt, L, mask), impls in sorted(by_case.items()):
        j = impls.get("jitk")
        base = impls.get("flex")
        if j:
            short.append("| attn {} L={} {} TFLOP/s | {:.0f} | flex {} | {} |".format(
                dt, L, mask, j["tflops"], "{:.0f}".format(base["tflops"]) if base else "-",
                "{:.2f}".format(base["ms"] / j["ms"]) if base else "-"))
        if "sdpa" in impls:
            short.append("| attn {} L={} SDPA causal TFLOP/s | | {:.0f} | |".format(
                dt, L, impls["sdpa"]["tflops"]))
    worst = {}
    for r in parity_rows:
        if r["impl"] == "jitk":
            key = r["kernel"]
            worst[key] = min(worst.get(key, 1.0), r["cosine"])
    for kernel, cosine in sorted(worst.items()):
        short.append("| parity {} worst cosine vs reference | {:.8f} | | |".format(kernel, cosine))
    if raw and "BM_LaunchKernel" in bench_times:
        short.append("| Kernel::Launch / raw launch | {:.3f} | | |".format(
            bench_times["BM_LaunchKernel"] / raw))
    for r in overhead_rows:
        short.append("| {} us/call | {:.2f} | | |".format(r["what"], r["us_per_call"]))
    for n in notes:
        short.append("| note: {} | | | |".format(n))
    with open(os.path.join(args.out, "short.md"), "w") as f:
        f.write("\n".join(short) + "\n")
    print("wrote {}/results.md".format(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
