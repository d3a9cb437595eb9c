// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.

#include "falcon/version.h"

#define FALCON_STR2(x) #x
#define FALCON_STR(x) FALCON_STR2(x)

#if defined(__clang__)
#define FALCON_COMPILER                                \
  "clang " FALCON_STR(__clang_major__) "." FALCON_STR( \
      __clang_minor__) "." FALCON_STR(__clang_patchlevel__)
#elif defined(__GNUC__)
#define FALCON_COMPILER                                                      \
  "gcc " FALCON_STR(__GNUC__) "." FALCON_STR(__GNUC_MINOR__) "." FALCON_STR( \
      __GNUC_PATCHLEVEL__)
#else
#define FALCON_COMPILER "unknown compiler"
#endif

#if defined(__x86_64__)
#define FALCON_ARCH "x86_64"
#elif defined(__aarch64__)
#define FALCON_ARCH "aarch64"
#else
#define FALCON_ARCH "unknown arch"
#endif

namespace falcon {

const char* VersionString() {
  return FALCON_VERSION_STRING " (" FALCON_COMPILER ", " FALCON_ARCH ")";
}

}  // namespace falcon
