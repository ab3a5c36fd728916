// SPDX-License-Identifier: Apache-2.0
// bam._bam: the nanobind extension behind `import bam`. Namespaces, the emulated system, the
// page cache and mapped arrays; tensors cross through DLPack (nanobind's ndarray). A cache is on
// the GPU (its queues driven by GPU threads, operations as kernels on the caller's stream, CUDA
// tensors) or on the CPU (CPU threads, host tensors). Arguments are checked here, before any
// work runs: bad values raise ValueError, bad indices IndexError; failures during the work (NVMe
// status, timeouts) raise RuntimeError with the C++ message.
#include "host_ops.hpp"
#include "mapped_array.hpp"
#if BAM_PYTHON_CUDA
#include "gpu_ops.hpp"
#endif

#include <bam/error.hpp>
#include <bam/page_cache.hpp>

#include <bam/host/emulator/emulated_system.hpp>
#include <bam/host/emulator/fault_plan.hpp>
#include <bam/host/emulator/file_store.hpp>
#include <bam/host/emulator/ram_store.hpp>
#include <bam/host/emulator/synthetic_store.hpp>
#include <bam/host/emulator/timing_model.hpp>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <memory>

namespace nb = nanobind;
using namespace nb::literals;

namespace bam::python {
namespace {

using tensor = nb::ndarray<>;
using input_tensor = nb::ndarray<nb::ro>;

// A GPU operation of gpu_ops.hpp; in a build without CUDA no cache is on the GPU, so none runs.
#if BAM_PYTHON_CUDA
#define BAM_PYTHON_GPU(call) gpu::call
#else
#define BAM_PYTHON_GPU(call) (void)0
#endif

/// The system and its cache, kept together so arrays keep both alive.
struct cache_owner {
  std::shared_ptr<host::emulated_system> system;
  std::unique_ptr<page_cache> cache;
  int device = -1;  ///< the CUDA device of a GPU cache; -1 for a CPU cache
  [[nodiscard]] bool on_gpu() const { return device >= 0; }
};

/// A mapped array and the cache it lives in (kept alive by the Python object: keep_alive).
struct py_array {
  cache_owner* owner;
  mapped_array m;
};

template <class Tensor>
bool same_dtype(const Tensor& t, dtype d) {
  const nb::dlpack::dtype x = t.dtype();
  switch (d) {
    case dtype::float32: return x == nb::dtype<float>();
    case dtype::float16: return x.code == std::uint8_t(nb::dlpack::dtype_code::Float) && x.bits == 16 && x.lanes == 1;
    case dtype::bfloat16: return x.code == std::uint8_t(nb::dlpack::dtype_code::Bfloat) && x.bits == 16 && x.lanes == 1;
    case dtype::int32: return x == nb::dtype<std::int32_t>();
    case dtype::int64: return x == nb::dtype<std::int64_t>();
    case dtype::uint8: return x == nb::dtype<std::uint8_t>();
  }
  return false;
}

/// Checks that `t` is a C-contiguous tensor of `d` with `shape` where `owner`'s operations run
/// (host memory for a CPU cache, its CUDA device for a GPU cache); ValueError naming `what`.
template <class Tensor>
void require(const cache_owner& owner, const Tensor& t, dtype d, const std::vector<std::uint64_t>& shape,
             const std::string& what) {
  if (owner.on_gpu()) {
    if (t.device_type() != nb::device::cuda::value || t.device_id() != owner.device)
      throw nb::value_error((what + ": this cache is on CUDA device " + std::to_string(owner.device) +
                             "; pass a tensor on that device")
                                .c_str());
  } else if (t.device_type() != nb::device::cpu::value) {
    throw nb::value_error((what + ": this cache runs on CPU threads and takes host tensors only").c_str());
  }
  if (!same_dtype(t, d)) throw nb::value_error((what + ": dtype must be " + dtype_name(d)).c_str());
  bool shape_ok = t.ndim() == shape.size();
  for (std::size_t i = 0; shape_ok && i < shape.size(); ++i) shape_ok = t.shape(i) == shape[i];
  if (!shape_ok) {
    std::string want = "(";
    for (const auto s : shape) want += std::to_string(s) + ",";
    throw nb::value_error((what + ": shape must be " + want + ")").c_str());
  }
  std::int64_t stride = 1;
  for (std::size_t i = t.ndim(); i-- > 0;) {
    if (t.shape(i) > 1 && t.stride(i) != stride) throw nb::value_error((what + ": must be C-contiguous").c_str());
    stride *= std::int64_t(t.shape(i));
  }
}

/// The stream of an operation: any for a GPU cache, the default (0) only for a CPU cache.
stream_handle stream_of(const cache_owner& owner, std::uintptr_t stream) {
  if (stream != 0 && !owner.on_gpu())
    throw nb::value_error("stream: this cache runs on CPU threads; pass no CUDA stream");
  return reinterpret_cast<stream_handle>(stream);
}

/// Checks a 1-D int64 index tensor whose values lie in [0, rows) (on the GPU: a kernel on
/// `stream`, waiting for it); returns its length.
std::uint64_t require_index(const input_tensor& index, const py_array& a, [[maybe_unused]] stream_handle stream) {
  if (index.ndim() != 1) throw nb::value_error("index: must be 1-D");
  require(*a.owner, index, dtype::int64, {index.shape(0)}, "index");
  const auto* p = static_cast<const std::int64_t*>(index.data());
  const std::uint64_t n = index.shape(0);
  std::uint64_t bad = n;
  std::int64_t value = 0;
#if BAM_PYTHON_CUDA
  if (a.owner->on_gpu()) {
    nb::gil_scoped_release unlocked;
    bad = gpu::first_out_of_range(p, n, a.m.rows(), &value, stream);
  }
#endif
  for (std::uint64_t k = 0; !a.owner->on_gpu() && k < n && bad == n; ++k)
    if (p[k] < 0 || std::uint64_t(p[k]) >= a.m.rows()) bad = k, value = p[k];
  if (bad < n)
    throw nb::index_error(("index[" + std::to_string(bad) + "] = " + std::to_string(value) + " is out of range for " +
                           a.m.name + " with " + std::to_string(a.m.rows()) + " rows")
                              .c_str());
  return n;
}

/// The shape of `n` rows of `a`.
std::vector<std::uint64_t> rows_shape(const py_array& a, std::uint64_t n) {
  if (a.m.shape.size() == 2) return {n, a.m.shape[1]};
  return {n};
}

nb::dict stats_dict(const array_stats& s) {
  nb::dict d;
  d["name"] = s.name;
  d["accesses"] = s.counts.accesses;
  d["hits"] = s.counts.hits;
  d["misses"] = s.counts.misses;
  d["coalesced"] = s.counts.coalesced;
  d["failures"] = s.counts.failures;
  d["evictions"] = s.counts.evictions;
  d["write_backs"] = s.counts.write_backs;
  d["bytes_read"] = s.counts.bytes_read;
  d["bytes_written"] = s.counts.bytes_written;
  d["hit_rate"] = s.hit_rate();
  return d;
}

/// Runs an operation without the GIL: `on_gpu()` queues kernels on `stream` (GPU cache), or
/// `on_host(view)` runs it on CPU threads; then raises what device code recorded (waiting for
/// `stream` only).
template <class Gpu, class Host>
void run(py_array& a, stream_handle stream, [[maybe_unused]] Gpu on_gpu, Host on_host) {
  {
    nb::gil_scoped_release unlocked;
#if BAM_PYTHON_CUDA
    if (a.owner->on_gpu()) on_gpu();
#endif
    if (!a.owner->on_gpu()) std::visit(on_host, a.m.elems);
  }
  a.owner->cache->check(stream);
}

template <class View>
using element_of = typename std::decay_t<View>::value_type;

void gather_index(py_array& a, const input_tensor& index, tensor& out, std::uintptr_t stream_id) {
  const stream_handle stream = stream_of(*a.owner, stream_id);
  const std::uint64_t n = require_index(index, a, stream);
  require(*a.owner, out, a.m.type, rows_shape(a, n), "out");
  const auto* idx = static_cast<const std::int64_t*>(index.data());
  run(
      a, stream, [&] { BAM_PYTHON_GPU(gather(a.m.elems, idx, n, a.m.row_elems(), out.data(), stream)); },
      [&](const auto& v) {
        gather_rows(v, idx, n, a.m.row_elems(), static_cast<element_of<decltype(v)>*>(out.data()));
      });
}

void read_slice(py_array& a, std::uint64_t first_row, std::uint64_t n_rows, tensor& out, std::uintptr_t stream_id) {
  const stream_handle stream = stream_of(*a.owner, stream_id);
  if (first_row > a.m.rows() || n_rows > a.m.rows() - first_row)
    throw nb::index_error(("read: rows [" + std::to_string(first_row) + ", " + std::to_string(first_row + n_rows) +
                           ") exceed " + a.m.name + "'s " + std::to_string(a.m.rows()) + " rows")
                              .c_str());
  require(*a.owner, out, a.m.type, rows_shape(a, n_rows), "out");
  const std::uint64_t first = first_row * a.m.row_elems(), n = n_rows * a.m.row_elems();
  run(
      a, stream, [&] { BAM_PYTHON_GPU(read(a.m.elems, first, n, out.data(), stream)); },
      [&](const auto& v) { read_elements(v, first, n, static_cast<element_of<decltype(v)>*>(out.data())); });
}

void write_index(py_array& a, const input_tensor& index, const input_tensor& values, std::uintptr_t stream_id) {
  const stream_handle stream = stream_of(*a.owner, stream_id);
  const std::uint64_t n = require_index(index, a, stream);
  require(*a.owner, values, a.m.type, rows_shape(a, n), "values");
  const auto* idx = static_cast<const std::int64_t*>(index.data());
  run(
      a, stream, [&] { BAM_PYTHON_GPU(write(a.m.elems, idx, n, a.m.row_elems(), values.data(), stream)); },
      [&](const auto& v) {
        write_rows(v, idx, n, a.m.row_elems(), static_cast<const element_of<decltype(v)>*>(values.data()));
      });
}

void scatter_add(py_array& a, const input_tensor& index, const input_tensor& values, std::uintptr_t stream_id) {
  const stream_handle stream = stream_of(*a.owner, stream_id);
  if (a.m.type != dtype::float32 && a.m.type != dtype::int32 && a.m.type != dtype::int64)
    throw nb::value_error(("scatter_add: " + a.m.name + " holds " + dtype_name(a.m.type) +
                           "; scatter_add takes float32, int32 or int64 arrays")
                              .c_str());
  const std::uint64_t n = require_index(index, a, stream);
  require(*a.owner, values, a.m.type, rows_shape(a, n), "values");
  const auto* idx = static_cast<const std::int64_t*>(index.data());
  run(
      a, stream, [&] { BAM_PYTHON_GPU(scatter_add(a.m.elems, idx, n, a.m.row_elems(), values.data(), stream)); },
      [&](const auto& v) {
        using T = element_of<decltype(v)>;
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>)
          scatter_add_rows(v, idx, n, a.m.row_elems(), static_cast<const T*>(values.data()));
      });
}

std::optional<host::timing_model::options> timing_options(const std::optional<std::string>& drive,
                                                          std::uint32_t n_drives) {
  if (!drive) return std::nullopt;
  for (const auto& d : host::named_drives)
    if (d.name == *drive) return host::timing_model::options{*d.profile, n_drives};
  std::string known;
  for (const auto& d : host::named_drives) known += " " + std::string(d.name);
  throw invalid_argument("drive '" + *drive + "' is not a known drive model; known:" + known);
}

/// A fault rule on I/O commands overlapping [lba_first, lba_last]: "media_error" (completes with
/// Unrecovered Read Error), "delay" (completes delay_ns late) or "drop" (never completes).
host::fault_rule fault_rule_of(const std::string& effect, std::uint64_t lba_first, std::uint64_t lba_last,
                               std::uint64_t delay_ns, std::uint64_t every_nth, double probability) {
  host::fault_rule r;
  r.match.lba_first = lba_first;
  r.match.lba_last = lba_last;
  r.match.every_nth = every_nth;
  r.match.probability = probability;
  if (effect == "media_error") {
    r.action.effect = host::fault_effect::status;
  } else if (effect == "delay") {
    r.action.effect = host::fault_effect::delay;
    r.action.delay_ns = delay_ns;
  } else if (effect == "drop") {
    r.action.effect = host::fault_effect::drop;
  } else {
    throw invalid_argument("fault effect '" + effect + "' is not one of media_error, delay, drop");
  }
  return r;
}

}  // namespace
}  // namespace bam::python

