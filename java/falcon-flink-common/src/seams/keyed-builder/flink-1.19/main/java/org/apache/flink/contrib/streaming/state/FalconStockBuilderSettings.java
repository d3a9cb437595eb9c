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
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.StreamCompressionDecorator;
import org.apache.flink.runtime.state.metrics.LatencyTrackingStateConfig;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;

import org.rocksdb.ColumnFamilyOptions;

import javax.annotation.Nullable;

import java.io.File;
import java.io.Serializable;
import java.util.Collection;
import java.util.function.Function;

/**
 * The stock keyed builder as Flink 1.19 constructs it: a priority-queue config (the type the stock
 * backend resolved, the set cache size {@code state.backend.rocksdb.timer-service.cache-size} it
 * keeps without a getter, first configuration wins as for the stock backend) and the task's
 * initialization metrics (restore durations). Immutable; the metrics are per keyed backend and do
 * not travel with the job.
 */
public final class FalconStockBuilderSettings implements Serializable {

    private static final long serialVersionUID = 1L;

    private static final StateBackend.CustomInitializationMetrics NO_METRICS = (name, value) -> {};

    private final RocksDBPriorityQueueConfig priorityQueueConfig;

    @Nullable
    private final transient StateBackend.CustomInitializationMetrics initializationMetrics;

    private FalconStockBuilderSettings(
            RocksDBPriorityQueueConfig priorityQueueConfig,
            @Nullable StateBackend.CustomInitializationMetrics initializationMetrics) {
        this.priorityQueueConfig = priorityQueueConfig;
        this.initializationMetrics = initializationMetrics;
    }

    /** The settings of a backend no configuration has reached yet. */
    public static FalconStockBuilderSettings unconfigured() {
        return new FalconStockBuilderSettings(new RocksDBPriorityQueueConfig(), null);
    }

    /** The settings after {@code config}; those the stock backend resolved first stay. */
    public FalconStockBuilderSettings configure(ReadableConfig config) {
        return new FalconStockBuilderSettings(
                RocksDBPriorityQueueConfig.fromOtherAndConfiguration(priorityQueueConfig, config),
                initializationMetrics);
    }

    /** These settings, reporting the restore's initialization metrics to {@code metrics}. */
    public FalconStockBuilderSettings withInitializationMetrics(
            StateBackend.CustomInitializationMetrics metrics) {
        return new FalconStockBuilderSettings(priorityQueueConfig, metrics);
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
                new RocksDBPriorityQueueConfig(
                        stock.getPriorityQueueStateType(),
                        priorityQueueConfig.getRocksDBPriorityQueueSetCacheSize()),
                ttlTimeProvider,
                latencyTrackingStateConfig,
                metricGroup,
                initializationMetrics != null ? initializationMetrics : NO_METRICS,
                stateHandles,
                keyGroupCompressionDecorator,
                cancelStreamRegistry);
    }

    @Override
    public String toString() {
        return "FalconStockBuilderSettings{timerSetCacheSize="
                + priorityQueueConfig.getRocksDBPriorityQueueSetCacheSize()
                + '}';
    }
}
