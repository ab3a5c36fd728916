#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/feature_gather: GNN feature gathering from features larger than the cache.

Node features of a synthetic power-law graph (N nodes x D float32; out-degrees Pareto, neighbours
drawn from a Zipf law over the nodes), mini-batches of node ids from
a seeded GPU neighbour sampler over the graph's CSR (fan-out 15-10-5, 1024 seeds; each layer
samples with replacement from the unique frontier), and the rows of each batch gathered to the
GPU by:
  vram          all features in VRAM, index_select
  zero_copy     a CuPy take kernel reading pinned host memory over PCIe
  pyg_default   PyG's default path: CPU index_select into a pinned buffer, then a copy
  memmap        a NumPy memmap of the feature file, gathered and copied (cold OS page cache)
  bam_ram_<p>   bam over an emulated RAM namespace, cache = p% of the features (steady state);
                bam_ram_10_resident gathers the same batches again, every row resident
  bam_file      bam over the feature file (O_DIRECT), cache = 10%, cold
Every gathered row is checked against the features' defining function. memmap and bam_file
read from storage at the disk's pace, so they gather the first --cold-rows rows of the first
batch (the same rows for both), each from a cold OS page cache.

    feature_gather.py [--nodes 50000000] [--dim 128] [--results DIR]
"""
import argparse
import datetime
import json
import os
import sys
import time

import numpy as np
import torch

import bam


def feature_rows(ids, dim):
    """The defining function of the features: row v, column c holds a 24-bit hash of v * dim + c
    (exact in float32), so any wrong or misplaced row shows."""
    x = ids.to(torch.int64)[:, None] * dim + torch.arange(dim, device=ids.device)
    h = ((x & 0x7FFFFFFF) * 2654435761 + (x >> 31) * 40503) & 0xFFFFFFFF
    return (h >> 8).to(torch.float32)


def power_law_csr(n, avg_degree, skew, gen):
    """Out-degrees from a Pareto law (alpha 1.5, mean about avg_degree); each neighbour drawn with
    probability ~ rank^-skew (a Zipf law: skew 0.91 is an in-degree power law of exponent 2.1, as
    in web and social graphs), ranks scattered over the ids by a multiplicative hash so that hot
    nodes are not neighbours in the file. int64 row pointers, int32 column ids, on the GPU."""
    xm = avg_degree / 3.0
    u = torch.rand(n, device="cuda", generator=gen).clamp_min_(1e-9)
    degree = torch.clamp((xm / u.pow(1 / 1.5)).floor_(), 1, 10_000).to(torch.int64)
    rowptr = torch.zeros(n + 1, dtype=torch.int64, device="cuda")
    torch.cumsum(degree, 0, out=rowptr[1:])
    col = torch.empty(int(rowptr[-1]), dtype=torch.int32, device="cuda")
    e = 1.0 - skew  # inverse of the continuous Zipf CDF over ranks [1, n]
    top = float(n) ** e - 1.0
    step = 1 << 26
    for first in range(0, col.numel(), step):
        r = torch.rand(min(step, col.numel() - first), device="cuda", generator=gen, dtype=torch.float64)
        rank = (1.0 + r * top).pow_(1.0 / e).to(torch.int64).clamp_(1, n) - 1
        col[first:first + r.numel()] = ((rank * 2654435761) % n).to(torch.int32)
    return rowptr, col


def sample(rowptr, col, seeds, fanouts, gen):
    """The unique nodes of a 3-hop sample around `seeds`, in a seeded random order (PyG's n_id is
    in discovery order, not sorted)."""
    layers, frontier = [seeds], seeds
    for f in fanouts:
        start = rowptr[frontier]
        degree = rowptr[frontier + 1] - start
        pick = (torch.rand(frontier.numel(), f, device="cuda", generator=gen) * degree[:, None]).to(torch.int64)
        frontier = torch.unique(col[(start[:, None] + pick).reshape(-1)].to(torch.int64))
        layers.append(frontier)
    ids = torch.unique(torch.cat(layers))
    return ids[torch.randperm(ids.numel(), device="cuda", generator=gen)]


def timed(fn):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    out = fn()
    torch.cuda.synchronize()
    return out, time.perf_counter() - t0


def drop_os_cache(path):
    """Evicts the file's pages from the OS page cache (clean pages: fsync first)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


