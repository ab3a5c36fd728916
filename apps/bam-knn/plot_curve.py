#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Recall-vs-throughput curves over nprobe, as PNG, from bam-knn or bench/vector_search JSON.

usage: plot_curve.py SUMMARY.json OUT.png

A bam-knn search summary has one curve ("rows": nprobe, qps, recall_at_k). A bench report has
a "curves" table (rows with series, nprobe, qps, recall_at_10); each series becomes a curve.
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def curves(doc):
    if "rows" in doc and isinstance(doc["rows"], list) and doc.get("command") == "search":
        pts = [r for r in doc["rows"] if isinstance(r.get("nprobe"), int) and "recall_at_k" in r]
        return {f"{doc['source']} ({doc['device']})": pts}, f"recall@{doc['k']}", "recall_at_k"
    out = {}
    for r in doc["tables"]["curves"]:
        out.setdefault(r["series"], []).append(r)
    return out, "recall@10", "recall_at_10"


def main():
    doc = json.load(open(sys.argv[1]))
    series, label, key = curves(doc)
    fig, ax = plt.subplots(figsize=(8, 5))
    for name, pts in series.items():
        pts = sorted(pts, key=lambda r: r["nprobe"])
        ax.plot([p[key] for p in pts], [p["qps"] for p in pts], marker="o", label=name)
        for p in pts:
            ax.annotate(str(p["nprobe"]), (p[key], p["qps"]), fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.set_xlabel(label)
    ax.set_ylabel("queries per second")
    ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title("recall vs throughput over nprobe (labels: nprobe)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)


if __name__ == "__main__":
    main()
