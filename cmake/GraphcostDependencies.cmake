# Third-party libraries, all from Debian packages (scripts/setup.sh installs them).
# Native builds use the installed libraries. The WebAssembly build cannot link host libraries: it
# compiles zlib and XGBoost (cmake/XGBoostWasm.cmake) from Debian's source packages (third_party/,
# fetched by setup.sh) and reaches the header-only libraries through a folder of symlinks (never -I/usr/include, which breaks emscripten).

if(EMSCRIPTEN)
  set(GRAPHCOST_THIRD_PARTY "${PROJECT_SOURCE_DIR}/third_party")
  if(NOT EXISTS "${GRAPHCOST_THIRD_PARTY}/zlib/zlib.h")
    message(FATAL_ERROR "third_party/zlib is missing: run scripts/setup.sh first")
  endif()
  set(zlib_dir "${GRAPHCOST_THIRD_PARTY}/zlib")
  add_library(graphcost_zlib STATIC
    ${zlib_dir}/adler32.c ${zlib_dir}/crc32.c ${zlib_dir}/deflate.c ${zlib_dir}/infback.c
    ${zlib_dir}/inffast.c ${zlib_dir}/inflate.c ${zlib_dir}/inftrees.c ${zlib_dir}/trees.c
    ${zlib_dir}/zutil.c ${zlib_dir}/compress.c ${zlib_dir}/uncompr.c)
  set_target_properties(graphcost_zlib PROPERTIES LINKER_LANGUAGE C)
  target_compile_definitions(graphcost_zlib PRIVATE HAVE_UNISTD_H)
  target_include_directories(graphcost_zlib SYSTEM PUBLIC ${zlib_dir})
  add_library(ZLIB::ZLIB ALIAS graphcost_zlib)

  set(header_links "${CMAKE_BINARY_DIR}/host_headers")
  file(MAKE_DIRECTORY "${header_links}")
  foreach(header_dir nlohmann CLI eigen3/Eigen eigen3/unsupported)
    get_filename_component(link_name "${header_dir}" NAME)
    if(NOT EXISTS "${header_links}/${link_name}")
      file(CREATE_LINK "/usr/include/${header_dir}" "${header_links}/${link_name}" SYMBOLIC)
    endif()
  endforeach()
  foreach(name nlohmann_json::nlohmann_json CLI11::CLI11 Eigen3::Eigen)
    string(REPLACE "::" "_" target_name "${name}")
    add_library(${target_name} INTERFACE)
    target_include_directories(${target_name} SYSTEM INTERFACE "${header_links}")
    add_library(${name} ALIAS ${target_name})
  endforeach()
  include("${CMAKE_CURRENT_LIST_DIR}/XGBoostWasm.cmake")
else()
  find_package(ZLIB REQUIRED)
  find_package(nlohmann_json 3.10 REQUIRED)
  find_package(CLI11 REQUIRED)
  find_package(Eigen3 3.4 REQUIRED NO_MODULE)
  # METIS (Debian libmetis-dev: no CMake config) partitions graphs for Graph Segment Training.
  # Training does not run in the browser, so the WebAssembly build goes without it.
  # XGBoost (Debian libxgboost-dev: a C API, no CMake config): the learners' gradient-boosted trees.
  find_path(XGBOOST_INCLUDE_DIR xgboost/c_api.h REQUIRED)
  find_library(XGBOOST_LIBRARY xgboost REQUIRED)
  add_library(XGBoost::XGBoost UNKNOWN IMPORTED)
  set_target_properties(XGBoost::XGBoost PROPERTIES IMPORTED_LOCATION "${XGBOOST_LIBRARY}" INTERFACE_INCLUDE_DIRECTORIES "${XGBOOST_INCLUDE_DIR}")
  if(GRAPHCOST_WITH_METIS)
    find_path(METIS_INCLUDE_DIR metis.h REQUIRED)
    find_library(METIS_LIBRARY metis REQUIRED)
    add_library(METIS::METIS UNKNOWN IMPORTED)
    set_target_properties(METIS::METIS PROPERTIES IMPORTED_LOCATION "${METIS_LIBRARY}" INTERFACE_INCLUDE_DIRECTORIES "${METIS_INCLUDE_DIR}")
  endif()
endif()
