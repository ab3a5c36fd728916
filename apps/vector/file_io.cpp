// SPDX-License-Identifier: Apache-2.0
#include "apps/vector/file_io.hpp"

#include <bam/error.hpp>
#include <bam/host/drivers/posix_io.hpp>

#include <cerrno>
#include <fstream>

namespace bam::vec {

namespace {
[[noreturn]] void fail(const std::string& path, const char* what) {
  host::throw_errno(path, what, errno);
}
}  // namespace

std::vector<std::byte> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) fail(path, "cannot open");
  const std::streamoff size = in.tellg();
  if (size < 0) fail(path, "cannot size");
  std::vector<std::byte> bytes(static_cast<std::size_t>(size));
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), size)) fail(path, "cannot read");
  return bytes;
}

void write_file(const std::string& path, std::span<const std::span<const std::byte>> parts) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) fail(path, "cannot create");
  for (const auto& p : parts) {
    if (!out.write(reinterpret_cast<const char*>(p.data()), std::streamsize(p.size()))) fail(path, "cannot write");
  }
  out.close();
  if (!out) fail(path, "cannot close");
}

void bad_file(const std::string& path, const std::string& what) { throw bam::invalid_argument(path + ": " + what); }

}  // namespace bam::vec
