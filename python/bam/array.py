# SPDX-License-Identifier: Apache-2.0
"""bam.Array: a mapped array. On a CPU cache, index arrays and values are host tensors (NumPy,
torch, anything with DLPack) and results are NumPy arrays; on a GPU cache they are CUDA tensors
(torch or CuPy; host inputs are copied over) and every operation runs on a CUDA stream (``stream``:
torch's current stream by default), waiting for that stream only. ``out`` takes a tensor the
caller allocated."""
from . import _tensors


class Array:
    """Rows of a 1-D or 2-D array on storage, through the page cache."""

    def __init__(self, native, cache):
        self._a = native
        self._device = cache.device

    dtype = property(lambda self: self._a.dtype)
    shape = property(lambda self: tuple(self._a.shape))
    name = property(lambda self: self._a.name)

    def __len__(self):
        return self.shape[0]

    @property
    def _on_gpu(self):
        return self._device >= 0

    def _stream(self, stream):
        return _tensors.stream_handle(stream, self._on_gpu)

    def _empty(self, n, like):
        return _tensors.empty((n,) + self.shape[1:], self.dtype, self._on_gpu, self._device, like)

    def stats(self, stream=None):
        """This array's counters (accesses, hits, misses, ...) and hit rate."""
        return self._a.stats(self._stream(stream))

    def gather(self, index, out=None, stream=None):
        """Rows ``index`` (a 1-D integer tensor) of the array: ``out[k] = self[index[k]]``."""
        raw = index
        index = _tensors.index(index, self._on_gpu, self._device)
        out = self._empty(len(index), raw) if out is None else out
        self._a.gather(index, out, self._stream(stream))
        return out

    def read(self, rows=slice(None), out=None, stream=None):
        """Rows ``rows`` (a slice with step 1) of the array."""
        if not isinstance(rows, slice):
            raise ValueError("read: rows must be a slice; use gather() for an index")
        start, stop, step = rows.indices(len(self))
        if step != 1:
            raise ValueError("read: the slice's step must be 1; use gather() for strided rows")
        n = max(0, stop - start)
        out = self._empty(n, None) if out is None else out
        self._a.read(start, n, out, self._stream(stream))
        return out

    def write(self, index, values, stream=None):
        """``self[index[k]] = values[k]``; flush() makes it durable."""
        index = _tensors.index(index, self._on_gpu, self._device)
        self._a.write(index, _tensors.values(values, self._on_gpu, self._device, index), self._stream(stream))

    def scatter_add(self, index, values, stream=None):
        """``self[index[k]] += values[k]`` atomically (repeated indices add up); float32, int32, int64."""
        index = _tensors.index(index, self._on_gpu, self._device)
        self._a.scatter_add(index, _tensors.values(values, self._on_gpu, self._device, index),
                            self._stream(stream))
