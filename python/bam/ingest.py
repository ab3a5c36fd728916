# SPDX-License-Identifier: Apache-2.0
"""Ingest: put a NumPy array (or an .npy file) on storage in the layout PageCache.map() expects:
through a cache (any namespace or stripe), or straight into one namespace before a cache maps it."""
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


def write_namespace(namespace, values, start_lba=0, chunk_bytes=64 << 20):
    """Writes the bytes of ``values`` (a C-contiguous NumPy array, or anything NumPy views) to
    ``namespace`` from ``start_lba``, zero-padding the last block, without a cache: the layout
    ``map(..., start_lba=start_lba)`` reads on a cache over this namespace alone (one controller).
    Do it before a cache maps these blocks (a cache does not see writes that bypass it). Returns
    the blocks written."""
    data = np.ascontiguousarray(values).reshape(-1).view(np.uint8)
    block = namespace.block_size
    chunk = max(block, chunk_bytes // block * block)
    whole = data.size // block * block
    lba = start_lba
    for first in range(0, whole, chunk):
        piece = data[first:min(whole, first + chunk)]
        namespace.write_blocks(lba, piece)
        lba += piece.size // block
    if whole < data.size:
        tail = np.zeros(block, np.uint8)
        tail[:data.size - whole] = data[whole:]
        namespace.write_blocks(lba, tail)
        lba += 1
    return lba - start_lba
