/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package org.apache.flink.contrib.streaming.state;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.contrib.streaming.state.sstmerge.RocksDBManualCompactionConfig;
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
import org.apache.flink.util.MdcUtils;

import org.rocksdb.ColumnFamilyOptions;

import javax.annotation.Nullable;

import java.io.File;
import java.io.Serializable;
import java.util.Collection;
import java.util.function.Function;

/**
 * The stock keyed builder as Flink 1.20 constructs and sets it up: a priority-queue config (the
 * type the stock backend resolved, the set cache size {@code
 * state.backend.rocksdb.timer-service.cache-size} it keeps without a getter), the task's
 * initialization metrics, and the settings the 1.20 stock backend adds: asynchronous compaction
 * after a rescaling restore, ingest-DB restore mode, delete-files-in-range on rescaling (resolved
 * by the stock backend, read back through its getters), the job-scoped IO executor, and the manual
 * compaction config (kept without a getter; first configuration wins, as for the stock backend).
 * Immutable; the metrics are per keyed backend and do not travel with the job.
 */
public final class FalconStockBuilderSettings implements Serializable {

    private static final long serialVersionUID = 1L;

    private static final StateBackend.CustomInitializationMetrics NO_METRICS = (name, value) -> {};

    private final RocksDBPriorityQueueConfig priorityQueueConfig;

    /** {@code state.backend.rocksdb.manual-compaction.*}; null until configured (the default). */
    @Nullable private final RocksDBManualCompactionConfig manualCompactionConfig;

    @Nullable
    private final transient StateBackend.CustomInitializationMetrics initializationMetrics;

    private FalconStockBuilderSettings(
            RocksDBPriorityQueueConfig priorityQueueConfig,
            @Nullable StateBackend.CustomInitializationMetrics initializationMetrics,
            @Nullable RocksDBManualCompactionConfig manualCompactionConfig) {
        this.priorityQueueConfig = priorityQueueConfig;
        this.initializationMetrics = initializationMetrics;
        this.manualCompactionConfig = manualCompactionConfig;
    }

    /** The settings of a backend no configuration has reached yet. */
    public static FalconStockBuilderSettings unconfigured() {
        return new FalconStockBuilderSettings(new RocksDBPriorityQueueConfig(), null, null);
    }

    /** The settings after {@code config}; those the stock backend resolved first stay. */
    public FalconStockBuilderSettings configure(ReadableConfig config) {
        return new FalconStockBuilderSettings(
                RocksDBPriorityQueueConfig.fromOtherAndConfiguration(priorityQueueConfig, config),
                initializationMetrics,
                manualCompactionConfig != null
                        ? manualCompactionConfig
                        : RocksDBManualCompactionConfig.from(config));
    }

    /** These settings, reporting the restore's initialization metrics to {@code metrics}. */
    public FalconStockBuilderSettings withInitializationMetrics(
            StateBackend.CustomInitializationMetrics metrics) {
        return new FalconStockBuilderSettings(priorityQueueConfig, metrics, manualCompactionConfig);
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
                        cancelStreamRegistry)
                .setIncrementalRestoreAsyncCompactAfterRescale(
                        stock.getIncrementalRestoreAsyncCompactAfterRescale())
                .setUseIngestDbRestoreMode(stock.getUseIngestDbRestoreMode())
                .setRescalingUseDeleteFilesInRange(stock.isRescalingUseDeleteFilesInRange())
                .setIOExecutor(
                        MdcUtils.scopeToJob(
                                env.getJobID(), env.getIOManager().getExecutorService()))
                .setManualCompactionConfig(
                        manualCompactionConfig == null
                                ? RocksDBManualCompactionConfig.getDefault()
                                : manualCompactionConfig);
    }

    @Override
    public String toString() {
        return "FalconStockBuilderSettings{timerSetCacheSize="
                + priorityQueueConfig.getRocksDBPriorityQueueSetCacheSize()
                + ", manualCompaction="
                + manualCompactionConfig
                + '}';
    }
}
