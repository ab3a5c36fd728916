# SPDX-License-Identifier: Apache-2.0
"""bam.pyg.FeatureStore against the tensors put in (runs where torch_geometric is installed)."""
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

from bam.pyg import FeatureStore  # noqa: E402


def test_feature_store_round_trip(cache):
    store = FeatureStore(cache)
    x = torch.randn(1000, 32)
    y = torch.randint(0, 5, (1000,))
    store.put_tensor(x, group_name="paper", attr_name="x", index=None)
    store.put_tensor(y, group_name="paper", attr_name="y", index=None)
    index = torch.tensor([0, 999, 17, 17])
    assert torch.equal(store.get_tensor(group_name="paper", attr_name="x", index=index), x[index])
    assert torch.equal(store.get_tensor(group_name="paper", attr_name="y", index=slice(10, 20)), y[10:20])
    assert tuple(store.get_tensor_size(group_name="paper", attr_name="x")) == (1000, 32)
    store.put_tensor(torch.zeros(1, 32), group_name="paper", attr_name="x", index=torch.tensor([5]))
    assert not store.get_tensor(group_name="paper", attr_name="x", index=torch.tensor([5])).any()
    assert len(store.get_all_tensor_attrs()) == 2
    assert store.remove_tensor(group_name="paper", attr_name="y", index=None)
