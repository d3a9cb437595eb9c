// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// Natives of io.falconstate.flink.nativeaccess.FalconNative: the round trip
// that proves the library is loaded and is the version the jar expects.

#include "falcon/version.h"
#include "jni_util.h"
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

}  // namespace

bool RegisterFalconNative(JNIEnv* env) {
  static const JNINativeMethod kMethods[] = {
      {const_cast<char*>("nativeVersion"), const_cast<char*>("()Ljava/lang/String;"),
       reinterpret_cast<void*>(&NativeVersion)},
      {const_cast<char*>("nativeVersionNumber"),
       const_cast<char*>("()Ljava/lang/String;"),
       reinterpret_cast<void*>(&NativeVersionNumber)},
  };
  return RegisterNatives(env, "io/falconstate/flink/nativeaccess/FalconNative",
                         kMethods, sizeof(kMethods) / sizeof(kMethods[0]));
}

}  // namespace falcon::jni
