// SPDX-License-Identifier: Apache-2.0
// bam._bam: the nanobind extension behind `import bam`. Namespaces, the emulated system, the
// page cache and mapped arrays; tensors cross through DLPack (nanobind's ndarray). Arguments are
// checked here, before any work runs: bad values raise ValueError, bad indices IndexError;
// failures during the work (NVMe status, timeouts) raise RuntimeError with the C++ message.
#include "host_ops.hpp"
#include "mapped_array.hpp"

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

/// The system and its cache, kept together so arrays keep both alive.
struct cache_owner {
  std::shared_ptr<host::emulated_system> system;
  std::unique_ptr<page_cache> cache;
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

/// Checks that `t` is a C-contiguous host tensor of `d` with `shape`; ValueError naming `what`.
template <class Tensor>
void require(const Tensor& t, dtype d, const std::vector<std::uint64_t>& shape, const std::string& what) {
  if (t.device_type() != nb::device::cpu::value)
    throw nb::value_error((what + ": bam's Python operations run on CPU threads and take host tensors only").c_str());
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

/// Checks a 1-D int64 index tensor whose values lie in [0, rows); returns its length.
std::uint64_t require_index(const input_tensor& index, const py_array& a) {
  if (index.ndim() != 1) throw nb::value_error("index: must be 1-D");
  require(index, dtype::int64, {index.shape(0)}, "index");
  const auto* p = static_cast<const std::int64_t*>(index.data());
  for (std::size_t k = 0; k < index.shape(0); ++k)
    if (p[k] < 0 || std::uint64_t(p[k]) >= a.m.rows())
      throw nb::index_error(("index[" + std::to_string(k) + "] = " + std::to_string(p[k]) + " is out of range for " +
                             a.m.name + " with " + std::to_string(a.m.rows()) + " rows")
                                .c_str());
  return index.shape(0);
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

/// Runs `op` on the array's element view without the GIL, then raises what device code recorded.
template <class Op>
void run(py_array& a, Op op) {
  {
    nb::gil_scoped_release unlocked;
    std::visit(op, a.m.elems);
  }
  a.owner->cache->check();
}

void gather_index(py_array& a, const input_tensor& index, tensor& out) {
  const std::uint64_t n = require_index(index, a);
  require(out, a.m.type, rows_shape(a, n), "out");
  const auto* idx = static_cast<const std::int64_t*>(index.data());
  run(a, [&](const auto& v) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    gather_rows(v, idx, n, a.m.row_elems(), static_cast<T*>(out.data()));
  });
}

void read_slice(py_array& a, std::uint64_t first_row, std::uint64_t n_rows, tensor& out) {
  if (first_row > a.m.rows() || n_rows > a.m.rows() - first_row)
    throw nb::index_error(("read: rows [" + std::to_string(first_row) + ", " + std::to_string(first_row + n_rows) +
                           ") exceed " + a.m.name + "'s " + std::to_string(a.m.rows()) + " rows")
                              .c_str());
  require(out, a.m.type, rows_shape(a, n_rows), "out");
  run(a, [&](const auto& v) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    read_elements(v, first_row * a.m.row_elems(), n_rows * a.m.row_elems(), static_cast<T*>(out.data()));
  });
}

void write_index(py_array& a, const input_tensor& index, const input_tensor& values) {
  const std::uint64_t n = require_index(index, a);
  require(values, a.m.type, rows_shape(a, n), "values");
  const auto* idx = static_cast<const std::int64_t*>(index.data());
  run(a, [&](const auto& v) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    write_rows(v, idx, n, a.m.row_elems(), static_cast<const T*>(values.data()));
  });
}

