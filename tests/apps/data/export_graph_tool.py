#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Exports networks shipped by Debian's python3-graph-tool as gzipped edge lists for the tests.

Run once with python3-graph-tool installed (it is too heavy for CI):
    /usr/bin/python3 tests/apps/data/export_graph_tool.py tests/apps/data
Each output line is "source target", 0-based vertex indices in graph-tool's order, one line per
edge as graph-tool stores it (undirected graphs: each edge once).
"""
import gzip
import sys

import graph_tool.all as gt

NETWORKS = ["email-Enron", "pgp-strong-2009"]


def main(out_dir):
    for name in NETWORKS:
        g = gt.collection.data[name]
        kind = "directed" if g.is_directed() else "undirected"
        path = f"{out_dir}/{name}.el.gz"
        with gzip.GzipFile(path, "wb", mtime=0) as out:
            out.write(f"# {name} from graph-tool's collection ({kind}): "
                      f"{g.num_vertices()} vertices, {g.num_edges()} edges\n".encode())
            for s, t in g.iter_edges():
                out.write(f"{s} {t}\n".encode())
        print(path, kind, g.num_vertices(), g.num_edges())


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
