/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import io.falconstate.flink.nativeaccess.NativeLoadResult;

import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.OperatorStateBackend;

import java.io.IOException;

/**
 * Falcon's state backend: Flink's {@link EmbeddedRocksDBStateBackend} with Falcon's keyed backend
 * in front of every RocksDB instance. This variant speaks the {@code StateBackend} SPI of Flink
 * 1.19 and later (parameter objects, initialization metrics); everything else is in {@link
 * FalconStateBackendBase}.
 */
public class FalconStateBackend extends FalconStateBackendBase {

    private static final long serialVersionUID = 1L;

    /** A backend with the stock defaults (incremental checkpoints from the configuration). */
    public FalconStateBackend() {
        this(new EmbeddedRocksDBStateBackend());
    }

    public FalconStateBackend(boolean enableIncrementalCheckpointing) {
        this(new EmbeddedRocksDBStateBackend(enableIncrementalCheckpointing));
    }

    /**
     * Wraps a RocksDB backend configured in application code (predefined options, options factory,
     * storage paths, ...). Its settings win over the configuration, as for the stock backend.
     */
    public FalconStateBackend(EmbeddedRocksDBStateBackend rocksDb) {
        super(rocksDb);
    }

    private FalconStateBackend(
            FalconStateBackend original, ReadableConfig config, ClassLoader classLoader) {
        super(original, config, classLoader);
    }

    @Override
    public FalconStateBackend configure(ReadableConfig config, ClassLoader classLoader) {
        FlinkVersionGuard.check();
        return new FalconStateBackend(this, config, classLoader);
    }

    @Override
    public OperatorStateBackend createOperatorStateBackend(
            OperatorStateBackendParameters parameters) throws Exception {
        return getRocksDBStateBackend().createOperatorStateBackend(parameters);
    }

    @Override
    public <K> AbstractKeyedStateBackend<K> createKeyedStateBackend(
            KeyedStateBackendParameters<K> parameters) throws IOException {
        NativeLoadResult nativeLibrary = nativeLibraryOrFallback();
        if (nativeLibrary == null) {
            // Exactly the stock backend, built by the stock backend.
            return getRocksDBStateBackend().createKeyedStateBackend(parameters);
        }
        return createFalconKeyedBackend(
                nativeLibrary,
                stockBuilderSettings()
                        .withInitializationMetrics(parameters.getCustomInitializationMetrics()),
                parameters.getEnv(),
                parameters.getOperatorIdentifier(),
                parameters.getKeySerializer(),
                parameters.getNumberOfKeyGroups(),
                parameters.getKeyGroupRange(),
                parameters.getKvStateRegistry(),
                parameters.getTtlTimeProvider(),
                parameters.getMetricGroup(),
                parameters.getStateHandles(),
                parameters.getCancelStreamRegistry(),
                parameters.getManagedMemoryFraction());
    }
}
