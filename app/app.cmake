# The kolmo command.
find_package(CLI11 REQUIRED)
add_executable(kolmo
  ${PROJECT_SOURCE_DIR}/app/main.cpp
  ${PROJECT_SOURCE_DIR}/app/BlowUp.cpp
  ${PROJECT_SOURCE_DIR}/app/FlowFromConfig.cpp
  ${PROJECT_SOURCE_DIR}/app/Inputs.cpp
  ${PROJECT_SOURCE_DIR}/app/MemoryEstimate.cpp
  ${PROJECT_SOURCE_DIR}/app/RunStatus.cpp
  ${PROJECT_SOURCE_DIR}/app/Schedule.cpp
  ${PROJECT_SOURCE_DIR}/app/NavierStokesRun.cpp
  ${PROJECT_SOURCE_DIR}/app/PoissonRun.cpp
  ${PROJECT_SOURCE_DIR}/app/Progress.cpp
  ${PROJECT_SOURCE_DIR}/app/StopRequest.cpp)
target_link_libraries(kolmo PRIVATE kolmo_solver kolmo_io kolmo_config kolmo_fft CLI11::CLI11 kolmo_options)
target_include_directories(kolmo PRIVATE ${PROJECT_SOURCE_DIR})
install(TARGETS kolmo RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

if(KOLMO_BUILD_TESTS)
  # An end-to-end test of the command: tests/app/test_<script>.py run as ctest entry <name>; extra arguments
  # are more test properties (SKIP_RETURN_CODE 77 for tests that skip, saying so, where they cannot run).
  function(kolmo_app_test name script timeout)
    add_test(NAME ${name}
             COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/app/${script} --kolmo $<TARGET_FILE:kolmo>
                     --mpiexec ${MPIEXEC_EXECUTABLE} --source ${PROJECT_SOURCE_DIR})
    set_tests_properties(${name} PROPERTIES TIMEOUT ${timeout} ${ARGN})
  endfunction()
  kolmo_app_test(app_runs test_runs.py 900)
  kolmo_app_test(app_restart_fallback test_restart_fallback.py 600)
  kolmo_app_test(app_resample test_resample.py 600)
  kolmo_app_test(app_full_disk test_full_disk.py 1800 SKIP_RETURN_CODE 77)  # needs root for a small tmpfs
  kolmo_app_test(app_safety test_safety.py 900)
  kolmo_app_test(app_fields test_fields.py 900)
  kolmo_app_test(app_mhd test_mhd.py 900)
  kolmo_app_test(app_cli test_cli.py 300)
  kolmo_app_test(app_schedule test_schedule.py 300)
  kolmo_app_test(app_poisson test_poisson.py 300)
  kolmo_app_test(app_rdt test_rdt.py 900)  # buoyancy and rotation against published rapid-distortion theory
  kolmo_app_test(app_paraview test_paraview.py 900 SKIP_RETURN_CODE 77)  # needs ParaView's pvbatch

  # Unit tests of the run's decisions that need neither a run nor a clock (app/Schedule.hpp), on one rank,
  # and the automatic split of the ky planes within the memory there is (app/MemoryEstimate.hpp).
  add_executable(kolmo_app_tests ${PROJECT_SOURCE_DIR}/tests/app/test_schedule_units.cpp
                                 ${PROJECT_SOURCE_DIR}/tests/app/test_split_choice.cpp
                                 ${PROJECT_SOURCE_DIR}/app/Schedule.cpp
                                 ${PROJECT_SOURCE_DIR}/app/MemoryEstimate.cpp
                                 ${PROJECT_SOURCE_DIR}/app/FlowFromConfig.cpp)
  target_link_libraries(kolmo_app_tests PRIVATE kolmo_test_main kolmo_solver kolmo_io kolmo_config kolmo_fft
                                                kolmo_options)
  target_include_directories(kolmo_app_tests PRIVATE ${PROJECT_SOURCE_DIR})
  add_test(NAME app_units COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 $<TARGET_FILE:kolmo_app_tests>
                                  "[app]")
  set_tests_properties(app_units PROPERTIES TIMEOUT 60)

  # A failure on one rank only (an allocation of one rank made to fail by this library, preloaded into that
  # rank alone) stops every rank with one line instead of hanging; skipped under AddressSanitizer
  # (KOLMO_SANITIZED), whose malloc the library would displace.
  add_library(kolmo_failing_allocation SHARED ${PROJECT_SOURCE_DIR}/tests/FailingAllocation.c)
  target_link_libraries(kolmo_failing_allocation PRIVATE ${CMAKE_DL_LIBS})
  add_test(NAME app_rank_failures
           COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/app/test_rank_failures.py
                   --kolmo $<TARGET_FILE:kolmo> --mpiexec ${MPIEXEC_EXECUTABLE} --source ${PROJECT_SOURCE_DIR}
                   --failing-allocation $<TARGET_FILE:kolmo_failing_allocation>)
  set_tests_properties(app_rank_failures PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77)
endif()
