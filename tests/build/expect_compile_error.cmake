# Compiles tests/build/kernel_source.cpp with the host compiler as a CUDA build would if the source were
# missing from kolmo_kernel_sources(...): the compilation must fail, and say what to do.
#   cmake -DCOMPILER=... -DSOURCE=<project root> -P expect_compile_error.cmake
execute_process(
  COMMAND ${COMPILER} -std=c++20 -fsyntax-only -DKOLMO_HAVE_CUDA -I${SOURCE} ${SOURCE}/tests/build/kernel_source.cpp
  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE errors)
if(result EQUAL 0)
  message(FATAL_ERROR "a kernel source compiled by the host compiler in a CUDA build compiled: it must not")
endif()
if(NOT errors MATCHES "compiled without nvcc in a CUDA build: list it in kolmo_kernel_sources")
  message(FATAL_ERROR "the compilation failed, but without naming kolmo_kernel_sources:\n${errors}")
endif()
message(STATUS "refused as it should be: ${errors}")
