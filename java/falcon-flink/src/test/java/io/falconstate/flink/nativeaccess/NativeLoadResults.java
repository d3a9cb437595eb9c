/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.nativeaccess;

/** Load results for tests outside this package. */
public final class NativeLoadResults {

    private NativeLoadResults() {}

    /** What the loader reports when {@code -Dfalcon.native.library} names a missing file. */
    public static NativeLoadResult missingFile(String path) {
        return NativeLibrary.loadFrom(
                path,
                null,
                "",
                p -> {
                    throw new AssertionError("must not load " + p);
                });
    }
}
