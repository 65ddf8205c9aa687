# Installs the build tree into a scratch prefix, then configures, builds and runs tests/package as another
# project would: find_package(kolmo) and kolmo::fft. Arguments: -DBUILD=... -DSOURCE=... -DWORK=...
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix RESULT_VARIABLE status
                OUTPUT_QUIET)
if(status)
  message(FATAL_ERROR "cmake --install failed")
endif()
# Private headers are not installed.
foreach(private core/CudaCheck.hpp core/CudaEvent.hpp core/ParallelFor.hpp fft/ChunkRoutes.hpp
                fft/DroppedColumns.hpp fft/Executors.hpp fft/KeptModeMask.hpp fft/PhaseClock.hpp fft/Reshapes.hpp
                fft/Route.hpp fft/WireFormat.hpp)
  if(EXISTS ${WORK}/prefix/include/kolmo/${private})
    message(FATAL_ERROR "the private header ${private} was installed")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK}/build -DCMAKE_PREFIX_PATH=${WORK}/prefix
                RESULT_VARIABLE status)
if(status)
  message(FATAL_ERROR "find_package(kolmo) from the installed tree failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/build RESULT_VARIABLE status)
if(status)
  message(FATAL_ERROR "building against the installed kolmo::fft failed")
endif()
execute_process(COMMAND ${WORK}/build/consumer RESULT_VARIABLE status)
if(status)
  message(FATAL_ERROR "the consumer program failed")
endif()
