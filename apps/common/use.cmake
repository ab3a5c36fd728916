# SPDX-License-Identifier: Apache-2.0
# Makes bam_apps_common available to apps/, tests/ and bench/ (whichever comes first adds it).
if(NOT TARGET bam_apps_common)
  add_subdirectory(${PROJECT_SOURCE_DIR}/apps/common ${PROJECT_BINARY_DIR}/apps/common)
endif()
