/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import io.falconstate.flink.nativeaccess.NativeLibrary;

import org.apache.flink.runtime.operators.testutils.MockEnvironment;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a differential test against stock needs around its two sides ({@link DifferentialBackends}):
 * the native library, a directory for both RocksDB instances, and one task environment per side
 * (both reserve all of their slot's managed memory).
 */
public abstract class DifferentialTestBase {

    @TempDir protected Path tmp;

    protected MockEnvironment stockEnv;
    protected MockEnvironment falconEnv;

    @BeforeAll
    static void nativeLibrary() {
        assertThat(NativeLibrary.load().isLoaded()).as(NativeLibrary.load().toString()).isTrue();
    }

    @BeforeEach
    void createEnvironments() {
        stockEnv = MockEnvironment.builder().setManagedMemorySize(64L << 20).build();
        falconEnv = MockEnvironment.builder().setManagedMemorySize(64L << 20).build();
    }

    @AfterEach
    void closeEnvironments() throws Exception {
        stockEnv.close();
        falconEnv.close();
    }
}
