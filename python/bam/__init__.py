# SPDX-License-Identifier: Apache-2.0
"""bam: NVMe storage (or an emulated NVMe controller over RAM, a file or synthetic data) indexed
as arrays through a page cache, on the GPU (kernels on the caller's CUDA stream, CUDA tensors) or
on CPU threads (host tensors). Tensors cross through DLPack: NumPy arrays, torch tensors and CuPy
arrays are taken without copies; results come back as NumPy arrays on a CPU cache and as torch
(or CuPy) tensors on a GPU cache, unless ``out`` is given.
"""
from ._bam import Namespace, cuda, cuda_devices  # noqa: F401
from ._bam import ram_namespace as _ram, file_namespace as _file, synthetic_namespace as _synthetic
from ._bam import PageCache as _PageCache, map_array as _map_array
from . import _tensors
from .array import Array
from .ingest import write_array, write_namespace, write_npy
from .profile import Profile

__all__ = ["Namespace", "Array", "PageCache", "Profile", "ram_namespace", "file_namespace", "synthetic_namespace",
           "write_array", "write_namespace", "write_npy", "cuda", "cuda_devices"]


def ram_namespace(n_blocks, block_size=512):
    """A namespace of ``n_blocks`` zeroed blocks in RAM."""
    return _ram(block_size, n_blocks)


def file_namespace(path, n_blocks=0, block_size=512, create=False, direct=True):
    """A namespace backed by a file or block device (``n_blocks=0``: the whole file)."""
    return _file(str(path), block_size, n_blocks, create, direct)


def synthetic_namespace(n_blocks, block_size=512, seed=0, overlay_blocks=1 << 16):
    """A namespace whose content is a function of the LBA (bam::synthetic_word), with room for
    ``overlay_blocks`` written blocks."""
    return _synthetic(block_size, n_blocks, seed, overlay_blocks)


class PageCache(_PageCache):
    """An emulated system (one emulated NVMe controller per entry of ``controllers``, each a
    namespace or a list of namespaces, nsid = position + 1) with a page cache over it.

    ``drive`` names a timing model ("optane-p5800x", "980pro"; None: complete at once) of
    ``n_drives`` striped drives. Pages are striped over the controllers.

    ``device``: "cuda" (slots in VRAM, queues driven by GPU threads, operations as kernels on a
    CUDA stream), "cpu" (CPU threads), or None for "cuda" when this build has CUDA and a GPU is
    present, else "cpu". Host operations (``check``, ``flush``, statistics) take ``stream`` too.
    """

    def __init__(self, controllers, *, page_bytes=4096, cache_bytes=64 << 20, workers_per_controller=2,
                 queue_pairs=16, queue_depth=256, drive=None, n_drives=1, timeout_s=10.0,
                 statistics=True, latency_histogram=True, max_arrays=64, device=None):
        if isinstance(controllers, Namespace):
            controllers = [controllers]
        controllers = [[c] if isinstance(c, Namespace) else list(c) for c in controllers]
        if device is None:
            device = "cuda" if cuda and cuda_devices() > 0 else "cpu"
        super().__init__(controllers, workers_per_controller, queue_pairs, queue_depth, drive, n_drives,
                         page_bytes, cache_bytes, timeout_s, statistics, latency_histogram, max_arrays,
                         str(device))

    @property
    def on_gpu(self):
        """True when the cache is on a GPU (``device`` is its CUDA device; -1 on the CPU)."""
        return self.device >= 0

    def _stream(self, stream):
        return _tensors.stream_handle(stream, self.on_gpu)

    def check(self, stream=None):
        """Raises the first failure the accesses recorded since the last check (RuntimeError with
        array, page, controller, queue, command, LBA), after the work queued on ``stream``."""
        super().check(self._stream(stream))

    def flush(self, stream=None):
        """Writes every dirty page back and flushes every namespace mapped, after the work queued
        on ``stream``; raises like check()."""
        super().flush(self._stream(stream))

    def stats(self, stream=None):
        """The counters of every array together (accesses, hits, misses, ...) and the hit rate."""
        return super().stats(self._stream(stream))

    def reset_stats(self, stream=None):
        super().reset_stats(self._stream(stream))

    def latency_histogram(self, stream=None):
        """Commands per latency bucket: bucket b counts latencies in [2^b, 2^(b+1)) ns."""
        return super().latency_histogram(self._stream(stream))

    def stats_json(self, stream=None):
        return super().stats_json(self._stream(stream))

    def stats_table(self, stream=None):
        return super().stats_table(self._stream(stream))

    def map(self, name, dtype, shape, nsid=1, start_lba=0):
        """Maps an array of ``dtype`` ("float32", "float16", "bfloat16", "int32", "int64", "uint8",
        or a NumPy/torch dtype of those) and ``shape`` (1-D or 2-D, row-major) stored from
        ``start_lba`` of namespace ``nsid``."""
        shape = (int(shape),) if isinstance(shape, int) else tuple(int(s) for s in shape)
        return Array(_map_array(self, name, _dtype_name(dtype), list(shape), nsid, start_lba), self)


    def add_fault(self, effect, *, controller=0, lba_first=0, lba_last=(1 << 64) - 1, delay_ns=0, every_nth=1,
                  probability=1.0):
        """Injects a fault into the emulated controller ``controller``: I/O commands overlapping
        blocks [lba_first, lba_last] complete with a media error (``effect="media_error"``),
        ``delay_ns`` late (``"delay"``), or never (``"drop"``: the access times out). Returns the
        rule's id."""
        return super().add_fault(controller, effect, lba_first, lba_last, delay_ns, every_nth, probability)


def _dtype_name(dtype):
    name = str(dtype)
    for prefix in ("torch.", "numpy.", "<class 'numpy."):
        if name.startswith(prefix):
            name = name[len(prefix):]
    name = name.rstrip("'>")
    return {"float": "float32", "half": "float16", "int": "int32", "long": "int64"}.get(name, name)
