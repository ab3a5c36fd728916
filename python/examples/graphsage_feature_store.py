# SPDX-License-Identifier: Apache-2.0
"""Trains GraphSAGE for a few steps on a generated power-law graph twice, with the same seeds:
once with node features in memory, once with them on storage behind bam.pyg.FeatureStore (an
emulated RAM namespace, a cache of 1/8 of the features), and checks that the losses match.
With CUDA (and bam built with it) the model trains on the GPU and bam gathers each batch's
features there, on torch's current stream. Batches come from PyG's NeighborLoader where PyG has
a sampling backend (pyg-lib or torch-sparse), else from a small seeded sampler below that asks
the same FeatureStore for each batch's rows.

    python python/examples/graphsage_feature_store.py [--nodes 20000] [--steps 5]
"""
import argparse

import torch
import torch.nn.functional as F
import torch_geometric.typing as pyg_typing
from torch_geometric.data import Data
from torch_geometric.loader import NeighborLoader
from torch_geometric.nn import GraphSAGE

import bam
from bam.pyg import FeatureStore, InMemoryGraphStore


def power_law_graph(n, avg_degree, generator):
    """Edges whose sources are drawn with probability ~ 1 / rank (a Zipf-like degree law)."""
    weights = 1.0 / torch.arange(1, n + 1, dtype=torch.float64)
    src = torch.multinomial(weights, n * avg_degree, replacement=True, generator=generator)
    dst = torch.randint(0, n, (n * avg_degree,), generator=generator)
    return torch.stack([src, dst])


def sampled_batches(edge_index, n, fanouts, batch_size, seed):
    """(node ids, local edge_index) of each mini-batch: seeds first, then `fanouts` neighbours
    per node and layer drawn with replacement (for PyG installations without a sampler)."""
    g = torch.Generator().manual_seed(seed)
    src = edge_index[0][edge_index[1].argsort(stable=True)]  # sources of the edges into each node
    rowptr = torch.zeros(n + 1, dtype=torch.int64)
    rowptr[1:] = torch.cumsum(torch.bincount(edge_index[1], minlength=n), 0)
    for first in range(0, n, batch_size):
        seeds = torch.arange(first, min(n, first + batch_size))
        frontier, srcs, dsts = seeds, [], []
        for f in fanouts:
            start, degree = rowptr[frontier], rowptr[frontier + 1] - rowptr[frontier]
            pick = (torch.rand(frontier.numel(), f, generator=g) * degree[:, None]).to(torch.int64)
            keep = (degree > 0)[:, None].expand(-1, f)
            neighbours = src[(start[:, None] + pick).clamp(max=src.numel() - 1)][keep]
            srcs.append(neighbours)
            dsts.append(frontier[:, None].expand(-1, f)[keep])
            frontier = torch.unique(neighbours)
        others = torch.unique(torch.cat(srcs))
        n_id = torch.cat([seeds, others[~torch.isin(others, seeds)]])
        local = torch.full((n,), -1, dtype=torch.int64)
        local[n_id] = torch.arange(n_id.numel())
        yield n_id, torch.stack([local[torch.cat(srcs)], local[torch.cat(dsts)]]), seeds.numel()


def train(batches, steps, in_channels, classes, device):
    """`batches` yields (x, y, edge_index, batch_size); returns the loss of each step."""
    torch.manual_seed(0)
    model = GraphSAGE(in_channels, 64, num_layers=2, out_channels=classes).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    losses = []
    for step, (x, y, edge_index, batch_size) in enumerate(batches):
        if step == steps:
            break
        optimizer.zero_grad()
        out = model(x.to(device), edge_index.to(device))[:batch_size]
        loss = F.cross_entropy(out, y.to(device)[:batch_size])
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def from_loader(loader):
    return ((b.x, b.y, b.edge_index, b.batch_size) for b in loader)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nodes", type=int, default=20000)
    p.add_argument("--features", type=int, default=128)
    p.add_argument("--steps", type=int, default=5)
    args = p.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() and bam.cuda and bam.cuda_devices() else "cpu")
    g = torch.Generator().manual_seed(1)
    n, f, classes = args.nodes, args.features, 8
    x = torch.randn(n, f, generator=g)
    y = torch.randint(0, classes, (n,), generator=g)
    edge_index = power_law_graph(n, 10, g)
    kwargs = dict(num_neighbors=[15, 10], batch_size=256, shuffle=False)
    with_pyg_sampler = pyg_typing.WITH_PYG_LIB or pyg_typing.WITH_TORCH_SPARSE

    torch.manual_seed(2)
    if with_pyg_sampler:
        batches = from_loader(NeighborLoader(Data(x=x, y=y, edge_index=edge_index), **kwargs))
    else:
        batches = ((x[n_id], y[n_id], ei, bs) for n_id, ei, bs in sampled_batches(edge_index, n, [15, 10], 256, 3))
    in_memory = train(batches, args.steps, f, classes, device)

    feature_bytes = x.numel() * 4
    ns = bam.ram_namespace(-(-2 * feature_bytes // 512) + 64)
    cache = bam.PageCache([ns], cache_bytes=max(64 * 4096, feature_bytes // 8 // 4096 * 4096), device=device.type)
    features = FeatureStore(cache)
    features.put_tensor(x, group_name=None, attr_name="x", index=None)
    features.put_tensor(y, group_name=None, attr_name="y", index=None)
    graph = InMemoryGraphStore()
    graph.put_edge_index(edge_index, edge_type=None, layout="coo", size=(n, n))
    torch.manual_seed(2)
    if with_pyg_sampler:
        batches = from_loader(NeighborLoader((features, graph), input_nodes=torch.arange(n), **kwargs))
    else:
        batches = ((features.get_tensor(group_name=None, attr_name="x", index=n_id),
                    features.get_tensor(group_name=None, attr_name="y", index=n_id), ei, bs)
                   for n_id, ei, bs in sampled_batches(edge_index, n, [15, 10], 256, 3))
    on_storage = train(batches, args.steps, f, classes, device)
    cache.check()
    stats = cache.stats()
    print(f"losses in memory : {[round(v, 5) for v in in_memory]}")
    print(f"losses on storage: {[round(v, 5) for v in on_storage]}")
    source = "NeighborLoader" if with_pyg_sampler else "the fallback sampler"
    print(f"batches from {source}; cache on {device}: hit rate {stats['hit_rate']:.3f}, "
          f"{stats['bytes_read'] >> 20} MiB read from storage")
    # The same features and seeds; on the GPU, scatter-add aggregation sums in any order.
    tolerance = 1e-5 if device.type == "cpu" else 1e-4
    if len(on_storage) != len(in_memory) or any(abs(a - b) > tolerance for a, b in zip(in_memory, on_storage)):
        raise SystemExit("FAIL: the losses differ")
    print("OK: the losses match")


if __name__ == "__main__":
    main()
