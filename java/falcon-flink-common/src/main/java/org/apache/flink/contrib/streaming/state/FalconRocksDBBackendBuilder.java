/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package org.apache.flink.contrib.streaming.state;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.memory.OpaqueMemoryResource;
import org.apache.flink.runtime.query.TaskKvStateRegistry;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StreamCompressionDecorator;
import org.apache.flink.runtime.state.metrics.LatencyTrackingStateConfig;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;

import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.WriteBufferManager;
import org.slf4j.Logger;

import javax.annotation.Nullable;

import java.io.File;
import java.io.IOException;
import java.util.Collection;
import java.util.function.Function;

/**
 * Falcon's door into the package-private parts of Flink's RocksDB backend.
 *
 * <p>{@link RocksDBKeyedStateBackendBuilder}'s fluent setters, the {@link RocksDBSharedResources}
 * type, the resource container's constructor that knows the instance path and a few accessors are
 * package-private in Flink 1.16. This class lives in Flink's package so that Falcon can build the
 * inner RocksDB keyed backend with its own per-state column-family options function and otherwise
 * exactly the settings {@link EmbeddedRocksDBStateBackend} would use.
 *
 * <p><b>Class loading:</b> package-private access needs both classes in the same runtime package,
 * i.e. defined by the same class loader. Flink's {@code lib/} jars and {@code flink-dist} share the
 * application class loader, so the Falcon jar must be installed in {@code $FLINK_HOME/lib}; shipped
 * inside a job jar the child-first user class loader would define this class and every call here
 * would fail with {@link IllegalAccessError}. In tests both are on the same class path.
 *
 * <p>This class holds no logic of its own beyond forwarding; Falcon's decisions live in {@code
 * io.falconstate.flink}. Stateless and thread-safe.
 */
public final class FalconRocksDBBackendBuilder {

    private FalconRocksDBBackendBuilder() {}

    /** Loads FRocksDB's JNI library the way the stock backend does (once per JVM). */
    public static void ensureRocksDBIsLoaded(String tempDirectory) throws IOException {
        EmbeddedRocksDBStateBackend.ensureRocksDBIsLoaded(tempDirectory);
    }

    /** The options {@code state.backend.rocksdb.*} that the resource container reads. */
    public static ConfigOption<?>[] configurableOptions() {
        return RocksDBConfigurableOptions.CANDIDATE_CONFIGS.clone();
    }

    /** Validates one configurable option's value exactly as the stock backend does. */
    public static void checkConfigurableOptionValue(ConfigOption<?> option, Object value) {
        RocksDBConfigurableOptions.checkArgumentValid(option, value);
    }

    /**
     * A resource container, and the slot's shared write-buffer manager it charges memtables to
     * (null when RocksDB's memory is not managed): one object per slot, shared by every RocksDB
     * instance in it, so its identity names the slot.
     */
    public static final class Resources {
        private final RocksDBResourceContainer container;
        @Nullable private final WriteBufferManager writeBufferManager;

        Resources(
                RocksDBResourceContainer container,
                @Nullable WriteBufferManager writeBufferManager) {
            this.container = container;
            this.writeBufferManager = writeBufferManager;
        }

        /** The container; it owns the lease on the slot's shared resources. */
        public RocksDBResourceContainer container() {
            return container;
        }

        @Nullable
        public WriteBufferManager writeBufferManager() {
            return writeBufferManager;
        }
    }

    /**
     * Reserves the slot's shared RocksDB block cache and write-buffer manager (or joins the one
     * already reserved) for {@code rocksDbFraction} of the slot's managed memory, its block cache
     * in shards of at least {@code minShardBytes} (0: RocksDB's sharding), then creates the
     * resource container around it. The returned container owns the lease.
     */
    public static Resources createResourceContainer(
            RocksDBMemoryConfiguration memoryConfiguration,
            Environment env,
            double rocksDbFraction,
            long minShardBytes,
            ReadableConfig configurableOptions,
            PredefinedOptions predefinedOptions,
            @Nullable RocksDBOptionsFactory optionsFactory,
            File instanceBasePath,
            boolean enableStatistics,
            Logger logger)
            throws IOException {
        OpaqueMemoryResource<RocksDBSharedResources> sharedResources =
                FalconSharedRocksDBMemory.allocate(
                        memoryConfiguration, env, rocksDbFraction, minShardBytes, logger);
        if (sharedResources != null) {
            logger.info(
                    "Obtained shared RocksDB cache of size {} bytes", sharedResources.getSize());
        }
        return new Resources(
                new RocksDBResourceContainer(
                        configurableOptions,
                        predefinedOptions,
                        optionsFactory,
                        sharedResources,
                        instanceBasePath,
                        enableStatistics),
                sharedResources == null
                        ? null
                        : sharedResources.getResourceHandle().getWriteBufferManager());
    }

    /**
     * The stock builder as this minor's stock backend sets it up (constructor and minor-specific
     * settings from {@code stockSettings}, the settings every minor has from {@code stock}), with
     * Falcon's column-family options function.
     */
    public static <K> RocksDBKeyedStateBackend<K> build(
            EmbeddedRocksDBStateBackend stock,
            FalconStockBuilderSettings stockSettings,
            Environment env,
            String operatorIdentifier,
            File instanceBasePath,
            RocksDBResourceContainer resourceContainer,
            Function<String, ColumnFamilyOptions> columnFamilyOptions,
            TaskKvStateRegistry kvStateRegistry,
            TypeSerializer<K> keySerializer,
            int numberOfKeyGroups,
            KeyGroupRange keyGroupRange,
            TtlTimeProvider ttlTimeProvider,
            LatencyTrackingStateConfig latencyTrackingStateConfig,
            MetricGroup metricGroup,
            Collection<KeyedStateHandle> stateHandles,
            StreamCompressionDecorator keyGroupCompressionDecorator,
            CloseableRegistry cancelStreamRegistry,
            RocksDBNativeMetricOptions nativeMetricOptions)
            throws IOException {
        return stockSettings
                .newBuilder(
                        operatorIdentifier,
                        env.getUserCodeClassLoader().asClassLoader(),
                        instanceBasePath,
                        resourceContainer,
                        columnFamilyOptions,
                        kvStateRegistry,
                        keySerializer,
                        numberOfKeyGroups,
                        keyGroupRange,
                        env.getExecutionConfig(),
                        env.getTaskStateManager().createLocalRecoveryConfig(),
                        ttlTimeProvider,
                        latencyTrackingStateConfig,
                        metricGroup,
                        stateHandles,
                        keyGroupCompressionDecorator,
                        cancelStreamRegistry,
                        stock,
                        env)
                .setEnableIncrementalCheckpointing(stock.isIncrementalCheckpointsEnabled())
                .setNumberOfTransferingThreads(stock.getNumberOfTransferThreads())
                .setNativeMetricOptions(
                        resourceContainer.getMemoryWatcherOptions(nativeMetricOptions))
                .setWriteBatchSize(stock.getWriteBatchSize())
                .setOverlapFractionThreshold(stock.getOverlapFractionThreshold())
                .build();
    }

    /** The options factory a resource container applies (package-private getter). */
    @Nullable
    public static RocksDBOptionsFactory optionsFactoryOf(RocksDBResourceContainer container) {
        return container.getOptionsFactory();
    }
}
