# SPDX-License-Identifier: Apache-2.0
"""The GPU side (runs where bam was built with CUDA and a GPU is present): kernels on the caller's
stream over a GPU cache, with torch and CuPy tensors, verified against the same operations in
torch; stream order, no device-wide waits, errors and faults."""
import numpy as np
import pytest

import bam

torch = pytest.importorskip("torch")
if not (bam.cuda and bam.cuda_devices() > 0 and torch.cuda.is_available()):
    pytest.skip("needs bam built with CUDA and a GPU", allow_module_level=True)

DTYPES = ["float32", "float16", "bfloat16", "int32", "int64", "uint8"]


@pytest.fixture
def gcache():
    """The smallest GPU cache (32 pages: a warp's distinct pages) over a 32 MiB RAM namespace."""
    return bam.PageCache([bam.ram_namespace(1 << 16)], page_bytes=4096, cache_bytes=32 * 4096, device="cuda")


def reference(dtype, shape, seed=1):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, 120, shape, generator=g).to(getattr(torch, dtype)).cuda()


def test_the_default_device_is_the_gpu():
    c = bam.PageCache([bam.ram_namespace(1 << 12)], cache_bytes=64 * 4096)
    assert c.on_gpu and c.device == torch.cuda.current_device()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("cols", [1, 24, 64, 300])  # element kernels (< 128 B rows), warp kernels, rows over pages
def test_round_trips_with_torch(gcache, dtype, cols):
    rows = 6000 if cols <= 64 else 800
    shape = (rows,) if cols == 1 else (rows, cols)
    want = reference(dtype, shape)
    a = gcache.map("x", dtype, shape)
    everything = torch.arange(rows, device="cuda")
    a.write(everything, want)  # through a cache far smaller than the array: evictions write back
    gcache.flush()
    idx = torch.randint(0, rows, (2000,), device="cuda")
    idx[:40] = 7  # every lane of a warp on one row
    got = a.gather(idx)
    assert got.is_cuda and got.dtype == want.dtype and torch.equal(got, want[idx])
    assert torch.equal(a.read(slice(13, rows - 5)), want[13:rows - 5])
    new = reference(dtype, (3,) + shape[1:], seed=3)
    a.write(torch.tensor([7, rows - 1, 0], device="cuda"), new)
    want[[7, rows - 1, 0]] = new
    gcache.flush()
    out = torch.empty_like(want)
    assert a.read(out=out) is out and torch.equal(out, want)
    gcache.check()


def test_host_inputs_are_copied_to_the_device(gcache):
    a = bam.write_array(gcache, "h", np.arange(4000, dtype=np.int64).reshape(1000, 4))
    got = a.gather(np.array([999, 0, 5]))
    assert got.is_cuda and got.cpu().tolist() == [[3996, 3997, 3998, 3999], [0, 1, 2, 3], [20, 21, 22, 23]]


def test_round_trip_with_cupy(gcache):
    cupy = pytest.importorskip("cupy")
    v = cupy.arange(50_000, dtype=cupy.float32).reshape(1000, 50)
    a = gcache.map("c", "float32", (1000, 50))
    a.write(cupy.arange(1000), v)
    idx = cupy.asarray(np.random.default_rng(4).integers(0, 1000, 3000))
    got = a.gather(idx)
    assert isinstance(got, cupy.ndarray) and bool((got == v[idx]).all())
    out = cupy.empty((10, 50), dtype=cupy.float32)
    a.read(slice(990, 1000), out=out, stream=cupy.cuda.get_current_stream())
    assert bool((out == v[990:]).all())


@pytest.mark.parametrize("dtype", ["float32", "int32", "int64"])
def test_scatter_add_combines_repeated_indices(gcache, dtype):
    a = gcache.map("acc", dtype, (300, 40))
    a.write(torch.arange(300, device="cuda"), torch.zeros(300, 40, dtype=getattr(torch, dtype), device="cuda"))
    idx = torch.randint(0, 300, (5000,), device="cuda")
    idx[:500] = 299
    vals = torch.randint(0, 50, (5000, 40), device="cuda").to(getattr(torch, dtype))
    a.scatter_add(idx, vals)
    want = torch.zeros(300, 40, dtype=getattr(torch, dtype), device="cuda").index_add_(0, idx, vals)
    assert torch.equal(a.read(), want)  # integer-valued floats: exact whatever the order


