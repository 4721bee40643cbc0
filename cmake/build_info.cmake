# cmake -DSOURCE_DIR= -DIN= -DOUT= -DBUILD_TYPE= -P build_info.cmake
# Writes OUT from IN with the checkout's commit and dirty flag; touches OUT
# only when the text changes (configure_file's rule).
execute_process(COMMAND git rev-parse --short=12 HEAD
  WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_VARIABLE FTB_GIT_COMMIT
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT FTB_GIT_COMMIT)
  set(FTB_GIT_COMMIT "unknown")
  set(FTB_GIT_DIRTY "unknown")
else()
  # Tracked files only: build folders and venvs are not source changes.
  execute_process(COMMAND git status --porcelain --untracked-files=no
    WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_VARIABLE changes
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(changes)
    set(FTB_GIT_DIRTY "dirty")
  else()
    set(FTB_GIT_DIRTY "clean")
  endif()
endif()
set(CMAKE_BUILD_TYPE ${BUILD_TYPE})
configure_file(${IN} ${OUT} @ONLY)
