// SPDX-License-Identifier: Apache-2.0
// The Python helper scripts of the programs (plots, the vector peers), found beside the running
// executable: the build copies each one there (bam_script_beside in apps/common/use.cmake), so
// no source path is compiled in and a build tree or an installed copy can be moved.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace bam::apps {

/**
 * @brief `file` in the running executable's folder.
 * @throw bam::error naming the folder when the script is not there
 */
[[nodiscard]] std::filesystem::path script_beside_executable(const std::string& file);

/// The command line `python3 '<script>' '<arg>'...` (each argument single-quoted).
[[nodiscard]] std::string python_command(const std::string& file, const std::vector<std::string>& args);

/// Runs python_command(file, args); returns its exit status (-1 when it could not run at all).
int run_python_script(const std::string& file, const std::vector<std::string>& args);

}  // namespace bam::apps
