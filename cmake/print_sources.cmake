# Prints the named source lists of cmake/torch_free_sources.cmake, one path a
# line, for a script that compiles them outside CMake (tools/tsan.sh): the
# same lists the normal build compiles, so a source that moves or joins a
# library cannot break one build without the other.
#   cmake -DFTB_ROOT=<repo> -DFTB_LISTS="FTB_BASE_SOURCES;FTB_LAUNCH_SOURCES" -P cmake/print_sources.cmake
if(NOT FTB_ROOT OR NOT FTB_LISTS)
  message(FATAL_ERROR "print_sources.cmake: needs -DFTB_ROOT=<repo> -DFTB_LISTS=<list names>")
endif()
include(${FTB_ROOT}/cmake/torch_free_sources.cmake)
foreach(list IN LISTS FTB_LISTS)
  if(NOT DEFINED ${list})
    message(FATAL_ERROR "print_sources.cmake: no list ${list} in cmake/torch_free_sources.cmake")
  endif()
  foreach(src IN LISTS ${list})
    # message() writes to stderr; echo writes the path to stdout.
    execute_process(COMMAND ${CMAKE_COMMAND} -E echo "${src}")
  endforeach()
endforeach()
