# SPDX-License-Identifier: Apache-2.0
# Compile options for every bam target, included from the top-level CMakeLists.txt: the same
# warnings for C++ and CUDA (host code of .cu files gets them through -Xcompiler), and the
# sanitizer of the whole build.

set(BAM_WARNINGS -Wall -Wextra)
list(JOIN BAM_WARNINGS "," _bam_warnings_csv)
add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${BAM_WARNINGS}>"
                    "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${_bam_warnings_csv}>")

if(BAM_SANITIZE)
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fsanitize=${BAM_SANITIZE}> $<$<COMPILE_LANGUAGE:CXX>:-fno-omit-frame-pointer>)
  add_link_options(-fsanitize=${BAM_SANITIZE})
endif()
