# SPDX-License-Identifier: Apache-2.0
"""Round trips through bam.Array verified against NumPy, for every dtype NumPy has."""
import json

import numpy as np
import pytest

import bam

DTYPES = ["float32", "float16", "int32", "int64", "uint8"]


def values_of(dtype, shape, seed=1):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 120, size=shape).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_gather_read_write_flush_round_trip(cache, dtype):
    v = values_of(dtype, (3000, 24))
    a = bam.write_array(cache, "x", v)
    assert a.shape == (3000, 24) and a.dtype == dtype
    idx = np.random.default_rng(2).integers(0, 3000, size=500)
    np.testing.assert_array_equal(a.gather(idx), v[idx])
    np.testing.assert_array_equal(a.read(slice(100, 1700)), v[100:1700])
    new = values_of(dtype, (3, 24), seed=3)
    a.write([7, 2999, 0], new)
    v[[7, 2999, 0]] = new
    cache.flush()
    np.testing.assert_array_equal(a.read(), v)


def test_data_survives_eviction_and_a_second_mapping(cache):
    v = values_of("int64", (40000,))  # 320 KiB through a 256 KiB cache
    bam.write_array(cache, "first", v)
    again = cache.map("again", np.int64, 40000)
    np.testing.assert_array_equal(again.read(), v)
    assert cache.stats()["evictions"] > 0


def test_bfloat16_moves_as_16_bit_words_through_a_dlpack_out(cache):
    a = cache.map("b", "bfloat16", (100, 8))
    try:
        import torch
    except ImportError:
        with pytest.raises(ValueError, match="pass out="):
            a.gather([1])
    else:  # with torch, results of bfloat16 arrays are torch tensors
        got = a.gather([1, 99])
        assert got.dtype == torch.bfloat16 and tuple(got.shape) == (2, 8) and not got.float().any()
    with pytest.raises(ValueError, match="dtype must be bfloat16"):
        a.gather([1], out=np.empty((1, 8), np.uint16))


@pytest.mark.parametrize("dtype", ["float32", "int32", "int64"])
def test_scatter_add_combines_repeated_indices(cache, dtype):
    a = bam.write_array(cache, "acc", np.zeros((50, 4), dtype))
    idx = np.array([3, 3, 49, 3, 0])
    vals = np.arange(20, dtype=dtype).reshape(5, 4)
    a.scatter_add(idx, vals)
    want = np.zeros((50, 4), dtype)
    np.add.at(want, idx, vals)
    np.testing.assert_array_equal(a.read(), want)


def test_scatter_add_rejects_dtypes_without_atomics(cache):
    a = cache.map("u", "uint8", 4096)
    with pytest.raises(ValueError, match="scatter_add takes float32, int32 or int64"):
        a.scatter_add([0], np.ones(1, np.uint8))


def test_dlpack_in_and_out(cache):
    v = values_of("float32", (64, 16))
    a = bam.write_array(cache, "d", v)
    out = np.empty((3, 16), np.float32)
    index = np.from_dlpack(np.array([1, 2, 63], np.int64))  # a DLPack producer as the index
    assert a.gather(index, out=out) is out
    np.testing.assert_array_equal(np.from_dlpack(out), v[[1, 2, 63]])


def test_one_dimensional_arrays_and_start_lba(cache):
    v = values_of("int32", (5000,))
    a = bam.write_array(cache, "one", v, start_lba=8 * 100)
    np.testing.assert_array_equal(cache.map("view", "int32", 5000, start_lba=800).gather([0, 4999]), v[[0, 4999]])
    np.testing.assert_array_equal(a.read(slice(-10, None)), v[-10:])


def test_npy_ingest_into_a_file_namespace(tmp_path):
    v = values_of("float32", (1000, 32))
    np.save(tmp_path / "f.npy", v)
    ns = bam.file_namespace(tmp_path / "store.bin", n_blocks=1 << 12, create=True, direct=False)
    c = bam.PageCache([ns], cache_bytes=32 * 4096, device="cpu")
    bam.write_npy(c, "f", tmp_path / "f.npy")
    del c  # a fresh cache over the same file reads what was flushed
    c = bam.PageCache([bam.file_namespace(tmp_path / "store.bin", direct=False)], cache_bytes=32 * 4096, device="cpu")
    np.testing.assert_array_equal(c.map("f", "float32", (1000, 32)).read(), v)


def test_synthetic_namespace_over_two_controllers_with_a_timing_model():
    c = bam.PageCache([bam.synthetic_namespace(1 << 20, seed=5), bam.synthetic_namespace(1 << 20, seed=6)],
                      drive="optane-p5800x", cache_bytes=64 * 4096, device="cpu")
    a = c.map("s", "uint8", (1 << 16, 64))
    first = a.gather(np.arange(0, 1 << 16, 997))
    np.testing.assert_array_equal(a.gather(np.arange(0, 1 << 16, 997)), first)
    assert first.any(), "synthetic content is not all zero"


def test_statistics_as_dict_and_json(cache):
    a = bam.write_array(cache, "s", values_of("float32", (100, 16)))
    cache.reset_stats()
    a.gather([1, 1, 1])
    s = a.stats()
    assert s["name"] == "s" and s["accesses"] >= 3 and 0 < s["hit_rate"] <= 1
    assert json.loads(cache.stats_json())
    assert "s" in cache.stats_table()


def test_write_namespace_lays_out_what_map_reads():
    ns = bam.ram_namespace(1 << 12)
    v = values_of("float32", (1001, 7))  # 28028 bytes: the last block is padded
    assert bam.write_namespace(ns, v, start_lba=3, chunk_bytes=4096) == -(-v.nbytes // 512)
    cache = bam.PageCache([ns], page_bytes=512, cache_bytes=64 * 512, device="cpu")
    np.testing.assert_array_equal(cache.map("v", "float32", (1001, 7), start_lba=3).read(), v)
    raw = np.empty(512, np.uint8)
    ns.read_blocks(3, raw)
    np.testing.assert_array_equal(raw.view(np.float32), v.reshape(-1)[:128])
    with pytest.raises(ValueError, match="not a whole number of 512-byte blocks"):
        ns.write_blocks(0, np.zeros(100, np.uint8))
    with pytest.raises(ValueError, match="bad range|outside|exceed|beyond"):
        ns.write_blocks(ns.n_blocks, np.zeros(512, np.uint8))


def test_profile_records_each_steps_counters(cache, tmp_path):
    a = bam.write_array(cache, "p", values_of("int32", (20000, 8)))  # 640 KiB through a 256 KiB cache
    profile = bam.Profile(cache, "test")
    a.read(slice(0, 20000))
    profile.step("scan")
    a.gather(np.zeros(100, np.int64))
    profile.step("one row")
    scan, one = profile.steps
    # 156 pages, at most the cache's 64 still resident from the writes: the rest miss.
    assert scan["cache"]["misses"] >= 20000 * 32 // 4096 - 64 and scan["cache"]["evictions"] > 0
    assert one["phase"] == "one row" and one["cache"]["accesses"] >= 1 and one["cache"]["misses"] <= 1
    png_written = profile.save(tmp_path / "p.json", tmp_path / "p.png")
    doc = json.loads((tmp_path / "p.json").read_text())
    assert doc["cache_bytes"] == 64 * 4096 and len(doc["trials"][0]["profile"]) == 2
    assert png_written == (tmp_path / "p.png").exists()