class Bench:
    def __init__(self, args):
        self.args = args
        self.rows = []
        self.wrong = 0

    def record(self, method, batches, rows, seconds, **extra):
        row = {"method": method, "batches": batches, "rows": rows, "seconds": round(seconds, 6),
               "rows_per_s": rows / seconds, **extra}
        self.rows.append(row)
        print(f"{method:>14}  {rows:>10} rows  {seconds * 1e3:10.1f} ms  {rows / seconds / 1e6:8.2f} M rows/s  "
              + "  ".join(f"{k}={v}" for k, v in extra.items()), flush=True)

    def verify(self, method, ids, got):
        got = torch.as_tensor(got, device="cuda") if not isinstance(got, torch.Tensor) else got
        bad = int((got != feature_rows(ids, self.args.dim)).any(dim=1).sum())
        if bad:
            print(f"!! {method}: {bad} of {ids.numel()} rows wrong", flush=True)
        self.wrong += bad


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nodes", type=int, default=50_000_000)
    p.add_argument("--dim", type=int, default=128)
    p.add_argument("--avg-degree", type=int, default=10)
    p.add_argument("--skew", type=float, default=0.91,
                   help="Zipf exponent of the neighbour choice (0.91: in-degree power law of exponent 2.1)")
    p.add_argument("--seeds", type=int, default=1024)
    p.add_argument("--fanouts", default="15,10,5")
    p.add_argument("--batches", type=int, default=10, help="timed batches per in-memory method")
    p.add_argument("--warmup", type=int, default=60,
                   help="batches that warm each bam cache first (a 10%% cache holds about 40 batches' rows)")
    p.add_argument("--cache-percents", default="5,10,25")
    p.add_argument("--page-bytes", type=int, default=512, help="bam page size (512 = one row of 128 floats)")
    p.add_argument("--also-page-bytes", type=int, default=4096, help="the 10%% cache again with this page size (0: no)")
    p.add_argument("--cold-rows", type=int, default=200_000)
    p.add_argument("--file", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "bam-feature-gather.bin"))
    p.add_argument("--workers", type=int, default=14, help="emulator threads for the RAM namespace")
    p.add_argument("--file-workers", type=int, default=64, help="emulator threads for the file (its queue depth)")
    p.add_argument("--results", default="", help="folder for the JSON (default: print only)")
    args = p.parse_args()
    fanouts = [int(f) for f in args.fanouts.split(",")]
    n, dim = args.nodes, args.dim
    row_bytes = dim * 4
    total_bytes = n * row_bytes
    bench = Bench(args)
    props = torch.cuda.get_device_properties(0)
    print(f"{props.name}: {n} nodes x {dim} float32 = {total_bytes / 2**30:.1f} GiB of features", flush=True)

    # ---- the graph and the batches (the same for every method) ----
    gen = torch.Generator(device="cuda").manual_seed(7)
    t0 = time.perf_counter()
    rowptr, col = power_law_csr(n, args.avg_degree, args.skew, gen)
    batches = [sample(rowptr, col, torch.randint(0, n, (args.seeds,), device="cuda", generator=gen), fanouts, gen)
               for _ in range(args.warmup + args.batches)]
    del rowptr, col
    torch.cuda.empty_cache()
    timed_batches = batches[args.warmup:]
    batch_rows = [b.numel() for b in timed_batches]
    print(f"graph and {len(batches)} batches in {time.perf_counter() - t0:.1f} s; "
          f"{np.mean(batch_rows):.0f} rows per batch", flush=True)

    # ---- the features: VRAM, pinned host memory, a RAM namespace, a file ----
    t0 = time.perf_counter()
    feats_gpu = torch.empty(n, dim, dtype=torch.float32, device="cuda")
    feats_host = torch.empty(n, dim, dtype=torch.float32, pin_memory=True)
    chunk = 1 << 21
    for first in range(0, n, chunk):
        last = min(n, first + chunk)
        feats_gpu[first:last] = feature_rows(torch.arange(first, last, device="cuda"), dim)
        feats_host[first:last].copy_(feats_gpu[first:last])
    host_np = feats_host.numpy()
    block = 512
    ram = bam.ram_namespace(-(-total_bytes // block), block_size=block)
    bam.write_namespace(ram, host_np)
    print(f"features in VRAM, pinned memory and a RAM namespace in {time.perf_counter() - t0:.1f} s", flush=True)

    # (a) VRAM
    def run_in_memory(method, gather):
        total_rows, total_s = 0, 0.0
        for ids in timed_batches:
            out, s = timed(lambda: gather(ids))
            bench.verify(method, ids, out)
            total_rows += ids.numel()
            total_s += s
        bench.record(method, len(timed_batches), total_rows, total_s)

    feats_gpu.index_select(0, batches[0])  # every method runs once untimed first
    run_in_memory("vram", lambda ids: feats_gpu.index_select(0, ids))
    del feats_gpu
    torch.cuda.empty_cache()

    # (b) zero-copy from pinned host memory: a CuPy kernel reads it over PCIe
    try:
        import cupy
        memory = cupy.cuda.UnownedMemory(feats_host.data_ptr(), total_bytes, feats_host)
        host_view = cupy.ndarray((n, dim), dtype=cupy.float32, memptr=cupy.cuda.MemoryPointer(memory, 0))
        zc = lambda ids: torch.from_dlpack(cupy.take(host_view, cupy.from_dlpack(ids), axis=0))  # noqa: E731
        zc(batches[0])
        run_in_memory("zero_copy", zc)
    except ImportError:
        print("zero_copy skipped: CuPy is not installed", flush=True)

    # (c) PyG's default: CPU index_select into pinned memory, then a copy
    cpu_batches = [ids.cpu() for ids in timed_batches]
    staging = torch.empty(max(batch_rows), dim, dtype=torch.float32, pin_memory=True)

    def pyg_default(ids_cpu):
        part = staging[:ids_cpu.numel()]
        torch.index_select(feats_host, 0, ids_cpu, out=part)
        return part.to("cuda", non_blocking=True)

    pyg_default(cpu_batches[0])
    total_rows, total_s = 0, 0.0
    for ids, ids_cpu in zip(timed_batches, cpu_batches):
        out, s = timed(lambda: pyg_default(ids_cpu))
        bench.verify("pyg_default", ids, out)
        total_rows, total_s = total_rows + ids.numel(), total_s + s
    bench.record("pyg_default", len(timed_batches), total_rows, total_s)

    # (e) bam over the RAM namespace, cache = p% of the features, after warm-up batches
    queue_pairs = props.multi_processor_count
    configs = [(int(x), args.page_bytes) for x in args.cache_percents.split(",")]
    if args.also_page_bytes and args.also_page_bytes != args.page_bytes:
        configs.append((10, args.also_page_bytes))
    for percent, page_bytes in configs:
        name = f"bam_ram_{percent}" + ("" if page_bytes == args.page_bytes else f"_page{page_bytes}")
        cache_bytes = total_bytes * percent // 100 // page_bytes * page_bytes
        cache = bam.PageCache([ram], page_bytes=page_bytes, cache_bytes=cache_bytes, device="cuda",
                              workers_per_controller=args.workers, queue_pairs=queue_pairs, queue_depth=256)
        feats = cache.map("features", "float32", (n, dim))
        for ids in batches[:args.warmup]:
            feats.gather(ids)
        before = feats.stats()
        total_rows, total_s = 0, 0.0
        for ids in timed_batches:
            out, s = timed(lambda: feats.gather(ids))
            bench.verify(name, ids, out)
            total_rows, total_s = total_rows + ids.numel(), total_s + s
        after = feats.stats()
        hits = after["hits"] + after["coalesced"] - before["hits"] - before["coalesced"]
        accesses = after["accesses"] - before["accesses"]
        bench.record(name, len(timed_batches), total_rows, total_s, cache_percent=percent,
                     page_bytes=page_bytes, hit_rate=round(hits / max(1, accesses), 4),
                     mib_read=round((after["bytes_read"] - before["bytes_read"]) / 2**20, 1))
        if name == "bam_ram_10":  # the same batches again, now resident: bam's own cost per row
            total_s = 0.0
            for ids in timed_batches:
                out, s = timed(lambda: feats.gather(ids))
                bench.verify("bam_ram_10_resident", ids, out)
                total_s += s
            again = feats.stats()
            bench.record("bam_ram_10_resident", len(timed_batches), total_rows, total_s, cache_percent=percent,
                         page_bytes=page_bytes,
                         hit_rate=round((again["hits"] + again["coalesced"] - after["hits"] - after["coalesced"])
                                        / max(1, again["accesses"] - after["accesses"]), 4))
        cache.check()
        del feats, cache
    del ram

    # (d) and (f): from the feature file, cold
    cold_ids = batches[args.warmup][:args.cold_rows]
    cold_cpu = cold_ids.cpu().numpy()
    t0 = time.perf_counter()
    file_ns = bam.file_namespace(args.file, n_blocks=-(-total_bytes // block), block_size=block, create=True,
                                 direct=True)
    bam.write_namespace(file_ns, host_np)
    file_ns.sync()
    del file_ns
    print(f"feature file {args.file} written in {time.perf_counter() - t0:.1f} s", flush=True)
    try:
        drop_os_cache(args.file)
        features_mm = np.memmap(args.file, dtype=np.float32, mode="r", shape=(n, dim))
        out, s = timed(lambda: torch.from_numpy(features_mm[cold_cpu]).to("cuda"))
        bench.verify("memmap", cold_ids, out)
        bench.record("memmap", 1, cold_ids.numel(), s, cold=True)
        del features_mm

        drop_os_cache(args.file)
        file_ns = bam.file_namespace(args.file, block_size=block, direct=True)
        cache = bam.PageCache([file_ns], page_bytes=args.page_bytes,
                              cache_bytes=total_bytes // 10 // args.page_bytes * args.page_bytes, device="cuda",
                              workers_per_controller=args.file_workers, queue_pairs=queue_pairs, queue_depth=256)
        feats = cache.map("features", "float32", (n, dim))
        out, s = timed(lambda: feats.gather(cold_ids))
        bench.verify("bam_file", cold_ids, out)
        st = feats.stats()
        bench.record("bam_file", 1, cold_ids.numel(), s, cold=True, cache_percent=10, page_bytes=args.page_bytes,
                     hit_rate=round((st["hits"] + st["coalesced"]) / max(1, st["accesses"]), 4))
        cache.check()
        del feats, cache, file_ns
    finally:
        os.unlink(args.file)

    rate = {r["method"]: r["rows_per_s"] for r in bench.rows}
    hit = {r["method"]: r["hit_rate"] for r in bench.rows if "hit_rate" in r}
    headline = {
        "rows_per_s": rate,
        "hit_rates": hit,
        "bam10_over_pyg_default": rate.get("bam_ram_10", 0) / rate["pyg_default"],
        "bam10_over_zero_copy": rate.get("bam_ram_10", 0) / rate["zero_copy"] if "zero_copy" in rate else None,
        "bam_file_over_memmap": rate["bam_file"] / rate["memmap"],
        "rows_per_batch": float(np.mean(batch_rows)),
        "wrong_rows": bench.wrong,
        "verified_every_row": bench.wrong == 0,
    }
    print("\nheadline:", json.dumps(headline), flush=True)
    if args.results:
        slug = props.name.split()[1].lower() if props.name.startswith("NVIDIA ") else props.name.lower().replace(" ", "")
        doc = {"bench": "feature_gather", "date": datetime.date.today().isoformat(),
               "command": " ".join([os.path.basename(sys.argv[0])] + sys.argv[1:]),
               "device": {"name": props.name, "details": {"sms": props.multi_processor_count,
                                                          "vram_gib": props.total_memory >> 30}},
               "settings": {k: v for k, v in vars(args).items() if k != "results"},
               "tables": {"gather": bench.rows}, "headline": headline}
        os.makedirs(args.results, exist_ok=True)
        path = os.path.join(args.results, f"feature_gather-{slug}-{datetime.date.today():%Y%m%d}.json")
        with open(path, "w") as f:
            json.dump(doc, f, indent=2)
        print("wrote", path)
    return 0 if bench.wrong == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
