// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// One Register* function per Java class with native methods, each defined in
// that class's *_jni.cc file and called once from JNI_OnLoad. Natives are
// bound with RegisterNatives, so the library exports only JNI_OnLoad and
// JNI_OnUnload, and a Java/C++ signature mismatch fails at load time.
//
// A class's table is written with FALCON_NATIVE and registered with
// RegisterClassNatives:
//
//   static const JNINativeMethod kMethods[] = {
//       FALCON_NATIVE("nativeGet", "(JII)I", Get),
//   };
//   return RegisterClassNatives(env,
//   "io/falconstate/flink/nativeaccess/NativeHotStateCache", kMethods);

#ifndef FALCON_JNI_REGISTRATION_H_
#define FALCON_JNI_REGISTRATION_H_

#include <jni.h>

#include <cstddef>

#include "jni_util.h"

// One entry of a RegisterNatives table: Java name, JNI signature, function.
#define FALCON_NATIVE(name, signature, function)           \
  JNINativeMethod {                                        \
    const_cast<char*>(name), const_cast<char*>(signature), \
        reinterpret_cast<void*>(&(function))               \
  }

namespace falcon::jni {

// Registers a whole table on `class_name`; false (with a pending exception)
// if the class or a method is missing.
template <size_t N>
bool RegisterClassNatives(JNIEnv* env, const char* class_name,
                          const JNINativeMethod (&methods)[N]) {
  return RegisterNatives(env, class_name, methods, static_cast<int>(N));
}

bool RegisterFalconNative(JNIEnv* env);
bool RegisterTuningAdvisor(JNIEnv* env);
bool RegisterHotStateCache(JNIEnv* env);
bool RegisterMapCache(JNIEnv* env);
bool RegisterMemoryBudget(JNIEnv* env);

}  // namespace falcon::jni

#endif  // FALCON_JNI_REGISTRATION_H_
