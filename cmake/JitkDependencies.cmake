# Abseil and SQLite are linked statically so that a build folder carried to a
# machine without them (the H200 image has neither) still runs.  Debian's
# abseil CMake package points at the shared objects, so the archives are
# collected here and linked as one group (their mutual order is not known).

find_path(JITK_ABSL_INCLUDE absl/status/status.h REQUIRED)
file(GLOB JITK_ABSL_ARCHIVES
     /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/libabsl_*.a
     /usr/lib/libabsl_*.a /usr/local/lib/libabsl_*.a)
if(NOT JITK_ABSL_ARCHIVES)
  message(FATAL_ERROR "abseil static archives not found: apt-get install libabsl-dev")
endif()
add_library(jitk_absl INTERFACE)
target_include_directories(jitk_absl SYSTEM INTERFACE ${JITK_ABSL_INCLUDE})
target_link_libraries(jitk_absl INTERFACE
    "-Wl,--start-group" ${JITK_ABSL_ARCHIVES} "-Wl,--end-group" Threads::Threads)

find_package(Threads REQUIRED)

find_path(JITK_SQLITE_INCLUDE sqlite3.h REQUIRED)
find_library(JITK_SQLITE_ARCHIVE NAMES libsqlite3.a REQUIRED)
add_library(jitk_sqlite INTERFACE)
target_include_directories(jitk_sqlite SYSTEM INTERFACE ${JITK_SQLITE_INCLUDE})
target_link_libraries(jitk_sqlite INTERFACE ${JITK_SQLITE_ARCHIVE} ${CMAKE_DL_LIBS} m Threads::Threads)

if(JITK_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(JITK_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()
