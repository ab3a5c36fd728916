# SPDX-License-Identifier: Apache-2.0
"""Where an operation's tensors live and which stream it runs on. A CPU cache takes host tensors
(NumPy, or anything NumPy views through DLPack); a GPU cache takes tensors on its CUDA device
(torch or CuPy; host inputs are copied there) and runs on a CUDA stream."""
import sys

import numpy as np

NUMPY_DTYPES = {"float32": np.float32, "float16": np.float16, "int32": np.int32, "int64": np.int64,
                "uint8": np.uint8}


def stream_handle(stream, on_gpu):
    """The cudaStream_t (an int) of ``stream``: a torch or CuPy stream, an int, or None for the
    current stream of torch (when imported) or else CuPy (when imported), else the default stream.
    A CPU cache takes no stream."""
    if not on_gpu:
        if stream not in (None, 0):
            raise ValueError("stream: this cache runs on CPU threads; pass no CUDA stream")
        return 0
    if stream is None:
        torch = sys.modules.get("torch")
        if torch is not None and torch.cuda.is_available():
            return torch.cuda.current_stream().cuda_stream
        cupy = sys.modules.get("cupy")
        if cupy is not None:
            return cupy.cuda.get_current_stream().ptr
        return 0
    if isinstance(stream, int):
        return stream
    for attribute in ("cuda_stream", "ptr"):  # torch.cuda.Stream, cupy.cuda.Stream
        if hasattr(stream, attribute):
            return int(getattr(stream, attribute))
    raise ValueError(f"stream: expected a torch or CuPy CUDA stream or an int, got {type(stream).__name__}")


def _framework_of(*tensors):
    """'torch' or 'cupy' for the first tensor of either, else whichever is importable (torch first)."""
    for t in tensors:
        module = type(t).__module__.split(".")[0]
        if module in ("torch", "cupy"):
            return module
    for module in ("torch", "cupy"):
        if module in sys.modules:
            return module
    for module in ("torch", "cupy"):
        try:
            __import__(module)
            return module
        except ImportError:
            pass
    raise ValueError("this cache is on the GPU: install torch or CuPy (or pass CUDA tensors and out=)")


def _on_device(x, device, dtype, framework):
    """``x`` as a C-contiguous tensor of ``dtype`` on CUDA ``device`` (no copy when it is one)."""
    if framework == "torch":
        import torch
        t = x if isinstance(x, torch.Tensor) else torch.as_tensor(np.asarray(x))
        return t.to(device=f"cuda:{device}", dtype=getattr(torch, dtype)).contiguous()
    import cupy
    with cupy.cuda.Device(device):
        return cupy.ascontiguousarray(cupy.asarray(x, dtype=dtype))


def _is_integer(x):
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        return False
    name = str(dtype).replace("torch.", "")
    return name.startswith("int") or name.startswith("uint")


def index(x, on_gpu, device):
    """A 1-D int64 index where the cache runs (other integer dtypes are converted; floats are
    rejected); lists, tuples and ranges are taken too."""
    if isinstance(x, (list, tuple, range)):
        x = np.asarray(x, dtype=np.int64)
    if getattr(x, "ndim", 1) != 1:
        raise ValueError(f"index: must be 1-D, got {x.ndim} dimensions")
    if on_gpu:
        x = x if hasattr(x, "dtype") else np.asarray(x)
        if not _is_integer(x):
            raise ValueError(f"index: must hold integers, got {x.dtype}")
        return _on_device(x, device, "int64", _framework_of(x))
    if not isinstance(x, np.ndarray) and hasattr(x, "__dlpack__"):
        try:
            x = np.from_dlpack(x)
        except (RuntimeError, TypeError, BufferError) as e:
            raise ValueError(f"index: not a host tensor NumPy can view ({e}); this cache runs on CPU threads") from None
    x = np.asarray(x)
    if x.ndim != 1:
        raise ValueError(f"index: must be 1-D, got {x.ndim} dimensions")
    if not np.issubdtype(x.dtype, np.integer):
        raise ValueError(f"index: must hold integers, got {x.dtype}")
    return np.ascontiguousarray(x, dtype=np.int64)


def values(x, on_gpu, device, like):
    """Values to write: on a GPU cache, host values are copied to the device (dtype kept, so a
    wrong one is still refused by the extension)."""
    if not on_gpu or hasattr(x, "__cuda_array_interface__"):
        return x
    if type(x).__module__.startswith("torch"):
        return x.to(f"cuda:{device}")
    framework = _framework_of(like)
    host = np.asarray(x)
    if framework == "torch":
        import torch
        return torch.from_numpy(np.ascontiguousarray(host)).to(f"cuda:{device}")
    import cupy
    with cupy.cuda.Device(device):
        return cupy.asarray(host)


def empty(shape, dtype, on_gpu, device, like=None):
    """An uninitialised result: NumPy on a CPU cache (torch for bfloat16), torch or CuPy on the GPU."""
    if not on_gpu:
        if dtype in NUMPY_DTYPES:
            return np.empty(shape, dtype=NUMPY_DTYPES[dtype])
        try:
            import torch
        except ImportError:
            raise ValueError(f"dtype {dtype} is not in NumPy: pass out= (e.g. a torch tensor)") from None
        return torch.empty(shape, dtype=getattr(torch, dtype))
    framework = _framework_of(like)
    if framework == "torch":
        import torch
        return torch.empty(shape, dtype=getattr(torch, dtype), device=f"cuda:{device}")
    if dtype not in NUMPY_DTYPES:
        raise ValueError(f"dtype {dtype} is not in CuPy: pass out= (e.g. a torch tensor)")
    import cupy
    with cupy.cuda.Device(device):
        return cupy.empty(shape, dtype=NUMPY_DTYPES[dtype])
