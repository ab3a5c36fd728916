# SPDX-License-Identifier: Apache-2.0
# Compile options for every bam target, included from the top-level CMakeLists.txt: the same
# warnings for C++ and CUDA (host code of .cu files gets them through -Xcompiler), and file
# names relative to the repository root in __FILE__ (error messages name "host/x.cpp:12", not
# the build machine's absolute path).

set(BAM_WARNINGS -Wall -Wextra)
list(JOIN BAM_WARNINGS "," _bam_warnings_csv)
add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${BAM_WARNINGS}>"
                    "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${_bam_warnings_csv}>")

# The compiler may see a source as an absolute path, or (ccache with base_dir) as a path relative
# to the build directory: map both prefixes to the repository root.
file(RELATIVE_PATH _bam_source_from_build "${CMAKE_BINARY_DIR}" "${PROJECT_SOURCE_DIR}")
string(REGEX REPLACE "/+$" "" _bam_source_from_build "${_bam_source_from_build}")
set(_bam_prefix_maps "-fmacro-prefix-map=${PROJECT_SOURCE_DIR}/=")
if(_bam_source_from_build)
  list(APPEND _bam_prefix_maps "-fmacro-prefix-map=${_bam_source_from_build}/=")
endif()
foreach(_map IN LISTS _bam_prefix_maps)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${_map}>" "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${_map}>")
endforeach()

if(BAM_SANITIZE)
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fsanitize=${BAM_SANITIZE}> $<$<COMPILE_LANGUAGE:CXX>:-fno-omit-frame-pointer>)
  add_link_options(-fsanitize=${BAM_SANITIZE})
endif()
