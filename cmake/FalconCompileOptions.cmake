# Warnings, sanitizers and the portable-link flags shared by every target.

add_library(falcon_options INTERFACE)
target_compile_options(falcon_options INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wno-unused-parameter)

if(FALCON_SANITIZE)
  string(REPLACE "," ";" _falcon_sanitizers "${FALCON_SANITIZE}")
  set(_falcon_san_flags "-fsanitize=${FALCON_SANITIZE}" -fno-omit-frame-pointer)
  if("undefined" IN_LIST _falcon_sanitizers)
    list(APPEND _falcon_san_flags -fno-sanitize-recover=undefined)
  endif()
  target_compile_options(falcon_options INTERFACE ${_falcon_san_flags})
  target_link_options(falcon_options INTERFACE ${_falcon_san_flags})
endif()

if(FALCON_PORTABLE AND CMAKE_BUILD_TYPE STREQUAL "Release")
  # The shipped .so carries no debug info (dynamic symbols are unaffected).
  target_link_options(falcon_options INTERFACE -s)
endif()
if(FALCON_PORTABLE AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  # zig's clang links its own libc++ statically already; GCC needs to be told.
  target_link_options(falcon_options INTERFACE -static-libstdc++ -static-libgcc)
endif()
