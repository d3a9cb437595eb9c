// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// Helpers shared by every *_jni.cc file. jni/ is the only directory that
// includes <jni.h>.
//
// Contract of every native entry point: it never lets a C++ exception reach
// the JVM (GuardJni), checks every argument, and reports errors by throwing a
// Java exception from a class cached in JNI_OnLoad (never FindClass on a hot
// path, which could also resolve against the wrong class loader).

#ifndef FALCON_JNI_JNI_UTIL_H_
#define FALCON_JNI_JNI_UTIL_H_

#include <jni.h>

#include <cstdint>
#include <new>
#include <type_traits>

#include "falcon/status.h"

namespace falcon::jni {

// Global references cached by JNI_OnLoad; valid until JNI_OnUnload.
struct CachedClasses {
  jclass illegal_argument_exception = nullptr;
  jclass illegal_state_exception = nullptr;
  jclass index_out_of_bounds_exception = nullptr;
  jclass null_pointer_exception = nullptr;
  jclass out_of_memory_error = nullptr;
  jclass runtime_exception = nullptr;
};
const CachedClasses& Classes();

// Called from JNI_OnLoad / JNI_OnUnload only.
bool CacheClasses(JNIEnv* env);
void ReleaseClasses(JNIEnv* env);

void ThrowIllegalArgument(JNIEnv* env, const char* message);
void ThrowIllegalState(JNIEnv* env, const char* message);
void ThrowIndexOutOfBounds(JNIEnv* env, const char* message);
void ThrowNullPointer(JNIEnv* env, const char* message);
void ThrowOutOfMemory(JNIEnv* env, const char* message);
// Maps a non-OK Status to the Java exception that fits its code.
void ThrowStatus(JNIEnv* env, const Status& status);

// Handles: a Java `long` holds a pointer to a native object owned by exactly
// one Java object, which frees it in its idempotent close().
template <class T>
inline jlong ToHandle(T* object) {
  return static_cast<jlong>(reinterpret_cast<std::uintptr_t>(object));
}
template <class T>
inline T* FromHandle(jlong handle) {
  return reinterpret_cast<T*>(static_cast<std::uintptr_t>(handle));
}

// Registers `methods` on the class `class_name`; false (with a pending
// exception) if the class or a method is missing.
bool RegisterNatives(JNIEnv* env, const char* class_name,
                     const JNINativeMethod* methods, int count);

// Runs `body`, turning any escaping C++ exception into a Java exception and
// returning `on_error` instead. Every native entry point is wrapped by it.
template <class R, class Body>
inline R GuardJni(JNIEnv* env, R on_error, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    ThrowOutOfMemory(env, "falcon: native allocation failed");
  } catch (...) {
    ThrowIllegalState(env, "falcon: unexpected native exception");
  }
  return on_error;
}

template <class Body>
inline void GuardJniVoid(JNIEnv* env, Body&& body) noexcept {
  try {
    body();
  } catch (const std::bad_alloc&) {
    ThrowOutOfMemory(env, "falcon: native allocation failed");
  } catch (...) {
    ThrowIllegalState(env, "falcon: unexpected native exception");
  }
}

}  // namespace falcon::jni

#endif  // FALCON_JNI_JNI_UTIL_H_
