#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Per-step cache profile as PNG: of a bam graph app run, the demo, or bam.Profile.

usage: plot_profile.py SUMMARY.json OUT.png   (or bam.plot_profile.plot(doc, path) from Python)

Draws, for every trial in the JSON summary (bam-bfs / bam-cc / bam-pagerank / bam-sssp, bam-demo,
bam.Profile), the cache hits, misses and MiB read by each step (BFS level, CC phase, PageRank
iteration, SSSP round or bucket change, a Profile step), and the step times. Standalone (the C++
apps run it by path): it needs matplotlib only. As a script it exits 3 with a message when
matplotlib is not installed.
"""
import json
import sys


def plot(doc, png):
    """Writes the PNG of the profile document ``doc`` to ``png``; raises ImportError without matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    trials = [t for t in doc["trials"] if t.get("profile")]
    cached = any("cache" in s for t in trials for s in t["profile"])
    fig, axes = plt.subplots(2 if cached else 1, 1, figsize=(9, 7 if cached else 4), squeeze=False)
    for n, t in enumerate(trials):
        steps = [s["iteration"] for s in t["profile"]]
        label = f"trial {n + 1}" + (f" (source {t['source']})" if "source" in t else "")
        axes[-1][0].plot(steps, [s["seconds"] * 1e3 for s in t["profile"]], marker=".", label=label)
        if cached:
            ax = axes[0][0]
            ax.plot(steps, [s["cache"]["hits"] for s in t["profile"]], marker="o", label=f"{label}: hits")
            ax.plot(steps, [s["cache"]["misses"] for s in t["profile"]], marker="x", label=f"{label}: misses")
            ax2 = ax.twinx() if n == 0 else ax2  # noqa: F821 (bound on the first trial)
            ax2.plot(steps, [s["cache"]["bytes_read"] / 2**20 for s in t["profile"]], linestyle="--",
                     label=f"{label}: MiB read")
            ax2.set_ylabel("MiB read from storage (dashed)")
    if cached:
        axes[0][0].set_ylabel("page lookups")
        axes[0][0].set_yscale("symlog")
        axes[0][0].legend(fontsize=7, loc="upper left")
        axes[0][0].set_title(f"{doc['command']} on {doc['graph']}: cache profile per step "
                             f"({doc['backend']}, cache {doc['cache_bytes'] / 2**20:.1f} MiB)")
    axes[-1][0].set_xlabel("step (level / phase / iteration / round)")
    axes[-1][0].set_ylabel("ms per step")
    axes[-1][0].legend(fontsize=7)
    axes[-1][0].grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(png, dpi=120)
    plt.close(fig)


def main():
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    try:
        plot(doc, sys.argv[2])
    except ImportError:
        print("plot_profile.py: matplotlib is not installed (Debian: apt-get install python3-matplotlib); "
              "no PNG written", file=sys.stderr)
        sys.exit(3)


if __name__ == "__main__":
    main()
