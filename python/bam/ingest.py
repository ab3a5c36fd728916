# SPDX-License-Identifier: Apache-2.0
"""Ingest: put a NumPy array (or an .npy file) on storage in the layout PageCache.map() expects."""
import numpy as np


def write_array(cache, name, values, nsid=1, start_lba=0, chunk_rows=1 << 16):
    """Writes ``values`` (1-D or 2-D) through ``cache`` at ``start_lba`` of namespace ``nsid``,
    flushes, and returns the mapped bam.Array (dtype and shape of ``values``)."""
    array = cache.map(name, values.dtype.name, values.shape, nsid=nsid, start_lba=start_lba)
    for first in range(0, values.shape[0], chunk_rows):
        rows = np.ascontiguousarray(values[first:first + chunk_rows])
        array.write(np.arange(first, first + rows.shape[0], dtype=np.int64), rows)
    cache.flush()
    return array


def write_npy(cache, name, path, nsid=1, start_lba=0, chunk_rows=1 << 16):
    """As write_array, from an .npy file read through a memory map (files larger than RAM work)."""
    return write_array(cache, name, np.load(path, mmap_mode="r"), nsid, start_lba, chunk_rows)
