#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""CI check of bam's vector search against FAISS on Fashion-MNIST (CPU, a subset of queries).

1. bam-knn groundtruth --cpu: exact top-100 of the first N test images among the 60,000
   training images; FAISS IndexFlatL2 must agree (recall@100 >= 0.999).
2. bam-knn build --cpu (64 lists) and bam-knn search --cpu at nprobe 8: recall@10 against
   FAISS's exact neighbours >= 0.9 and within 0.01 of FAISS IVF-Flat searching the very same
   lists; the first 5 queries again through bam (page cache of half the vectors over the
   emulated controller serving the index file) return the same ids.

Exits 77 (ctest: skipped) when python3-faiss, numpy or Debian's dataset-fashion-mnist is missing.
usage: faiss_check.py BAM_KNN WORK_DIR [N_QUERIES]
"""
import json
import os
import subprocess
import sys

SKIP = 77
DATA = "/usr/share/datasets/fashion-mnist"
HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    try:
        import faiss
        import numpy as np
    except ImportError as e:
        print(f"skipped: {e} (apt-get install python3-faiss python3-numpy libopenblas0-pthread)")
        return SKIP
    if not os.path.exists(os.path.join(DATA, "train-images-idx3-ubyte.gz")):
        print(f"skipped: no {DATA} (apt-get install dataset-fashion-mnist)")
        return SKIP
    bam_knn, work = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    os.makedirs(work, exist_ok=True)
    conv = os.path.join(HERE, "..", "..", "bench", "vector_search", "fashion_mnist.py")
    subprocess.run([sys.executable, conv, DATA, work], check=True)
    base = np.load(os.path.join(work, "base.npy")).astype(np.float32)
    queries = np.load(os.path.join(work, "queries.npy"))[:n]
    np.save(os.path.join(work, "q.npy"), queries)
    xq = queries.astype(np.float32)
    run = lambda *args: subprocess.run([bam_knn, *args], check=True, stdout=subprocess.PIPE, text=True).stdout

    faiss.omp_set_num_threads(os.cpu_count())
    flat = faiss.IndexFlatL2(base.shape[1])
    flat.add(base)
    _, exact = flat.search(xq, 100)

    run("groundtruth", "--base", os.path.join(work, "base.npy"), "-q", os.path.join(work, "q.npy"), "-k", "100",
        "--out", os.path.join(work, "gt.ivecs"), "--cpu")
    raw = np.fromfile(os.path.join(work, "gt.ivecs"), dtype=np.int32).reshape(n, 101)[:, 1:]
    agree = np.mean([len(set(a) & set(b)) / 100 for a, b in zip(raw, exact)])
    print(f"ground truth: bam vs FAISS exact recall@100 = {agree:.5f}")

    index = os.path.join(work, "fashion.ivf")
    run("build", "--base", os.path.join(work, "base.npy"), "--out", index, "--lists", "64", "--iterations", "6", "--cpu")
    q = os.path.join(work, "q.npy")
    few = os.path.join(work, "q_few.npy")
    np.save(few, queries[:5])  # through the emulated controller on CI's two cores: a few queries
    ivecs = lambda path, rows: np.fromfile(path, dtype=np.int32).reshape(rows, 11)[:, 1:]
    summary = json.loads(run("search", "--index", index, "-q", few, "-k", "10", "--nprobe", "8", "--cpu",
                             "--cache-fraction", "0.5", "--workers", "1", "--out", os.path.join(work, "bam.ivecs")))
    run("search", "--index", index, "-q", q, "-k", "10", "--nprobe", "8", "--cpu", "--source", "memory",
        "--out", os.path.join(work, "memory.ivecs"))
    found = ivecs(os.path.join(work, "memory.ivecs"), n)
    same_as_memory = bool(np.array_equal(ivecs(os.path.join(work, "bam.ivecs"), 5), found[:5]))
    ours = np.mean([len(set(a) & set(b[:10])) / 10 for a, b in zip(found, exact)])

    sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "vector_search"))
    from peers import faiss_ivf, read_index
    ivf = faiss_ivf(read_index(index))
    ivf.nprobe = 8
    _, theirs_ids = ivf.search(xq, 10)
    theirs = np.mean([len(set(a) & set(b[:10])) / 10 for a, b in zip(theirs_ids, exact)])
    through_bam = summary["rows"][0]
    print(f"IVF (64 lists, nprobe 8): bam recall@10 {ours:.4f}, FAISS with the same lists {theirs:.4f}; "
          f"through bam's page cache: {through_bam['cache_hit_rate']:.3f} hit rate, same ids as from memory: "
          f"{same_as_memory}")

    ok = agree >= 0.999 and ours >= 0.9 and abs(ours - theirs) <= 0.01 and same_as_memory
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
