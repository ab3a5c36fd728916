#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The vector_search bench's peers, reading the same index file bam searches.

- FAISS IVF-Flat on the CPU with bam's coarse centroids and the very same inverted lists
  (list l holds the rows bam stores in list l), searched for every nprobe on N threads.
- FAISS exact search (IndexFlat) over the same vectors: checks bam's GPU ground truth.
- PyTorch brute force in VRAM (GEMM + topk), when torch and a GPU are present.

usage: peers.py --index I.ivf --queries Q.npy --gt GT.ivecs --nprobe 1,2,4 --k 10 --threads 16 --out peers.json
Writes JSON: {"faiss_ivf": [...], "faiss_gt_check": {...}, "torch_brute_force": {...}, "errors": [...]}.
"""
import argparse
import json
import struct
import time

import numpy as np


def read_index(path):
    """The sections of a bam IVF index (docs/ivf-format.md)."""
    with open(path, "rb") as f:
        head = f.read(120)
    if head[:8] != b"BAMIVF01":
        raise ValueError(f"{path}: not a bam IVF index")
    metric, scalar = head[16], head[17]
    dim, = struct.unpack_from("<I", head, 20)
    n, = struct.unpack_from("<Q", head, 24)
    nlist, = struct.unpack_from("<I", head, 32)
    sec = struct.unpack_from("<8Q", head, 40)  # (offset, bytes) of centroids, offsets, ids, vectors
    mm = np.memmap(path, dtype=np.uint8, mode="r")
    part = lambda i: mm[sec[2 * i]: sec[2 * i] + sec[2 * i + 1]]
    dtype = {1: np.float32, 2: np.float16, 3: np.uint8}[scalar]
    return {
        "metric": "l2" if metric == 1 else "ip",
        "dim": dim,
        "n": n,
        "nlist": nlist,
        "centroids": part(0).view(np.float32).reshape(nlist, dim),
        "offsets": part(1).view(np.uint64),
        "ids": part(2).view(np.int64),
        "vectors": np.asarray(part(3).view(dtype).reshape(n, dim), dtype=np.float32),
    }


def read_ivecs(path):
    raw = np.fromfile(path, dtype=np.int32)
    d = raw[0]
    return raw.reshape(-1, d + 1)[:, 1:]


def recall(found, truth, k):
    hits = sum(len(set(f[:k]) & set(t[:k])) for f, t in zip(found, truth))
    return hits / (len(found) * k)


def timed(fn, reps):
    """Median seconds of `reps` runs after one warm-up, and the last result."""
    out = fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return sorted(times)[len(times) // 2], out


def faiss_ivf(ix):
    """A FAISS IndexIVFFlat with bam's centroids and exactly bam's lists (same ids, same rows)."""
    import faiss

    metric = faiss.METRIC_L2 if ix["metric"] == "l2" else faiss.METRIC_INNER_PRODUCT
    quant = faiss.IndexFlatL2(ix["dim"]) if metric == faiss.METRIC_L2 else faiss.IndexFlatIP(ix["dim"])
    quant.add(np.ascontiguousarray(ix["centroids"]))
    ivf = faiss.IndexIVFFlat(quant, ix["dim"], ix["nlist"], metric)
    # (FAISS's Python constructor keeps a reference to the quantizer.)
    off, ids, vec = ix["offsets"], np.ascontiguousarray(ix["ids"]), np.ascontiguousarray(ix["vectors"])
    for l in range(ix["nlist"]):
        a, b = int(off[l]), int(off[l + 1])
        if b > a:
            ivf.invlists.add_entries(l, b - a, faiss.swig_ptr(ids[a:b]), faiss.swig_ptr(vec[a:b].view(np.uint8)))
    ivf.ntotal = ix["n"]
    ivf.is_trained = True
    return ivf


def faiss_peers(ix, xq, gt, args, report):
    import faiss

    faiss.omp_set_num_threads(args.threads)
    ivf = faiss_ivf(ix)
    metric = ivf.metric_type
    report["faiss_version"] = faiss.__version__
    report["faiss_ivf"] = []
    for p in args.nprobe:
        ivf.nprobe = p
        sec, (_, found) = timed(lambda: ivf.search(xq, args.k), args.reps)
        row = {"nprobe": p, "seconds": sec, "qps": len(xq) / sec, "recall_at_10": recall(found, gt, min(10, args.k))}
        report["faiss_ivf"].append(row)
        print(f"  faiss ivf nprobe {p:4d}: {row['qps']:10.0f} queries/s, recall@10 {row['recall_at_10']:.4f}", flush=True)

    # Ground truth check: FAISS exact top-k over the same vectors, in original id order.
    base = np.empty_like(ix["vectors"])
    base[ix["ids"]] = ix["vectors"]
    flat = faiss.IndexFlatL2(ix["dim"]) if metric == faiss.METRIC_L2 else faiss.IndexFlatIP(ix["dim"])
    flat.add(base)
    kk = gt.shape[1]
    t0 = time.perf_counter()
    _, exact = flat.search(xq, kk)
    sec = time.perf_counter() - t0
    same_sets = recall(exact, gt, kk)
    report["faiss_gt_check"] = {
        "k": kk,
        "queries": len(xq),
        "seconds": sec,
        "recall_of_bam_gt_vs_faiss": same_sets,
        "identical_rows": float(np.mean(np.all(exact == gt, axis=1))),
        "top1_agreement": float(np.mean(exact[:, 0] == gt[:, 0])),
    }
    print(f"  faiss exact check: bam ground truth vs FAISS recall@{kk} {same_sets:.5f}", flush=True)


def torch_peer(ix, xq, gt, args, report):
    import torch

    if not torch.cuda.is_available():
        raise RuntimeError("torch sees no GPU")
    torch.backends.cuda.matmul.allow_tf32 = False
    base = np.empty_like(ix["vectors"])
    base[ix["ids"]] = ix["vectors"]
    x = torch.from_numpy(base).cuda()
    q = torch.from_numpy(np.ascontiguousarray(xq)).cuda()
    xn = (x * x).sum(1)

    def run():
        out = []
        for b in q.split(4096):
            d = xn[None, :] - 2.0 * (b @ x.T) if ix["metric"] == "l2" else -(b @ x.T)
            out.append(d.topk(args.k, dim=1, largest=False).indices)
        torch.cuda.synchronize()
        return torch.cat(out).cpu().numpy()

    sec, found = timed(run, args.reps)
    report["torch_brute_force"] = {
        "device": torch.cuda.get_device_name(0),
        "torch_version": torch.__version__,
        "seconds": sec,
        "qps": len(xq) / sec,
        "recall_at_10": recall(found, gt, min(10, args.k)),
    }
    print(f"  torch brute force: {len(xq) / sec:10.0f} queries/s", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--index", required=True)
    ap.add_argument("--queries", required=True, help=".npy (float32 or uint8)")
    ap.add_argument("--gt", required=True, help=".ivecs ground truth from bam")
    ap.add_argument("--nprobe", default="1,2,4,8,16,32,64")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--threads", type=int, default=16)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    args.nprobe = [int(p) for p in args.nprobe.split(",")]
    ix = read_index(args.index)
    xq = np.ascontiguousarray(np.load(args.queries).astype(np.float32))
    gt = read_ivecs(args.gt)
    report = {"threads": args.threads, "errors": []}
    for name, peer in (("faiss", faiss_peers), ("torch", torch_peer)):
        try:
            peer(ix, xq, gt, args, report)
        except Exception as e:  # a missing peer is reported, not fatal
            report["errors"].append(f"{name}: {type(e).__name__}: {e}")
            print(f"  {name} peer failed: {e}", flush=True)
    with open(args.out, "w") as f:
        json.dump(report, f, indent=2)


if __name__ == "__main__":
    main()
