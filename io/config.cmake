# The run configuration (io/Config*): YAML schema, loader, validation and writer; its tests and the generator of
# the reference table and examples list in docs/configuration.md. Included from the top-level CMakeLists.txt.
find_package(yaml-cpp REQUIRED)

add_library(kolmo_config STATIC ${PROJECT_SOURCE_DIR}/io/Config.cpp ${PROJECT_SOURCE_DIR}/io/ConfigSchema.cpp)
target_link_libraries(kolmo_config PUBLIC kolmo_fft PRIVATE yaml-cpp kolmo_options)

# Prints the reference table, or rewrites the generated parts of markdown files in place (the key table, the
# list of configs/): kolmo_config_doc docs/configuration.md README.md
add_executable(kolmo_config_doc ${PROJECT_SOURCE_DIR}/tests/config/config_doc.cpp)
target_link_libraries(kolmo_config_doc PRIVATE kolmo_config kolmo_options)

if(KOLMO_BUILD_TESTS)
  add_executable(kolmo_config_tests
    ${PROJECT_SOURCE_DIR}/tests/config/test_examples.cpp
    ${PROJECT_SOURCE_DIR}/tests/config/test_overrides.cpp
    ${PROJECT_SOURCE_DIR}/tests/config/test_bad_files.cpp
    ${PROJECT_SOURCE_DIR}/tests/config/test_schema_doc.cpp
    ${PROJECT_SOURCE_DIR}/tests/config/test_ranks.cpp)
  target_link_libraries(kolmo_config_tests PRIVATE kolmo_test_main kolmo_config kolmo_options)
  # The tests read configs/, tests/config/bad/ and docs/configuration.md from the source tree.
  target_compile_definitions(kolmo_config_tests PRIVATE KOLMO_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  kolmo_mpi_tests(config kolmo_config_tests "[config]")
endif()
