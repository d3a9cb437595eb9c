/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package org.apache.flink.contrib.streaming.state;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.query.TaskKvStateRegistry;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.LocalRecoveryConfig;
import org.apache.flink.runtime.state.StreamCompressionDecorator;
import org.apache.flink.runtime.state.metrics.LatencyTrackingStateConfig;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;

import org.rocksdb.ColumnFamilyOptions;

import java.io.File;
import java.io.Serializable;
import java.util.Collection;
import java.util.function.Function;

/**
 * The stock keyed builder as Flink 1.16 to 1.18 construct it: the priority-queue type is the only
 * minor-specific argument, and the stock backend sets nothing on the builder beyond the settings
 * every minor has ({@link FalconRocksDBBackendBuilder#build}). Nothing to keep from the
 * configuration. Immutable.
 */
public final class FalconStockBuilderSettings implements Serializable {

    private static final long serialVersionUID = 1L;

    private FalconStockBuilderSettings() {}

    /** The settings of a backend no configuration has reached yet. */
    public static FalconStockBuilderSettings unconfigured() {
        return new FalconStockBuilderSettings();
    }

    /** The settings after {@code config}; those the stock backend resolved first stay. */
    public FalconStockBuilderSettings configure(ReadableConfig config) {
        return this;
    }

    /** The stock builder with this minor's constructor and this minor's own settings. */
    <K> RocksDBKeyedStateBackendBuilder<K> newBuilder(
            String operatorIdentifier,
            ClassLoader userCodeClassLoader,
            File instanceBasePath,
            RocksDBResourceContainer resourceContainer,
            Function<String, ColumnFamilyOptions> columnFamilyOptions,
            TaskKvStateRegistry kvStateRegistry,
            TypeSerializer<K> keySerializer,
            int numberOfKeyGroups,
            KeyGroupRange keyGroupRange,
            ExecutionConfig executionConfig,
            LocalRecoveryConfig localRecoveryConfig,
            TtlTimeProvider ttlTimeProvider,
            LatencyTrackingStateConfig latencyTrackingStateConfig,
            MetricGroup metricGroup,
            Collection<KeyedStateHandle> stateHandles,
            StreamCompressionDecorator keyGroupCompressionDecorator,
            CloseableRegistry cancelStreamRegistry,
            EmbeddedRocksDBStateBackend stock,
            Environment env) {
        return new RocksDBKeyedStateBackendBuilder<>(
                operatorIdentifier,
                userCodeClassLoader,
                instanceBasePath,
                resourceContainer,
                columnFamilyOptions,
                kvStateRegistry,
                keySerializer,
                numberOfKeyGroups,
                keyGroupRange,
                executionConfig,
                localRecoveryConfig,
                stock.getPriorityQueueStateType(),
                ttlTimeProvider,
                latencyTrackingStateConfig,
                metricGroup,
                stateHandles,
                keyGroupCompressionDecorator,
                cancelStreamRegistry);
    }

    @Override
    public String toString() {
        return "FalconStockBuilderSettings{}";
    }
}
