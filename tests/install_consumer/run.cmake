# SPDX-License-Identifier: Apache-2.0
# Installs the bam build in BAM_BINARY_DIR to WORK_DIR/prefix, then configures, builds and runs
# the consumer project in CONSUMER_SOURCE_DIR (building EXAMPLE_SOURCE) against it (find_package(bam)). Any failing step
# fails the test with that step's output.
foreach(var BAM_BINARY_DIR CONSUMER_SOURCE_DIR EXAMPLE_SOURCE WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run.cmake: -D${var}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install_consumer: ${what} failed (${rc}):\n${out}")
  endif()
  message(STATUS "install_consumer: ${what}: ok")
  if(what STREQUAL "run the consumer")
    message(STATUS "${out}")
  endif()
endfunction()

step("install to ${prefix}" "${CMAKE_COMMAND}" --install "${BAM_BINARY_DIR}" --prefix "${prefix}")
step("configure the consumer" "${CMAKE_COMMAND}" -S "${CONSUMER_SOURCE_DIR}" -B "${WORK_DIR}/build" -G "${GENERATOR}"
     -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" "-DCMAKE_PREFIX_PATH=${prefix}"
     "-DBAM_HOST_HEADERS_DIR=${prefix}/include/bam/host" "-DBAM_EXAMPLE_SOURCE=${EXAMPLE_SOURCE}")
step("build the consumer" "${CMAKE_COMMAND}" --build "${WORK_DIR}/build")
step("run the consumer" "${WORK_DIR}/build/bam_consumer")
