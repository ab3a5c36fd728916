# SPDX-License-Identifier: Apache-2.0
"""bam.Array: a mapped array. Index arrays and values may be any DLPack tensor on the host
(NumPy, torch); results are NumPy arrays unless ``out`` is given (bfloat16 needs ``out`` or torch)."""
import numpy as np

_NUMPY = {"float32": np.float32, "float16": np.float16, "int32": np.int32, "int64": np.int64, "uint8": np.uint8}


def _index(index):
    """A 1-D int64 index (other integer dtypes are converted; floats are rejected)."""
    if isinstance(index, (list, tuple, range)):
        index = np.asarray(index, dtype=np.int64)
    elif not isinstance(index, np.ndarray) and hasattr(index, "__dlpack__"):
        try:
            index = np.from_dlpack(index)
        except (RuntimeError, TypeError, BufferError) as e:
            raise ValueError(f"index: not a host tensor NumPy can view ({e})") from None
    index = np.asarray(index)
    if index.ndim != 1:
        raise ValueError(f"index: must be 1-D, got {index.ndim} dimensions")
    if not np.issubdtype(index.dtype, np.integer):
        raise ValueError(f"index: must hold integers, got {index.dtype}")
    return np.ascontiguousarray(index, dtype=np.int64)


class Array:
    """Rows of a 1-D or 2-D array on storage, through the page cache."""

    def __init__(self, native):
        self._a = native

    dtype = property(lambda self: self._a.dtype)
    shape = property(lambda self: tuple(self._a.shape))
    name = property(lambda self: self._a.name)

    def __len__(self):
        return self.shape[0]

    def stats(self):
        """This array's counters (accesses, hits, misses, ...) and hit rate."""
        return self._a.stats()

    def _empty(self, n):
        shape = (n,) + self.shape[1:]
        if self.dtype in _NUMPY:
            return np.empty(shape, dtype=_NUMPY[self.dtype])
        try:
            import torch
        except ImportError:
            raise ValueError(f"{self.name} holds {self.dtype}, which NumPy lacks: pass out= (e.g. a torch tensor)") from None
        return torch.empty(shape, dtype=getattr(torch, self.dtype))

    def gather(self, index, out=None):
        """Rows ``index`` (a 1-D integer tensor) of the array: ``out[k] = self[index[k]]``."""
        index = _index(index)
        out = self._empty(len(index)) if out is None else out
        self._a.gather(index, out)
        return out

    def read(self, rows=slice(None), out=None):
        """Rows ``rows`` (a slice with step 1) of the array."""
        if not isinstance(rows, slice):
            raise ValueError("read: rows must be a slice; use gather() for an index")
        start, stop, step = rows.indices(len(self))
        if step != 1:
            raise ValueError("read: the slice's step must be 1; use gather() for strided rows")
        n = max(0, stop - start)
        out = self._empty(n) if out is None else out
        self._a.read(start, n, out)
        return out

    def write(self, index, values):
        """``self[index[k]] = values[k]``; flush() makes it durable."""
        self._a.write(_index(index), values)

    def scatter_add(self, index, values):
        """``self[index[k]] += values[k]`` atomically (repeated indices add up); float32, int32, int64."""
        self._a.scatter_add(_index(index), values)
