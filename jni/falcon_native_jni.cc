// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// Natives of io.falconstate.flink.nativeaccess.FalconNative: the round trip
// that proves the library is loaded and is the version, and has the JNI
// layouts, the jar expects.

#include "falcon/version.h"
#include "jni_util.h"
#include "native_layout.h"
#include "registration.h"

namespace falcon::jni {
namespace {

jstring NativeVersion(JNIEnv* env, jclass) {
  return GuardJni<jstring>(env, nullptr,
                           [&] { return env->NewStringUTF(VersionString()); });
}

jstring NativeVersionNumber(JNIEnv* env, jclass) {
  return GuardJni<jstring>(
      env, nullptr, [&] { return env->NewStringUTF(FALCON_VERSION_STRING); });
}

jint NativeLayoutVersion(JNIEnv*, jclass) { return layout::kLayoutVersion; }

}  // namespace

bool RegisterFalconNative(JNIEnv* env) {
  static const JNINativeMethod kMethods[] = {
      FALCON_NATIVE("nativeVersion", "()Ljava/lang/String;", NativeVersion),
      FALCON_NATIVE("nativeVersionNumber", "()Ljava/lang/String;",
                    NativeVersionNumber),
      FALCON_NATIVE("nativeLayoutVersion", "()I", NativeLayoutVersion),
  };
  return RegisterClassNatives(
      env, "io/falconstate/flink/nativeaccess/FalconNative", kMethods);
}

}  // namespace falcon::jni
