# Parallel HDF5 input/output: field dumps (+ XDMF), field input, checkpoints, series and spectra files, the
# output directory guard. Library kolmo_io, host code only; its tests and the post-processing tool's test.
if(NOT TARGET PkgConfig::KOLMO_HDF5)
  pkg_check_modules(KOLMO_HDF5 REQUIRED IMPORTED_TARGET GLOBAL hdf5-mpich)
endif()

add_library(kolmo_io STATIC
  ${PROJECT_SOURCE_DIR}/io/Hdf5.cpp
  ${PROJECT_SOURCE_DIR}/io/Collective.cpp
  ${PROJECT_SOURCE_DIR}/io/DiskSpace.cpp
  ${PROJECT_SOURCE_DIR}/io/TextFile.cpp
  ${PROJECT_SOURCE_DIR}/io/BlockTransfer.cpp
  ${PROJECT_SOURCE_DIR}/io/SlabTransfer.cpp
  ${PROJECT_SOURCE_DIR}/io/Xdmf.cpp
  ${PROJECT_SOURCE_DIR}/io/FieldFile.cpp
  ${PROJECT_SOURCE_DIR}/io/FieldReader.cpp
  ${PROJECT_SOURCE_DIR}/io/ParallelFile.cpp
  ${PROJECT_SOURCE_DIR}/io/Checkpoint.cpp
  ${PROJECT_SOURCE_DIR}/io/Resampling.cpp
  ${PROJECT_SOURCE_DIR}/io/RowTable.cpp
  ${PROJECT_SOURCE_DIR}/io/SeriesFile.cpp
  ${PROJECT_SOURCE_DIR}/io/SpectraFile.cpp
  ${PROJECT_SOURCE_DIR}/io/OutputDirectory.cpp)
target_link_libraries(kolmo_io PUBLIC kolmo_fft PkgConfig::KOLMO_HDF5 PRIVATE kolmo_options)
set_target_properties(kolmo_io PROPERTIES POSITION_INDEPENDENT_CODE ON)

if(KOLMO_BUILD_TESTS)
  add_executable(kolmo_io_tests
    ${PROJECT_SOURCE_DIR}/tests/io/IoTestSupport.cpp
    ${PROJECT_SOURCE_DIR}/tests/io/test_block_transfer.cpp
    ${PROJECT_SOURCE_DIR}/tests/io/test_field_file.cpp
    ${PROJECT_SOURCE_DIR}/tests/io/test_checkpoint.cpp
    ${PROJECT_SOURCE_DIR}/tests/io/test_resampling.cpp
    ${PROJECT_SOURCE_DIR}/tests/io/test_disk_space.cpp
    ${PROJECT_SOURCE_DIR}/tests/io/test_series.cpp
    ${PROJECT_SOURCE_DIR}/tests/io/test_errors.cpp)
  target_link_libraries(kolmo_io_tests PRIVATE kolmo_test_main kolmo_io kolmo_options)
  kolmo_mpi_tests(io kolmo_io_tests "[io]")

  # The post-processing tool on a synthetic run directory; skipped (exit 77) where h5py is missing.
  set(KOLMO_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with h5py, numpy and matplotlib for tools/*.py")
  add_test(NAME io_post COMMAND ${KOLMO_PYTHON} ${PROJECT_SOURCE_DIR}/tests/io/test_post.py
                                ${PROJECT_SOURCE_DIR}/tools/kolmo_post.py)
  set_tests_properties(io_post PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 ENVIRONMENT "MPLBACKEND=Agg")
endif()
