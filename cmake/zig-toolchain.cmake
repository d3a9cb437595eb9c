# Cross toolchain for the portable release build of libfalcon_jni.so:
# `zig cc`/`zig c++` (PyPI package ziglang) targeting an old glibc, e.g.
# FALCON_ZIG_TARGET=x86_64-linux-gnu.2.17 or aarch64-linux-gnu.2.17.
# zig links its own libc++ statically and links against glibc stubs of the
# requested version, so the .so loads on any glibc >= 2.17.
#
# FALCON_ZIG (environment or cache) is the command that runs zig; default:
# the project's virtual environment, `.venv/bin/python -m ziglang`.

# try_compile() projects re-read this file without the cache: forward ours.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES FALCON_ZIG_TARGET FALCON_ZIG)
if(NOT FALCON_ZIG_TARGET AND DEFINED ENV{FALCON_ZIG_TARGET})
  set(FALCON_ZIG_TARGET "$ENV{FALCON_ZIG_TARGET}")
endif()
if(NOT FALCON_ZIG_TARGET)
  message(FATAL_ERROR "set FALCON_ZIG_TARGET, e.g. x86_64-linux-gnu.2.17")
endif()
if(FALCON_ZIG_TARGET MATCHES "^aarch64")
  set(CMAKE_SYSTEM_PROCESSOR aarch64)
  set(_falcon_qemu_arch aarch64)
else()
  set(CMAKE_SYSTEM_PROCESSOR x86_64)
endif()
set(CMAKE_SYSTEM_NAME Linux)

if(NOT FALCON_ZIG)
  if(DEFINED ENV{FALCON_ZIG})
    set(FALCON_ZIG "$ENV{FALCON_ZIG}")
  else()
    get_filename_component(_falcon_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
    set(FALCON_ZIG "${_falcon_root}/.venv/bin/python -m ziglang")
  endif()
endif()
set(FALCON_ZIG "${FALCON_ZIG}" CACHE STRING "Command that runs zig")

# CMake wants one executable per compiler, so write tiny wrappers with the
# target baked in.
set(_falcon_wrapper_dir "${CMAKE_BINARY_DIR}/zig-wrappers")
file(MAKE_DIRECTORY "${_falcon_wrapper_dir}")
foreach(_tool cc c++ ar ranlib)
  if(_tool STREQUAL "cc" OR _tool STREQUAL "c++")
    set(_args "${_tool} -target ${FALCON_ZIG_TARGET}")
  else()
    set(_args "${_tool}")
  endif()
  file(WRITE "${_falcon_wrapper_dir}/zig-${_tool}"
    "#!/bin/sh\nexec ${FALCON_ZIG} ${_args} \"$@\"\n")
  file(CHMOD "${_falcon_wrapper_dir}/zig-${_tool}"
    PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endforeach()
set(CMAKE_C_COMPILER "${_falcon_wrapper_dir}/zig-cc")
set(CMAKE_CXX_COMPILER "${_falcon_wrapper_dir}/zig-c++")
set(CMAKE_AR "${_falcon_wrapper_dir}/zig-ar" CACHE FILEPATH "" FORCE)
set(CMAKE_RANLIB "${_falcon_wrapper_dir}/zig-ranlib" CACHE FILEPATH "" FORCE)

# Run cross-built tests under qemu-user when it is installed.
if(_falcon_qemu_arch AND NOT CMAKE_HOST_SYSTEM_PROCESSOR STREQUAL "aarch64")
  # qemu-user finds the target's dynamic loader and glibc under -L: Debian's
  # libc6-arm64-cross installs them in /usr/aarch64-linux-gnu.
  find_program(FALCON_QEMU qemu-${_falcon_qemu_arch})
  set(FALCON_QEMU_SYSROOT "/usr/${_falcon_qemu_arch}-linux-gnu" CACHE PATH "glibc of the target for qemu-user")
  if(FALCON_QEMU AND EXISTS "${FALCON_QEMU_SYSROOT}/lib")
    set(CMAKE_CROSSCOMPILING_EMULATOR "${FALCON_QEMU};-L;${FALCON_QEMU_SYSROOT}")
  endif()
endif()

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
