// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// The library's only exported symbols (see exports.map).

#include <jni.h>

#include "jni_util.h"
#include "registration.h"

extern "C" {

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM* vm, void* /*reserved*/) {
  JNIEnv* env = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_8) != JNI_OK) {
    return JNI_ERR;
  }
  if (!falcon::jni::CacheClasses(env)) return JNI_ERR;
  using Register = bool (*)(JNIEnv*);
  static const Register kRegistrations[] = {
      &falcon::jni::RegisterFalconNative,  &falcon::jni::RegisterTuningAdvisor,
      &falcon::jni::RegisterHotStateCache, &falcon::jni::RegisterMapCache,
      &falcon::jni::RegisterMemoryBudget,
  };
  for (Register reg : kRegistrations) {
    if (!reg(env)) return JNI_ERR;
  }
  return JNI_VERSION_1_8;
}

JNIEXPORT void JNICALL JNI_OnUnload(JavaVM* vm, void* /*reserved*/) {
  JNIEnv* env = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_8) == JNI_OK) {
    falcon::jni::ReleaseClasses(env);
  }
}

}  // extern "C"
