/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import io.falconstate.flink.config.FalconOptions;
import io.falconstate.flink.log.FalconLog;
import io.falconstate.flink.nativeaccess.NativeLayout;
import io.falconstate.flink.nativeaccess.NativeLibrary;
import io.falconstate.flink.nativeaccess.NativeLoadResult;
import io.falconstate.flink.nativeaccess.NativeLoadResults;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.contrib.streaming.state.RocksDBKeyedStateBackend;
import org.apache.flink.contrib.streaming.state.RocksDBOptions;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.StateBackendLoader;
import org.apache.flink.runtime.state.delegate.DelegatingStateBackend;
import org.apache.flink.util.InstantiationUtil;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Activation: Flink loads Falcon from {@code state.backend}, a TaskManager logs the exact
 * activation line once, and without the native library Falcon is the stock backend (one WARN line)
 * or, with {@code state.backend.falcon.native.required}, fails with that line.
 */
class FalconActivationTest {

    private static final String MISSING = "/nonexistent/falcon/libfalcon_jni.so";

    @TempDir Path tmp;

    private Supplier<NativeLoadResult> originalLoader;
    private MockEnvironment env;

    @BeforeEach
    void setUp() {
        FalconLog.resetOnceGuardsForTesting();
        originalLoader = FalconStateBackend.setNativeLoaderForTesting(NativeLibrary::load);
        env = MockEnvironment.builder().build();
    }

    @AfterEach
    void tearDown() throws Exception {
        FalconStateBackend.setNativeLoaderForTesting(originalLoader);
        FalconLog.resetOnceGuardsForTesting();
        env.close();
    }

    private FalconStateBackend loadFromConfig(Configuration config) throws Exception {
        config.setString(
                StateBackendOptions.STATE_BACKEND, FalconStateBackendFactory.class.getName());
        config.set(RocksDBOptions.LOCAL_DIRECTORIES, tmp.toString());
        StateBackend loaded =
                StateBackendLoader.loadStateBackendFromConfig(
                        config, getClass().getClassLoader(), null);
        assertThat(loaded).isInstanceOf(FalconStateBackend.class);
        return (FalconStateBackend) loaded;
    }

    /** A typo under state.backend.falcon. is named once per JVM, with the key it resembles. */
    @Test
    void unknownFalconOptionIsNamedWithTheClosestKnownOne() throws Exception {
        FalconLog.resetOnceGuardsForTesting();
        try (LogCapture log = new LogCapture("io.falconstate")) {
            Configuration config = new Configuration();
            config.setString("state.backend.falcon.cache.enable", "false");
            config.setString("state.backend.falcon.tuning.map-state.rangefilter", "true");
            config.setString("state.backend.rocksdb.unrelated-typo", "1");
            FalconStateBackend backend = loadFromConfig(config);
            loadFromConfig(config);
            // The typo changes nothing: the cache stays on.
            assertThat(backend.isCacheEnabled()).isTrue();
            assertThat(log.falconLines())
                    .containsExactly(
                            "WARN [FALCON] WARN unknown option state.backend.falcon.cache.enable;"
                                    + " did you mean state.backend.falcon.cache.enabled?",
                            "WARN [FALCON] WARN unknown option"
                                    + " state.backend.falcon.tuning.map-state.rangefilter; did you"
                                    + " mean state.backend.falcon.tuning.map-state.range-filter?");
        } finally {
            FalconLog.resetOnceGuardsForTesting();
        }
    }

    /** In-place memtable updates would break state migration: refused when the job is set up. */
    @Test
    void inplaceUpdatesAreRefusedAtConfiguration() {
        Configuration config = new Configuration();
        config.setString("state.backend.falcon.tuning.value-state.inplace-update", "true");
        assertThatThrownBy(() -> loadFromConfig(config))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("'true' is not supported");
        config.setString("state.backend.falcon.tuning.value-state.inplace-update", "false");
        assertThatCode(() -> loadFromConfig(config)).doesNotThrowAnyException();
    }

    @Test
    void factoryNamedInStateBackendYieldsAConfiguredFalconBackend() throws Exception {
        Configuration config = new Configuration();
        config.set(FalconOptions.NATIVE_REQUIRED, true);
        config.set(FalconOptions.CACHE_ENABLED, false);
        FalconStateBackend backend = loadFromConfig(config);

        assertThat(backend.isNativeRequired()).isTrue();
        assertThat(backend.isCacheEnabled()).isFalse();
        // tuning.value-state.hash-memtable: auto follows the cache.
        assertThat(backend.isHashMemtableEnabled()).isFalse();
        assertThat(backend.useManagedMemory()).isTrue();
        assertThat(backend).isNotInstanceOf(DelegatingStateBackend.class);
        assertThat(backend.supportsNoClaimRestoreMode()).isTrue();
        assertThat(backend.supportsSavepointFormat(SavepointFormatType.NATIVE)).isTrue();
        assertThat(backend.supportsSavepointFormat(SavepointFormatType.CANONICAL)).isTrue();
        assertThat(backend.getRocksDBStateBackend().getDbStoragePaths())
                .containsExactly(tmp.toString());

        // Serialized into the job graph on the client, re-configured on the TaskManager.
        FalconStateBackend copy = InstantiationUtil.clone(backend);
        assertThat(copy.isNativeRequired()).isTrue();
        assertThat(copy.isHashMemtableEnabled()).isFalse();
        assertThat(copy.getRocksDBStateBackend().getDbStoragePaths())
                .containsExactly(tmp.toString());
    }

