// SPDX-License-Identifier: Apache-2.0
#include "apps/vector/ivf_index.hpp"

#include "apps/vector/file_io.hpp"

#include <cstring>

namespace bam::vec {

ivf_index::ivf_index(const std::string& path) : map_(apps::mapped_file::open_read(path)) {
  const auto bytes = map_.bytes();
  if (bytes.size() >= sizeof h_) std::memcpy(&h_, bytes.data(), sizeof h_);
  validate_ivf_header(path, h_, bytes.size());
  const auto off = list_offsets();
  if (off[0] != 0) bad_file(path, "list offsets do not start at row 0");
  for (std::uint32_t l = 0; l < h_.n_lists; ++l)
    if (off[l + 1] < off[l]) bad_file(path, "list offsets decrease at list " + std::to_string(l));
  if (off[h_.n_lists] != h_.n_vectors)
    bad_file(path, "list offsets end at row " + std::to_string(off[h_.n_lists]) + ", the index holds " +
                       std::to_string(h_.n_vectors) + " vectors");
}

std::span<const float> ivf_index::centroids() const { return section<float>(h_.centroids); }
std::span<const std::uint64_t> ivf_index::list_offsets() const { return section<std::uint64_t>(h_.list_offsets); }
std::span<const std::int64_t> ivf_index::ids() const { return section<std::int64_t>(h_.ids); }
std::span<const std::byte> ivf_index::vectors() const { return section<std::byte>(h_.vectors); }

}  // namespace bam::vec