NB_MODULE(_bam, m) {
  using namespace bam;
  using namespace bam::python;
  m.doc() = "bam: NVMe storage as arrays, through a page cache (native part; use the `bam` package)";
  m.attr("cuda") = bool(BAM_PYTHON_CUDA);  // built with the kernels of gpu_ops.hpp
#if BAM_PYTHON_CUDA
  m.def("cuda_devices", &gpu::device_count, "CUDA devices present (0 without a driver or GPU)");
#else
  m.def("cuda_devices", [] { return 0; }, "CUDA devices present (0: this build has no CUDA)");
#endif

  // bam::invalid_argument is a bad argument (ValueError); every other bam::error keeps
  // RuntimeError with its message (nanobind's default for std::exception).
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const bam::invalid_argument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  // Direct block transfers, bypassing any cache: for ingest before a cache maps the blocks.
  const auto bytes_of = [](const auto& data, const host::namespace_store& ns, const char* what) {
    if (data.device_type() != nb::device::cpu::value || !data.is_valid())
      throw nb::value_error((std::string(what) + ": data must be a host buffer").c_str());
    std::int64_t stride = 1;
    for (std::size_t i = data.ndim(); i-- > 0;) {
      if (data.shape(i) > 1 && data.stride(i) != stride)
        throw nb::value_error((std::string(what) + ": data must be C-contiguous").c_str());
      stride *= std::int64_t(data.shape(i));
    }
    const std::size_t bytes = data.nbytes();
    if (bytes % ns.block_size() != 0)
      throw nb::value_error((std::string(what) + ": " + std::to_string(bytes) + " bytes is not a whole number of " +
                             std::to_string(ns.block_size()) + "-byte blocks")
                                .c_str());
    return bytes;
  };
  nb::class_<host::namespace_store>(m, "Namespace", "A namespace's content: RAM, a file, or synthetic")
      .def_prop_ro("block_size", &host::namespace_store::block_size)
      .def_prop_ro("n_blocks", &host::namespace_store::n_blocks)
      .def(
          "write_blocks",
          [bytes_of](host::namespace_store& ns, std::uint64_t lba, const input_tensor& data) {
            const std::size_t bytes = bytes_of(data, ns, "write_blocks");
            const auto* src = static_cast<const std::byte*>(data.data());
            nb::gil_scoped_release unlocked;
            for (std::size_t done = 0; done < bytes;) {  // commands of at most 2^31 bytes
              const std::uint32_t n = std::uint32_t(std::min<std::size_t>(bytes - done, std::size_t{1} << 31) / ns.block_size());
              ns.write(lba + done / ns.block_size(), n, src + done);
              done += std::size_t{n} * ns.block_size();
            }
          },
          "lba"_a, "data"_a,
          "Writes the bytes of `data` (a host buffer of whole blocks) to blocks from `lba`, bypassing any cache")
      .def(
          "read_blocks",
          [bytes_of](host::namespace_store& ns, std::uint64_t lba, tensor& out) {
            const std::size_t bytes = bytes_of(out, ns, "read_blocks");
            auto* dst = static_cast<std::byte*>(out.data());
            nb::gil_scoped_release unlocked;
            for (std::size_t done = 0; done < bytes;) {
              const std::uint32_t n = std::uint32_t(std::min<std::size_t>(bytes - done, std::size_t{1} << 31) / ns.block_size());
              ns.read(lba + done / ns.block_size(), n, dst + done);
              done += std::size_t{n} * ns.block_size();
            }
          },
          "lba"_a, "out"_a, "Reads blocks from `lba` into `out` (a host buffer of whole blocks), bypassing any cache")
      .def("sync", &host::namespace_store::flush, "Makes written blocks durable (fdatasync for a file)");
  m.def(
      "ram_namespace",
      [](std::uint32_t block_size, std::uint64_t n_blocks) -> std::shared_ptr<host::namespace_store> {
        return std::make_shared<host::ram_store>(block_size, n_blocks);
      },
      "block_size"_a, "n_blocks"_a);
  m.def(
      "file_namespace",
      [](std::string path, std::uint32_t block_size, std::uint64_t n_blocks, bool create,
         bool direct) -> std::shared_ptr<host::namespace_store> {
        return std::make_shared<host::file_store>(
            host::file_store::options{std::move(path), block_size, n_blocks, create, direct});
      },
      "path"_a, "block_size"_a, "n_blocks"_a, "create"_a, "direct"_a);
  m.def(
      "synthetic_namespace",
      [](std::uint32_t block_size, std::uint64_t n_blocks, std::uint64_t seed,
         std::uint64_t overlay_blocks) -> std::shared_ptr<host::namespace_store> {
        return std::make_shared<host::synthetic_store>(
            host::synthetic_store::options{block_size, n_blocks, seed, overlay_blocks});
      },
      "block_size"_a, "n_blocks"_a, "seed"_a, "overlay_blocks"_a);

  nb::class_<cache_owner>(m, "PageCache")
      .def(
          "__init__",
          [](cache_owner* self, std::vector<std::vector<std::shared_ptr<host::namespace_store>>> controllers,
             std::uint32_t workers_per_controller, std::uint32_t queue_pairs, std::uint32_t queue_depth,
             std::optional<std::string> drive, std::uint32_t n_drives, std::size_t page_bytes,
             std::size_t cache_bytes, double timeout_s, bool statistics, bool latency_histogram,
             std::uint32_t max_arrays, const std::string& device) {
            if (device != "cpu" && device != "cuda")
              throw nb::value_error(("device: must be 'cpu' or 'cuda', got '" + device + "'").c_str());
            if (device == "cuda" && !BAM_PYTHON_CUDA)
              throw nb::value_error("device='cuda': this build of bam has no CUDA (bam.cuda is False)");
            host::emulated_system_options so;
            so.controllers = std::move(controllers);
            so.workers_per_controller = workers_per_controller;
            so.queue_pairs = queue_pairs;
            so.queue_depth = queue_depth;
            so.use_gpu = device == "cuda";
            so.emulator.timing = timing_options(drive, n_drives);
            page_cache_options co;
            co.page_bytes = page_bytes;
            co.cache_bytes = cache_bytes;
            co.timeout = std::chrono::milliseconds(std::int64_t(timeout_s * 1000));
            co.statistics = statistics;
            co.latency_histogram = latency_histogram;
            co.max_arrays = max_arrays;
            auto system = std::make_shared<host::emulated_system>(std::move(so));
            if (device == "cuda" && !system->on_gpu())
              throw nb::value_error("device='cuda': no CUDA GPU is present");
            int gpu = -1;
#if BAM_PYTHON_CUDA
            if (system->on_gpu()) gpu = gpu::current_device();
#endif
            auto cache = std::make_unique<page_cache>(system->controllers(), system->memory(), co);
            new (self) cache_owner{std::move(system), std::move(cache), gpu};
          },
          "controllers"_a, "workers_per_controller"_a, "queue_pairs"_a, "queue_depth"_a, "drive"_a.none(),
          "n_drives"_a, "page_bytes"_a, "cache_bytes"_a, "timeout_s"_a, "statistics"_a, "latency_histogram"_a,
          "max_arrays"_a, "device"_a)
      .def_prop_ro("page_bytes", [](const cache_owner& c) { return c.cache->page_bytes(); })
      .def_prop_ro("n_slots", [](const cache_owner& c) { return c.cache->n_slots(); })
      .def_prop_ro("device", [](const cache_owner& c) { return c.device; })
      .def(
          "check", [](cache_owner& c, std::uintptr_t stream) { c.cache->check(stream_of(c, stream)); }, "stream"_a)
      .def(
          "flush",
          [](cache_owner& c, std::uintptr_t stream) {
            const stream_handle s = stream_of(c, stream);
            nb::gil_scoped_release unlocked;
            c.cache->flush(s);
          },
          "stream"_a)
      .def(
          "add_fault",
          [](cache_owner& c, std::size_t controller, const std::string& effect, std::uint64_t lba_first,
             std::uint64_t lba_last, std::uint64_t delay_ns, std::uint64_t every_nth, double probability) {
            if (controller >= c.system->controllers().size())
              throw nb::index_error(("controller " + std::to_string(controller) + " does not exist").c_str());
            return c.system->emulator(controller).faults().add(
                fault_rule_of(effect, lba_first, lba_last, delay_ns, every_nth, probability));
          },
          "controller"_a, "effect"_a, "lba_first"_a, "lba_last"_a, "delay_ns"_a, "every_nth"_a, "probability"_a)
      .def(
          "clear_faults", [](cache_owner& c, std::size_t controller) { c.system->emulator(controller).faults().clear(); },
          "controller"_a)
      .def(
          "stats", [](const cache_owner& c, std::uintptr_t s) { return stats_dict(c.cache->total_stats(stream_of(c, s))); },
          "stream"_a)
      .def(
          "reset_stats", [](cache_owner& c, std::uintptr_t s) { c.cache->reset_stats(stream_of(c, s)); }, "stream"_a)
      .def(
          "latency_histogram",
          [](const cache_owner& c, std::uintptr_t s) { return c.cache->latency_histogram(stream_of(c, s)); },
          "stream"_a)
      .def(
          "stats_json", [](const cache_owner& c, std::uintptr_t s) { return c.cache->stats_json(stream_of(c, s)); },
          "stream"_a)
      .def(
          "stats_table", [](const cache_owner& c, std::uintptr_t s) { return c.cache->stats_table(stream_of(c, s)); },
          "stream"_a);

  nb::class_<py_array>(m, "MappedArray")
      .def_prop_ro("dtype", [](const py_array& a) { return dtype_name(a.m.type); })
      .def_prop_ro("shape", [](const py_array& a) { return a.m.shape; })
      .def_prop_ro("name", [](const py_array& a) { return a.m.name; })
      .def(
          "stats",
          [](const py_array& a, std::uintptr_t s) {
            return stats_dict(a.owner->cache->stats(a.m.range_id, stream_of(*a.owner, s)));
          },
          "stream"_a)
      .def("gather", &gather_index, "index"_a, "out"_a, "stream"_a)
      .def("read", &read_slice, "first_row"_a, "n_rows"_a, "out"_a, "stream"_a)
      .def("write", &write_index, "index"_a, "values"_a, "stream"_a)
      .def("scatter_add", &scatter_add, "index"_a, "values"_a, "stream"_a);

  m.def(
      "map_array",
      [](nb::handle cache, const std::string& name, const std::string& type, std::vector<std::uint64_t> shape,
         std::uint32_t nsid, std::uint64_t start_lba) {
        auto& owner = nb::cast<cache_owner&>(cache);
        return py_array{&owner, map_array(*owner.cache, name, parse_dtype(type), std::move(shape), nsid, start_lba)};
      },
      "cache"_a, "name"_a, "dtype"_a, "shape"_a, "nsid"_a, "start_lba"_a, nb::keep_alive<0, 1>());
}