    @Test
    void defaultsOfTheOptions() throws Exception {
        FalconStateBackend backend = loadFromConfig(new Configuration());
        assertThat(backend.isNativeRequired()).isFalse();
        assertThat(backend.isCacheEnabled()).isTrue();
        assertThat(backend.isHashMemtableEnabled()).isTrue();
        assertThat(backend.isRangeFilterEnabled()).isTrue();
    }

    @Test
    void activationLineAppearsOnceWhenTheNativeLibraryIsLoaded() throws Exception {
        NativeLoadResult nativeLibrary = NativeLibrary.load();
        assertThat(nativeLibrary.isLoaded())
                .as("tests run with -Dfalcon.native.library: %s", nativeLibrary)
                .isTrue();
        FalconStateBackend backend = loadFromConfig(new Configuration());

        try (LogCapture log = new LogCapture("io.falconstate")) {
            AbstractKeyedStateBackend<Integer> first = KeyedBackends.create(backend, env, 1.0);
            AbstractKeyedStateBackend<Integer> second = KeyedBackends.create(backend, env, 1.0);
            try {
                assertThat(first).isInstanceOf(FalconKeyedStateBackend.class);
                assertThat(second).isInstanceOf(FalconKeyedStateBackend.class);
            } finally {
                first.dispose();
                second.dispose();
            }
            assertThat(log.falconLines())
                    .filteredOn(l -> l.contains("[FALCON] Falcon "))
                    .containsExactly(
                            "INFO [FALCON] Falcon "
                                    + NativeLibrary.jarVersion()
                                    + " enabled (native "
                                    + new File(nativeLibrary.path()).getAbsolutePath()
                                    + "): cache on (w-tinylfu), value-state hash memtable on,"
                                    + " map-state range filter on, lz4 compression on");
        }
        assertThat(NativeLibrary.jarVersion()).matches("\\d+\\.\\d+\\.\\d+.*");
    }

    @Test
    void withoutTheNativeLibraryItWarnsOnceAndIsTheStockBackend() throws Exception {
        NativeLoadResult missing = NativeLoadResults.missingFile(MISSING);
        FalconStateBackend.setNativeLoaderForTesting(() -> missing);
        FalconStateBackend backend = loadFromConfig(new Configuration());

        try (LogCapture log = new LogCapture("io.falconstate")) {
            AbstractKeyedStateBackend<Integer> first = KeyedBackends.create(backend, env, 1.0);
            AbstractKeyedStateBackend<Integer> second = KeyedBackends.create(backend, env, 1.0);
            try {
                assertThat(first)
                        .isExactlyInstanceOf(RocksDBKeyedStateBackend.class)
                        .isNotInstanceOf(FalconKeyedStateBackend.class);
                assertThat(second).isExactlyInstanceOf(RocksDBKeyedStateBackend.class);
            } finally {
                first.dispose();
                second.dispose();
            }
            assertThat(log.falconLines())
                    .containsExactly(
                            "WARN [FALCON] WARN native library not loaded (tried: -Dfalcon.native.library="
                                    + MISSING
                                    + ": "
                                    + MISSING
                                    + " does not exist); running as the stock RocksDB backend");
        }
    }

    @Test
    void aLibraryWithAnotherJniLayoutWarnsAndIsTheStockBackend() throws Exception {
        int jarLayout = NativeLayout.LAYOUT_VERSION + 1;
        NativeLoadResult mismatch = NativeLoadResults.layoutMismatch(jarLayout);
        FalconStateBackend.setNativeLoaderForTesting(() -> mismatch);
        FalconStateBackend backend = loadFromConfig(new Configuration());

        try (LogCapture log = new LogCapture("io.falconstate")) {
            AbstractKeyedStateBackend<Integer> keyed = KeyedBackends.create(backend, env, 1.0);
            try {
                assertThat(keyed)
                        .isExactlyInstanceOf(RocksDBKeyedStateBackend.class)
                        .isNotInstanceOf(FalconKeyedStateBackend.class);
            } finally {
                keyed.dispose();
            }
            assertThat(log.falconLines())
                    .containsExactly(
                            "WARN [FALCON] WARN native library not loaded (tried: "
                                    + new File(
                                                    System.getProperty(
                                                            NativeLibrary.LIBRARY_PATH_PROPERTY))
                                            .getAbsolutePath()
                                    + ": JNI layout version "
                                    + NativeLayout.LAYOUT_VERSION
                                    + " does not match the jar's JNI layout version "
                                    + jarLayout
                                    + "); running as the stock RocksDB backend");
        }
    }

    @Test
    void nativeRequiredFailsNamingWhatWasTried() throws Exception {
        NativeLoadResult missing = NativeLoadResults.missingFile(MISSING);
        FalconStateBackend.setNativeLoaderForTesting(() -> missing);
        Configuration config = new Configuration();
        config.set(FalconOptions.NATIVE_REQUIRED, true);
        FalconStateBackend backend = loadFromConfig(config);

        try (LogCapture log = new LogCapture("io.falconstate")) {
            assertThatThrownBy(() -> KeyedBackends.create(backend, env, 1.0))
                    .isInstanceOf(IOException.class)
                    .hasMessage(
                            "[FALCON] native library not loaded (tried: -Dfalcon.native.library="
                                    + MISSING
                                    + ": "
                                    + MISSING
                                    + " does not exist); state.backend.falcon.native.required is"
                                    + " true, so no keyed state backend is created");
            assertThat(log.falconLines()).isEmpty();
        }
    }
}
