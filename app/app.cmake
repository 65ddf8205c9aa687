# The kolmo command.
find_package(CLI11 REQUIRED)
add_executable(kolmo
  ${PROJECT_SOURCE_DIR}/app/main.cpp
  ${PROJECT_SOURCE_DIR}/app/BlowUp.cpp
  ${PROJECT_SOURCE_DIR}/app/FlowFromConfig.cpp
  ${PROJECT_SOURCE_DIR}/app/Inputs.cpp
  ${PROJECT_SOURCE_DIR}/app/MemoryEstimate.cpp
  ${PROJECT_SOURCE_DIR}/app/RunStatus.cpp
  ${PROJECT_SOURCE_DIR}/app/NavierStokesRun.cpp
  ${PROJECT_SOURCE_DIR}/app/PoissonRun.cpp
  ${PROJECT_SOURCE_DIR}/app/Progress.cpp
  ${PROJECT_SOURCE_DIR}/app/StopRequest.cpp)
target_link_libraries(kolmo PRIVATE kolmo_solver kolmo_io kolmo_config kolmo_fft CLI11::CLI11 kolmo_options)
target_include_directories(kolmo PRIVATE ${PROJECT_SOURCE_DIR})
install(TARGETS kolmo RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

if(KOLMO_BUILD_TESTS)
  add_test(NAME app_runs
           COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/app/test_runs.py --kolmo $<TARGET_FILE:kolmo>
                   --mpiexec ${MPIEXEC_EXECUTABLE} --source ${PROJECT_SOURCE_DIR})
  set_tests_properties(app_runs PROPERTIES TIMEOUT 900)
  add_test(NAME app_restart_fallback
           COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/app/test_restart_fallback.py --kolmo
                   $<TARGET_FILE:kolmo> --mpiexec ${MPIEXEC_EXECUTABLE} --source ${PROJECT_SOURCE_DIR})
  set_tests_properties(app_restart_fallback PROPERTIES TIMEOUT 600)
  # Needs root to mount a small tmpfs; skipped (exit 77), saying so, otherwise.
  add_test(NAME app_full_disk
           COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/app/test_full_disk.py --kolmo $<TARGET_FILE:kolmo>
                   --mpiexec ${MPIEXEC_EXECUTABLE} --source ${PROJECT_SOURCE_DIR})
  set_tests_properties(app_full_disk PROPERTIES TIMEOUT 1800 SKIP_RETURN_CODE 77)
  add_test(NAME app_safety
           COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/app/test_safety.py --kolmo $<TARGET_FILE:kolmo>
                   --mpiexec ${MPIEXEC_EXECUTABLE} --source ${PROJECT_SOURCE_DIR})
  set_tests_properties(app_safety PROPERTIES TIMEOUT 900)
  add_test(NAME app_fields
           COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/app/test_fields.py --kolmo $<TARGET_FILE:kolmo>
                   --mpiexec ${MPIEXEC_EXECUTABLE} --source ${PROJECT_SOURCE_DIR})
  set_tests_properties(app_fields PROPERTIES TIMEOUT 900)
  add_test(NAME app_paraview
           COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/app/test_paraview.py --kolmo $<TARGET_FILE:kolmo>
                   --mpiexec ${MPIEXEC_EXECUTABLE} --source ${PROJECT_SOURCE_DIR})
  set_tests_properties(app_paraview PROPERTIES TIMEOUT 900 SKIP_RETURN_CODE 77)
endif()
