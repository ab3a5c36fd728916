// SPDX-License-Identifier: Apache-2.0
#include "apps/common/python_script.hpp"

#include <bam/error.hpp>

#include <cstdlib>
#include <sys/wait.h>

namespace bam::apps {

std::filesystem::path script_beside_executable(const std::string& file) {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw error("cannot find the running executable (/proc/self/exe): " + ec.message());
  const std::filesystem::path script = exe.parent_path() / file;
  if (!std::filesystem::exists(script))
    throw error(file + " is not beside " + exe.string() + " (the build copies it there)");
  return script;
}

std::string python_command(const std::string& file, const std::vector<std::string>& args) {
  const auto quoted = [](const std::string& s) {
    std::string q = "'";
    for (const char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
  };
  std::string cmd = "python3 " + quoted(script_beside_executable(file).string());
  for (const auto& a : args) cmd += " " + quoted(a);
  return cmd;
}

int run_python_script(const std::string& file, const std::vector<std::string>& args) {
  const int status = std::system(python_command(file, args).c_str());
  if (status == -1 || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

}  // namespace bam::apps
