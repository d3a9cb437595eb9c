/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.nativeaccess;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What {@link NativeLibrary#load()} did: whether {@code libfalcon_jni.so} is usable in this class
 * loader, from which file, and every place that was tried with the reason it was or was not used.
 * Immutable.
 */
public final class NativeLoadResult {

    private final boolean loaded;
    @Nullable private final String path;
    @Nullable private final String nativeVersion;
    private final List<String> attempts;

    private NativeLoadResult(
            boolean loaded,
            @Nullable String path,
            @Nullable String nativeVersion,
            List<String> attempts) {
        this.loaded = loaded;
        this.path = path;
        this.nativeVersion = nativeVersion;
        this.attempts = Collections.unmodifiableList(new ArrayList<>(attempts));
    }

    static NativeLoadResult success(String path, String nativeVersion, List<String> attempts) {
        return new NativeLoadResult(true, path, nativeVersion, attempts);
    }

    static NativeLoadResult failure(List<String> attempts) {
        return new NativeLoadResult(false, null, null, attempts);
    }

    public boolean isLoaded() {
        return loaded;
    }

    /** The absolute path of the loaded library; null when not loaded. */
    @Nullable
    public String path() {
        return path;
    }

    /** The library's own version string; null when not loaded. */
    @Nullable
    public String nativeVersion() {
        return nativeVersion;
    }

    /** One entry per place tried, in order: {@code "<place>: <outcome>"}. */
    public List<String> attempts() {
        return attempts;
    }

    /** The attempts joined by {@code "; "}, as the {@code [FALCON] WARN} line prints them. */
    public String describeAttempts() {
        return String.join("; ", attempts);
    }

    @Override
    public String toString() {
        return loaded
                ? "loaded " + path + " (" + nativeVersion + ")"
                : "not loaded (tried: " + describeAttempts() + ")";
    }
}
