# Third-party dependencies, all from Debian packages (nothing is downloaded at
# configure time): xxHash (header-only, compiled in), GoogleTest, Google
# Benchmark, and the JNI headers of the JDK that builds the jar.

# xxHash is used header-only (XXH_INLINE_ALL), so libfalcon_jni.so carries it
# and needs no libxxhash at run time. Cross builds must not search /usr/include
# wholesale, so the one header is copied into the build tree.
find_path(FALCON_XXHASH_HEADER_DIR xxhash.h
  PATHS /usr/include /usr/local/include NO_CMAKE_FIND_ROOT_PATH)
if(NOT FALCON_XXHASH_HEADER_DIR)
  message(FATAL_ERROR "xxhash.h not found: apt-get install libxxhash-dev")
endif()
set(FALCON_THIRD_PARTY_INCLUDE "${CMAKE_BINARY_DIR}/third_party/include")
configure_file("${FALCON_XXHASH_HEADER_DIR}/xxhash.h"
  "${FALCON_THIRD_PARTY_INCLUDE}/xxhash.h" COPYONLY)
add_library(falcon_xxhash INTERFACE)
target_include_directories(falcon_xxhash SYSTEM INTERFACE "${FALCON_THIRD_PARTY_INCLUDE}")
target_compile_definitions(falcon_xxhash INTERFACE XXH_INLINE_ALL)

if(FALCON_BUILD_JNI)
  if(NOT FALCON_JNI_INCLUDE_DIR)
    set(_falcon_java_homes "$ENV{JAVA_HOME}" /usr/lib/jvm/default-java /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/java-17-openjdk-arm64)
    foreach(_home IN LISTS _falcon_java_homes)
      if(_home AND EXISTS "${_home}/include/jni.h")
        set(FALCON_JNI_INCLUDE_DIR "${_home}/include" CACHE PATH "Directory holding jni.h")
        break()
      endif()
    endforeach()
  endif()
  if(NOT FALCON_JNI_INCLUDE_DIR OR NOT EXISTS "${FALCON_JNI_INCLUDE_DIR}/jni.h")
    message(FATAL_ERROR "jni.h not found: set JAVA_HOME or -DFALCON_JNI_INCLUDE_DIR")
  endif()
  # jni_md.h for Linux is the same on x86_64 and aarch64.
  add_library(falcon_jni_headers INTERFACE)
  target_include_directories(falcon_jni_headers SYSTEM INTERFACE
    "${FALCON_JNI_INCLUDE_DIR}" "${FALCON_JNI_INCLUDE_DIR}/linux")
endif()

if(FALCON_BUILD_TESTS OR FALCON_BUILD_BENCHMARKS)
  if(FALCON_GTEST_FROM_SOURCE)
    set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
    set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
    add_subdirectory(/usr/src/googletest "${CMAKE_BINARY_DIR}/googletest" EXCLUDE_FROM_ALL)
    # googletest's own CMake defines the GTest:: aliases.
  else()
    find_package(GTest REQUIRED)
  endif()
endif()

if(FALCON_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()
