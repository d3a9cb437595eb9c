// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// Natives of io.falconstate.flink.nativeaccess.FalconNative: the round trip
// that proves the library is loaded and is the version, and has the JNI
// layouts, the jar expects; and every shared constant, for the test that
// compares them with the jar's.

#include <string>

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

// "NAME=VALUE" lines, one per shared constant (layout::kNamedConstants).
jstring NativeLayoutConstants(JNIEnv* env, jclass) {
  return GuardJni<jstring>(env, nullptr, [&] {
    std::string text;
    for (const layout::NamedConstant& c : layout::kNamedConstants) {
      text.append(c.name).append("=").append(std::to_string(c.value));
      text.push_back('\n');
    }
    return env->NewStringUTF(text.c_str());
  });
}

}  // namespace

bool RegisterFalconNative(JNIEnv* env) {
  static const JNINativeMethod kMethods[] = {
      FALCON_NATIVE("nativeVersion", "()Ljava/lang/String;", NativeVersion),
      FALCON_NATIVE("nativeVersionNumber", "()Ljava/lang/String;",
                    NativeVersionNumber),
      FALCON_NATIVE("nativeLayoutVersion", "()I", NativeLayoutVersion),
      FALCON_NATIVE("nativeLayoutConstants", "()Ljava/lang/String;",
                    NativeLayoutConstants),
  };
  return RegisterClassNatives(
      env, "io/falconstate/flink/nativeaccess/FalconNative", kMethods);
}

}  // namespace falcon::jni
