# SPDX-License-Identifier: Apache-2.0
# Makes bam_graph and bam_graph_gpu available to apps/, tests/ and bench/ (whichever comes
# first adds them).
if(NOT TARGET bam_graph)
  add_subdirectory(${PROJECT_SOURCE_DIR}/apps/graph ${PROJECT_BINARY_DIR}/apps/graph)
endif()
if(NOT TARGET bam_graph_gpu)
  add_subdirectory(${PROJECT_SOURCE_DIR}/apps/graph/gpu ${PROJECT_BINARY_DIR}/apps/graph/gpu)
endif()
