/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.nativeaccess;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

/** Load results for tests outside this package. */
public final class NativeLoadResults {

    private NativeLoadResults() {}

    /**
     * What the loader reports for the real library (the one {@code -Dfalcon.native.library} names)
     * when the jar expects another JNI layout version: the real check, asking the real library,
     * against an injected jar-side version.
     */
    public static NativeLoadResult layoutMismatch(int jarLayoutVersion) {
        NativeLibrary.load(); // binds the natives, so FalconNative answers
        List<String> attempts = new ArrayList<>();
        return NativeLibrary.verified(
                new File(System.getProperty(NativeLibrary.LIBRARY_PATH_PROPERTY)),
                attempts,
                jarLayoutVersion);
    }

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
