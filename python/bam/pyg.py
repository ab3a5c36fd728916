# SPDX-License-Identifier: Apache-2.0
"""bam.pyg.FeatureStore: a torch_geometric.data.FeatureStore whose tensors live on storage and
are gathered through bam, so ``NeighborLoader(data=(feature_store, graph_store), ...)`` trains on
features larger than memory. On a GPU cache the rows are gathered by a kernel on torch's current
stream and come back on the GPU (the index may be on the CPU, as NeighborLoader's is); on a CPU
cache they come back on the index's device. Needs torch and torch_geometric (imported here, not
by ``bam``)."""
import numpy as np
import torch
from torch_geometric.data import FeatureStore as _FeatureStore
from torch_geometric.data import GraphStore as _GraphStore
from torch_geometric.data import TensorAttr

from .ingest import write_array


class FeatureStore(_FeatureStore):
    """Feature tensors of ``cache``: put whole tensors (they are written to namespace ``nsid``
    one after another from ``start_lba``, each starting on a page), or ``register`` arrays
    already on storage; ``get_tensor`` reads a slice or gathers the rows of an index."""

    def __init__(self, cache, nsid=1, start_lba=0, block_size=512):
        super().__init__()
        self._cache = cache
        self._nsid = nsid
        self._next_lba = start_lba
        self._block_size = block_size
        self._arrays = {}

    @staticmethod
    def _key(attr):
        return (attr.group_name, attr.attr_name)

    def register(self, array, group_name=None, attr_name="x"):
        """Serves ``array`` (a bam.Array) as the tensor (group_name, attr_name)."""
        self._arrays[(group_name, attr_name)] = array

    def _put_tensor(self, tensor, attr):
        key = self._key(attr)
        if key in self._arrays:
            if attr.index is None:
                raise ValueError(f"FeatureStore: {key} exists; put rows with an index or remove it first")
            self._arrays[key].write(self._index(attr.index), self._values(tensor))
            return True
        if attr.index is not None:
            raise ValueError(f"FeatureStore: {key} does not exist; put the whole tensor first")
        values = tensor.detach().cpu().contiguous().numpy()  # write_array streams it in chunks
        name = "/".join(str(k) for k in key if k is not None)
        self._arrays[key] = write_array(self._cache, name, values, nsid=self._nsid, start_lba=self._next_lba)
        pages = -(-values.nbytes // self._cache.page_bytes)
        self._next_lba += pages * (self._cache.page_bytes // self._block_size)
        return True

    def _get_tensor(self, attr):
        array = self._arrays.get(self._key(attr))
        if array is None:
            return None
        index = attr.index
        if index is None:
            return _as_tensor(array.read())
        if isinstance(index, slice):
            return _as_tensor(array.read(index))
        if self._cache.on_gpu:
            return array.gather(self._index(index))
        device = index.device if isinstance(index, torch.Tensor) else torch.device("cpu")
        return _as_tensor(array.gather(self._index(index))).to(device)

    def _remove_tensor(self, attr):
        return self._arrays.pop(self._key(attr), None) is not None

    def _get_tensor_size(self, attr):
        return self._arrays[self._key(attr)].shape

    def get_all_tensor_attrs(self):
        return [TensorAttr(group_name=g, attr_name=n) for (g, n) in self._arrays]


    def _index(self, index):
        """An int64 index where the cache runs (a GPU cache takes it on its device)."""
        if not isinstance(index, torch.Tensor):
            index = torch.as_tensor(np.asarray(index, dtype=np.int64))
        device = f"cuda:{self._cache.device}" if self._cache.on_gpu else "cpu"
        return index.detach().to(device=device, dtype=torch.int64)

    def _values(self, tensor):
        if self._cache.on_gpu:
            return tensor.detach().to(f"cuda:{self._cache.device}").contiguous()
        return tensor.detach().cpu().contiguous().numpy()


class InMemoryGraphStore(_GraphStore):
    """A torch_geometric.data.GraphStore holding the edge indices in memory, to pair with
    FeatureStore when only the features go to storage."""

    def __init__(self):
        super().__init__()
        self._store = {}

    def _put_edge_index(self, edge_index, edge_attr):
        self._store[(edge_attr.edge_type, edge_attr.layout)] = (edge_index, edge_attr)
        return True

    def _get_edge_index(self, edge_attr):
        entry = self._store.get((edge_attr.edge_type, edge_attr.layout))
        return None if entry is None else entry[0]

    def _remove_edge_index(self, edge_attr):
        return self._store.pop((edge_attr.edge_type, edge_attr.layout), None) is not None

    def get_all_edge_attrs(self):
        return [attr for _, attr in self._store.values()]


def _as_tensor(values):
    return values if isinstance(values, torch.Tensor) else torch.from_numpy(values)
