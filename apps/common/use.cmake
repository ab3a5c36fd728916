# SPDX-License-Identifier: Apache-2.0
# Makes bam_apps_common available to apps/, tests/ and bench/ (whichever comes first adds it).
if(NOT TARGET bam_apps_common)
  add_subdirectory(${PROJECT_SOURCE_DIR}/apps/common ${PROJECT_BINARY_DIR}/apps/common)
endif()

#[[ bam_script_beside(TARGET SCRIPT...) : copies each SCRIPT beside TARGET's executable after every
    build (found there at run time by apps/common/python_script.hpp) and installs it with it. ]]
function(bam_script_beside target)
  foreach(script IN LISTS ARGN)
    add_custom_command(TARGET ${target} POST_BUILD
      COMMAND ${CMAKE_COMMAND} -E copy_if_different ${script} $<TARGET_FILE_DIR:${target}>)
  endforeach()
endfunction()
