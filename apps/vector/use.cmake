# SPDX-License-Identifier: Apache-2.0
# Makes the bam_vector target available to apps/, tests/ and bench/ (whichever comes first adds it).
if(NOT TARGET bam_vector)
  add_subdirectory(${PROJECT_SOURCE_DIR}/apps/vector ${PROJECT_BINARY_DIR}/apps/vector)
endif()