void scatter_add(py_array& a, const input_tensor& index, const input_tensor& values) {
  if (a.m.type != dtype::float32 && a.m.type != dtype::int32 && a.m.type != dtype::int64)
    throw nb::value_error(("scatter_add: " + a.m.name + " holds " + dtype_name(a.m.type) +
                           "; scatter_add takes float32, int32 or int64 arrays")
                              .c_str());
  const std::uint64_t n = require_index(index, a);
  require(values, a.m.type, rows_shape(a, n), "values");
  const auto* idx = static_cast<const std::int64_t*>(index.data());
  run(a, [&](const auto& v) {
    using T = typename std::decay_t<decltype(v)>::value_type;
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
  m.attr("cuda") = false;

  // bam::invalid_argument is a bad argument (ValueError); every other bam::error keeps
  // RuntimeError with its message (nanobind's default for std::exception).
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const bam::invalid_argument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  nb::class_<host::namespace_store>(m, "Namespace", "A namespace's content: RAM, a file, or synthetic")
      .def_prop_ro("block_size", &host::namespace_store::block_size)
      .def_prop_ro("n_blocks", &host::namespace_store::n_blocks);
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
             std::uint32_t max_arrays) {
            host::emulated_system_options so;
            so.controllers = std::move(controllers);
            so.workers_per_controller = workers_per_controller;
            so.queue_pairs = queue_pairs;
            so.queue_depth = queue_depth;
            so.use_gpu = false;  // the operations of this extension run on CPU threads
            so.emulator.timing = timing_options(drive, n_drives);
            page_cache_options co;
            co.page_bytes = page_bytes;
            co.cache_bytes = cache_bytes;
            co.timeout = std::chrono::milliseconds(std::int64_t(timeout_s * 1000));
            co.statistics = statistics;
            co.latency_histogram = latency_histogram;
            co.max_arrays = max_arrays;
            auto system = std::make_shared<host::emulated_system>(std::move(so));
            auto cache = std::make_unique<page_cache>(system->controllers(), system->memory(), co);
            new (self) cache_owner{std::move(system), std::move(cache)};
          },
          "controllers"_a, "workers_per_controller"_a, "queue_pairs"_a, "queue_depth"_a, "drive"_a.none(),
          "n_drives"_a, "page_bytes"_a, "cache_bytes"_a, "timeout_s"_a, "statistics"_a, "latency_histogram"_a,
          "max_arrays"_a)
      .def_prop_ro("page_bytes", [](const cache_owner& c) { return c.cache->page_bytes(); })
      .def_prop_ro("on_gpu", [](const cache_owner& c) { return c.system->on_gpu(); })
      .def("check", [](cache_owner& c) { c.cache->check(); })
      .def("flush",
           [](cache_owner& c) {
             nb::gil_scoped_release unlocked;
             c.cache->flush();
           })
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
      .def("stats", [](const cache_owner& c) { return stats_dict(c.cache->total_stats()); })
      .def("reset_stats", [](cache_owner& c) { c.cache->reset_stats(); })
      .def("latency_histogram", [](const cache_owner& c) { return c.cache->latency_histogram(); })
      .def("stats_json", [](const cache_owner& c) { return c.cache->stats_json(); })
      .def("stats_table", [](const cache_owner& c) { return c.cache->stats_table(); });

  nb::class_<py_array>(m, "MappedArray")
      .def_prop_ro("dtype", [](const py_array& a) { return dtype_name(a.m.type); })
      .def_prop_ro("shape", [](const py_array& a) { return a.m.shape; })
      .def_prop_ro("name", [](const py_array& a) { return a.m.name; })
      .def("stats", [](const py_array& a) { return stats_dict(a.owner->cache->stats(a.m.range_id)); })
      .def("gather", &gather_index, "index"_a, "out"_a)
      .def("read", &read_slice, "first_row"_a, "n_rows"_a, "out"_a)
      .def("write", &write_index, "index"_a, "values"_a)
      .def("scatter_add", &scatter_add, "index"_a, "values"_a);

  m.def(
      "map_array",
      [](nb::handle cache, const std::string& name, const std::string& type, std::vector<std::uint64_t> shape,
         std::uint32_t nsid, std::uint64_t start_lba) {
        auto& owner = nb::cast<cache_owner&>(cache);
        return py_array{&owner, map_array(*owner.cache, name, parse_dtype(type), std::move(shape), nsid, start_lba)};
      },
      "cache"_a, "name"_a, "dtype"_a, "shape"_a, "nsid"_a, "start_lba"_a, nb::keep_alive<0, 1>());
}
