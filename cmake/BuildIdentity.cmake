# Run at every build (cmake -P): writes OUTPUT, a line defining KOLMO_BUILD_IDENTITY as the project's version
# and, in a git checkout, its commit ("0.1.0 (git 0183cd8a1b2c)", "-dirty" where files differ from it), so that
# what was built is named exactly in the files it writes and in the keys of the route choices it keeps. The
# file is rewritten only when that text changes, so an unchanged checkout rebuilds nothing.
#   cmake -DSOURCE=<source dir> -DOUTPUT=<header> -DVERSION=<version> -P BuildIdentity.cmake
set(identity "${VERSION}")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${SOURCE}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE}" describe --always --dirty --abbrev=12
                  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE failed)
  if(NOT failed AND commit)
    set(identity "${VERSION} (git ${commit})")
  endif()
endif()
set(text "#define KOLMO_BUILD_IDENTITY \"${identity}\"\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUTPUT}" "${text}")
endif()
