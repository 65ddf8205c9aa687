# The physics library: Navier-Stokes with scalars, buoyancy and rotation, forcing, diagnostics, spectra,
# initial conditions, the Poisson solver.
# Included from the top-level CMakeLists.txt; paths are relative to the project root.
set(KOLMO_SOLVER_SOURCES
  ${PROJECT_SOURCE_DIR}/solver/Terms.cpp
  ${PROJECT_SOURCE_DIR}/solver/Forcing.cpp
  ${PROJECT_SOURCE_DIR}/solver/Integrators.cpp
  ${PROJECT_SOURCE_DIR}/solver/NavierStokes.cpp
  ${PROJECT_SOURCE_DIR}/solver/ProductsInRows.cpp
  ${PROJECT_SOURCE_DIR}/solver/Diagnostics.cpp
  ${PROJECT_SOURCE_DIR}/solver/Spectrum.cpp
  ${PROJECT_SOURCE_DIR}/solver/InitialConditions.cpp
  ${PROJECT_SOURCE_DIR}/solver/Poisson.cpp)

add_library(kolmo_solver STATIC ${KOLMO_SOLVER_SOURCES})
# Every solver source runs pointwise kernels: nvcc compiles them when CUDA is on.
kolmo_kernel_sources(${KOLMO_SOLVER_SOURCES})
target_link_libraries(kolmo_solver PUBLIC kolmo_fft PRIVATE $<BUILD_INTERFACE:kolmo_options>)
target_include_directories(kolmo_solver PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>)
set_target_properties(kolmo_solver PROPERTIES POSITION_INDEPENDENT_CODE ON)

if(KOLMO_BUILD_TESTS)
  add_executable(kolmo_solver_tests
    ${PROJECT_SOURCE_DIR}/tests/solver/test_exact_flows.cpp
    ${PROJECT_SOURCE_DIR}/tests/solver/test_convergence.cpp
    ${PROJECT_SOURCE_DIR}/tests/solver/test_conservation.cpp
    ${PROJECT_SOURCE_DIR}/tests/solver/test_forcing.cpp
    ${PROJECT_SOURCE_DIR}/tests/solver/test_spectrum.cpp
    ${PROJECT_SOURCE_DIR}/tests/solver/test_wavenumbers.cpp
    ${PROJECT_SOURCE_DIR}/tests/solver/test_initial_conditions.cpp
    ${PROJECT_SOURCE_DIR}/tests/solver/test_poisson.cpp
    ${PROJECT_SOURCE_DIR}/tests/solver/test_nonlinear_forms.cpp
    ${PROJECT_SOURCE_DIR}/tests/solver/test_stepping.cpp
    ${PROJECT_SOURCE_DIR}/tests/solver/test_scalars.cpp
    ${PROJECT_SOURCE_DIR}/tests/solver/test_waves.cpp
    ${PROJECT_SOURCE_DIR}/tests/solver/test_mhd.cpp
    ${PROJECT_SOURCE_DIR}/tests/solver/test_mhd_terms.cpp
    ${PROJECT_SOURCE_DIR}/tests/solver/test_triads.cpp
    ${PROJECT_SOURCE_DIR}/tests/solver/test_gpu.cpp
    ${PROJECT_SOURCE_DIR}/tests/solver/SolverTestSupport.cpp)
  target_link_libraries(kolmo_solver_tests PRIVATE kolmo_test_main kolmo_solver fftw3 kolmo_options)
  kolmo_mpi_tests(solver kolmo_solver_tests "[solver]")
endif()
