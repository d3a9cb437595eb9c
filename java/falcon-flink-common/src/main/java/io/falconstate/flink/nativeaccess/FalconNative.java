/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.nativeaccess;

/**
 * Native entry points of {@code libfalcon_jni.so} that identify the library. They are bound by
 * {@code RegisterNatives} in the library's {@code JNI_OnLoad}; call them only after {@link
 * NativeLibrary#load()} reported success.
 */
public final class FalconNative {

    private FalconNative() {}

    /** The native version, e.g. {@code "0.1.0 (gcc 12.2.0, x86_64)"}. */
    public static String version() {
        return nativeVersion();
    }

    /** The bare version number the library was built from, e.g. {@code "0.1.0"}. */
    public static String versionNumber() {
        return nativeVersionNumber();
    }

    /**
     * The version of the JNI layouts the library was built with ({@code jni/native_layout.h}); the
     * jar's is {@link NativeLayout#LAYOUT_VERSION}.
     */
    public static int layoutVersion() {
        return nativeLayoutVersion();
    }

    /**
     * Every constant the library shares with the jar, one {@code NAME=VALUE} line each, named as
     * the fields of {@link NativeLayout}: for the test that compares the two sides.
     */
    public static String layoutConstants() {
        return nativeLayoutConstants();
    }

    private static native String nativeVersion();

    private static native String nativeVersionNumber();

    private static native int nativeLayoutVersion();

    private static native String nativeLayoutConstants();
}