def test_bad_arguments_raise_before_any_access(gcache):
    a = gcache.map("f", "float32", (100, 8))
    gcache.reset_stats()
    with pytest.raises(IndexError, match=r"index\[2\] = 100 is out of range for f with 100 rows"):
        a.gather(torch.tensor([0, 99, 100, -1], device="cuda"))
    with pytest.raises(IndexError, match=r"index\[0\] = -1"):
        a.write(torch.tensor([-1], device="cuda"), torch.zeros(1, 8, device="cuda"))
    with pytest.raises(ValueError, match="out: this cache is on CUDA device"):
        a.gather(torch.tensor([1], device="cuda"), out=torch.empty(1, 8))
    with pytest.raises(ValueError, match="values: dtype must be float32"):
        a.write(torch.tensor([1], device="cuda"), torch.zeros(1, 8, dtype=torch.float64, device="cuda"))
    with pytest.raises(ValueError, match="out: must be C-contiguous"):
        a.gather(torch.tensor([1, 2], device="cuda"), out=torch.empty(8, 2, device="cuda").t())
    assert gcache.stats()["accesses"] == 0


def test_work_is_ordered_with_the_callers_stream(gcache):
    a = bam.write_array(gcache, "o", np.arange(64_000, dtype=np.float32).reshape(1000, 64))
    side = torch.cuda.Stream()
    idx = torch.zeros(4096, dtype=torch.int64, device="cuda")
    torch.cuda.synchronize()
    with torch.cuda.stream(side):
        torch.cuda._sleep(200_000_000)  # the index is filled late on `side`
        idx.copy_(torch.arange(4096, device="cuda") % 1000)
        got = a.gather(idx)  # torch's current stream: `side`
        assert torch.equal(got[:, 0], (idx * 64).float())
    b = torch.empty(4096, 64, device="cuda")
    with torch.cuda.stream(side):
        torch.cuda._sleep(200_000_000)
        b.fill_(3.0)
    a.write(torch.arange(1000, 2000, device="cuda") % 1000, b[:1000], stream=side)  # after the fill
    assert bool((a.read(stream=side) == 3.0).all())


def test_no_device_wide_wait(gcache):
    """An operation on one stream returns while a long kernel runs on another."""
    a = bam.write_array(gcache, "w", np.ones((1000, 64), dtype=np.float32))
    a.gather(torch.arange(10, device="cuda"))  # loads the kernels first
    busy, mine = torch.cuda.Stream(), torch.cuda.Stream()
    done = torch.cuda.Event()
    with torch.cuda.stream(busy):
        torch.cuda._sleep(3_000_000_000)  # about 2 s
        done.record()
    with torch.cuda.stream(mine):
        got = a.gather(torch.arange(1000, device="cuda"))
        gcache.check()
        gcache.stats()
        gcache.flush()
    still_busy = not done.query()
    torch.cuda.synchronize()
    assert still_busy, "bam waited for an unrelated stream"
    assert bool((got == 1).all())


def test_device_failures_raise_with_context_and_recover(gcache):
    a = bam.write_array(gcache, "e", np.arange(64_000, dtype=np.float32).reshape(1000, 64))
    gcache.flush()
    a.gather(torch.arange(1000, device="cuda"))  # pages 0..15 of 64 KiB... mostly evicted again
    rule = gcache.add_fault("media_error", lba_first=0, lba_last=(1 << 64) - 1)
    with pytest.raises(RuntimeError, match="'e'"):
        a.gather(torch.arange(1000, device="cuda"))
    gcache.clear_faults(0)
    assert rule >= 0
    got = a.gather(torch.arange(1000, device="cuda"))
    assert torch.equal(got, torch.arange(64_000, dtype=torch.float32, device="cuda").reshape(1000, 64))
    gcache.check()


def test_a_cpu_cache_refuses_cuda_tensors_and_streams():
    c = bam.PageCache([bam.ram_namespace(1 << 12)], cache_bytes=64 * 4096, device="cpu")
    a = c.map("x", "float32", (10, 4))
    with pytest.raises(ValueError, match="CPU threads"):
        a.gather([1], out=torch.empty(1, 4, device="cuda"))
    with pytest.raises(ValueError, match="pass no CUDA stream"):
        a.gather([1], stream=torch.cuda.Stream())
