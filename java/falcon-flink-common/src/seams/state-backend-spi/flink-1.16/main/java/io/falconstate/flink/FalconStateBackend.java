/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import io.falconstate.flink.nativeaccess.NativeLoadResult;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.query.TaskKvStateRegistry;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.OperatorStateBackend;
import org.apache.flink.runtime.state.OperatorStateHandle;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;

import javax.annotation.Nonnull;

import java.io.IOException;
import java.util.Collection;

/**
 * Falcon's state backend: Flink's {@link EmbeddedRocksDBStateBackend} with Falcon's keyed backend
 * in front of every RocksDB instance. This variant speaks the {@code StateBackend} SPI of Flink
 * 1.16 to 1.18 (positional arguments); everything else is in {@link FalconStateBackendBase}.
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
            Environment env,
            String operatorIdentifier,
            @Nonnull Collection<OperatorStateHandle> stateHandles,
            CloseableRegistry cancelStreamRegistry)
            throws Exception {
        return getRocksDBStateBackend()
                .createOperatorStateBackend(
                        env, operatorIdentifier, stateHandles, cancelStreamRegistry);
    }

    @Override
    public <K> AbstractKeyedStateBackend<K> createKeyedStateBackend(
            Environment env,
            JobID jobID,
            String operatorIdentifier,
            TypeSerializer<K> keySerializer,
            int numberOfKeyGroups,
            KeyGroupRange keyGroupRange,
            TaskKvStateRegistry kvStateRegistry,
            TtlTimeProvider ttlTimeProvider,
            MetricGroup metricGroup,
            @Nonnull Collection<KeyedStateHandle> stateHandles,
            CloseableRegistry cancelStreamRegistry)
            throws IOException {
        return createKeyedStateBackend(
                env,
                jobID,
                operatorIdentifier,
                keySerializer,
                numberOfKeyGroups,
                keyGroupRange,
                kvStateRegistry,
                ttlTimeProvider,
                metricGroup,
                stateHandles,
                cancelStreamRegistry,
                1.0);
    }

    @Override
    public <K> AbstractKeyedStateBackend<K> createKeyedStateBackend(
            Environment env,
            JobID jobID,
            String operatorIdentifier,
            TypeSerializer<K> keySerializer,
            int numberOfKeyGroups,
            KeyGroupRange keyGroupRange,
            TaskKvStateRegistry kvStateRegistry,
            TtlTimeProvider ttlTimeProvider,
            MetricGroup metricGroup,
            @Nonnull Collection<KeyedStateHandle> stateHandles,
            CloseableRegistry cancelStreamRegistry,
            double managedMemoryFraction)
            throws IOException {
        NativeLoadResult nativeLibrary = nativeLibraryOrFallback();
        if (nativeLibrary == null) {
            // Exactly the stock backend, built by the stock backend.
            return getRocksDBStateBackend()
                    .createKeyedStateBackend(
                            env,
                            jobID,
                            operatorIdentifier,
                            keySerializer,
                            numberOfKeyGroups,
                            keyGroupRange,
                            kvStateRegistry,
                            ttlTimeProvider,
                            metricGroup,
                            stateHandles,
                            cancelStreamRegistry,
                            managedMemoryFraction);
        }
        return createFalconKeyedBackend(
                nativeLibrary,
                stockBuilderSettings(),
                env,
                operatorIdentifier,
                keySerializer,
                numberOfKeyGroups,
                keyGroupRange,
                kvStateRegistry,
                ttlTimeProvider,
                metricGroup,
                stateHandles,
                cancelStreamRegistry,
                managedMemoryFraction);
    }
}
