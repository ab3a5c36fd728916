# SPDX-License-Identifier: Apache-2.0
"""Bad arguments raise ValueError / IndexError before any work runs, naming what was wrong."""
import numpy as np
import pytest

import bam


@pytest.fixture
def a(cache):
    return bam.write_array(cache, "feat", np.arange(40, dtype=np.float32).reshape(10, 4))


def test_out_of_range_indices(a, cache):
    cache.reset_stats()
    with pytest.raises(IndexError, match=r"index\[1\] = 10 is out of range for feat with 10 rows"):
        a.gather([0, 10])
    with pytest.raises(IndexError, match="out of range"):
        a.write([-1], np.zeros((1, 4), np.float32))
    assert cache.stats()["accesses"] == 0, "bad indices are caught before any access"
    np.testing.assert_array_equal(a.read(), np.arange(40, dtype=np.float32).reshape(10, 4))


def test_wrong_dtype_shape_and_layout(a):
    with pytest.raises(ValueError, match="values: dtype must be float32"):
        a.write([0], np.zeros((1, 4), np.float64))
    with pytest.raises(ValueError, match=r"values: shape must be \(2,4,\)"):
        a.write([0, 1], np.zeros((1, 4), np.float32))
    with pytest.raises(ValueError, match="out: must be C-contiguous"):
        a.gather([0, 1], out=np.zeros((4, 2), np.float32).T)
    with pytest.raises(ValueError, match="index: must hold integers"):
        a.gather(np.array([0.5]))
    with pytest.raises(ValueError, match="step must be 1"):
        a.read(slice(0, 10, 2))


def test_bad_maps(cache):
    with pytest.raises(ValueError, match="dtype 'complex64' is not one of"):
        cache.map("c", "complex64", 10)
    with pytest.raises(ValueError, match="1 or 2 dimensions"):
        cache.map("c", "float32", (2, 2, 2))
    with pytest.raises(ValueError):
        cache.map("big", "float32", 1 << 40)  # larger than the namespace: bam::invalid_argument


def test_unknown_drive_model():
    with pytest.raises(ValueError, match="not a known drive model"):
        bam.PageCache([bam.ram_namespace(64)], drive="floppy")


def test_device_failures_raise_runtime_error_with_context(cache):
    a = bam.write_array(cache, "m", np.arange(4096, dtype=np.int32))  # 4 pages = 32 blocks
    cache.add_fault("media_error", lba_first=8, lba_last=15)  # page 1
    cache.map("big", "uint8", 1 << 20, start_lba=4096).read(slice(0, 1 << 19))  # evicts every page of "m"
    np.testing.assert_array_equal(a.gather([0]), [0])
    with pytest.raises(RuntimeError, match="'m', page 1: read .* unrecovered read error"):
        a.gather([1024])
    cache.clear_faults(0)
    np.testing.assert_array_equal(a.gather([1024]), [1024])
