# SPDX-License-Identifier: Apache-2.0
"""bam.pyg.FeatureStore against the tensors put in (runs where torch_geometric is installed)."""
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

import bam  # noqa: E402
from bam.pyg import FeatureStore, InMemoryGraphStore  # noqa: E402

DEVICES = ["cpu"] + (["cuda"] if bam.cuda and bam.cuda_devices() > 0 and torch.cuda.is_available() else [])


@pytest.fixture(params=DEVICES)
def any_cache(request):
    """A 64-page cache on the CPU, and on the GPU where there is one."""
    return bam.PageCache([bam.ram_namespace(1 << 16)], page_bytes=4096, cache_bytes=64 * 4096, device=request.param)


def test_feature_store_round_trip(any_cache):
    cache = any_cache
    store = FeatureStore(cache)
    x = torch.randn(1000, 32)
    y = torch.randint(0, 5, (1000,))
    store.put_tensor(x, group_name="paper", attr_name="x", index=None)
    store.put_tensor(y, group_name="paper", attr_name="y", index=None)
    index = torch.tensor([0, 999, 17, 17])
    got = store.get_tensor(group_name="paper", attr_name="x", index=index)
    assert got.is_cuda == cache.on_gpu and torch.equal(got.cpu(), x[index])
    assert torch.equal(store.get_tensor(group_name="paper", attr_name="y", index=slice(10, 20)).cpu(), y[10:20])
    assert tuple(store.get_tensor_size(group_name="paper", attr_name="x")) == (1000, 32)
    store.put_tensor(torch.zeros(1, 32), group_name="paper", attr_name="x", index=torch.tensor([5]))
    assert not store.get_tensor(group_name="paper", attr_name="x", index=torch.tensor([5])).any()
    assert len(store.get_all_tensor_attrs()) == 2
    assert store.remove_tensor(group_name="paper", attr_name="y", index=None)


def test_neighbor_loader_gathers_through_the_feature_store(any_cache):
    import torch_geometric.typing as pyg_typing
    if not (pyg_typing.WITH_PYG_LIB or pyg_typing.WITH_TORCH_SPARSE):
        pytest.skip("PyG has no neighbour sampling backend here (pyg-lib or torch-sparse)")
    from torch_geometric.loader import NeighborLoader
    n = 3000
    x = torch.randn(n, 48)
    edge_index = torch.randint(0, n, (2, 30000))
    features, graph = FeatureStore(any_cache), InMemoryGraphStore()
    features.put_tensor(x, group_name=None, attr_name="x", index=None)
    graph.put_edge_index(edge_index, edge_type=None, layout="coo", size=(n, n))
    loader = NeighborLoader((features, graph), num_neighbors=[10, 5], batch_size=128, input_nodes=torch.arange(n))
    for step, batch in enumerate(loader):
        assert batch.x.is_cuda == any_cache.on_gpu
        assert torch.equal(batch.x.cpu(), x[batch.n_id.cpu()])
        if step == 4:
            break
    any_cache.check()
