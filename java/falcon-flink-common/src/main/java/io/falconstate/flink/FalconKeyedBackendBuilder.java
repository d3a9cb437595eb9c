/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import io.falconstate.flink.budget.CacheBudgets;
import io.falconstate.flink.budget.SlotCacheBudget;
import io.falconstate.flink.budget.SubtaskCacheBudget;
import io.falconstate.flink.cache.CacheSettings;
import io.falconstate.flink.cache.HotStateCacheManager;
import io.falconstate.flink.log.FalconLog;
import io.falconstate.flink.nativeaccess.NativeHotStateCache;
import io.falconstate.flink.timers.TimerQueues;
import io.falconstate.flink.tuning.ColumnFamilyTuner;
import io.falconstate.flink.tuning.CompositeKeyLayout;
import io.falconstate.flink.tuning.DbRuleOptionsFactory;
import io.falconstate.flink.tuning.Lz4Compression;
import io.falconstate.flink.tuning.RestoredStateMetaInfo;
import io.falconstate.flink.tuning.SlotWriteBuffers;

import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.contrib.streaming.state.FalconRocksDBBackendBuilder;
import org.apache.flink.contrib.streaming.state.FalconStockBuilderSettings;
import org.apache.flink.contrib.streaming.state.RocksDBKeyedStateBackend;
import org.apache.flink.contrib.streaming.state.RocksDBNativeMetricOptions;
import org.apache.flink.contrib.streaming.state.RocksDBResourceContainer;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.query.TaskKvStateRegistry;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StreamCompressionDecorator;
import org.apache.flink.runtime.state.metrics.LatencyTrackingStateConfig;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.File;
import java.io.IOException;
import java.util.Collection;

/**
 * Builds one {@link FalconKeyedStateBackend}: the column-family tuner (with the restored states'
 * kinds), the RocksDB resource container on RocksDB's share of managed memory, Flink's own RocksDB
 * keyed backend with Falcon's per-state options, the subtask's cache on the cache's share, and the
 * keyed backend that ties them together.
 *
 * <p>One cleanup path, as in Flink's {@code RocksDBKeyedStateBackendBuilder}: if any step throws,
 * {@link #build()} releases everything the earlier steps created (native cache, budget lease,
 * RocksDB, its managed memory, the tuner's filters) before rethrowing. On success the returned
 * backend owns all of it and releases it in {@link FalconKeyedStateBackend#dispose()}.
 *
 * <p>Used once, on the task thread creating the backend.
 */
final class FalconKeyedBackendBuilder<K> {

    private static final Logger LOG = LoggerFactory.getLogger(FalconKeyedBackendBuilder.class);

    /** The steps of {@link #build()}, in order; tests make each one fail. */
    @VisibleForTesting
    enum Stage {
        TUNER_CREATED,
        RESOURCES_RESERVED,
        ROCKSDB_BUILT,
        CACHE_CREATED,
        BACKEND_CREATED
    }

    /** Observes each completed step with what it created; throwing fails the build there. */
    @VisibleForTesting
    interface StageListener {
        void reached(Stage stage, @Nullable Object created) throws Exception;
    }

    private static volatile StageListener stageListener = (stage, created) -> {};

    private final FalconSettings settings;
    private final EmbeddedRocksDBStateBackend stock;
    private final FalconStockBuilderSettings stockSettings;
    private final ReadableConfig rocksDbConfigurableOptions;
    private final RocksDBNativeMetricOptions nativeMetricOptions;
    private final LatencyTrackingStateConfig latencyTrackingConfig;
    private final StreamCompressionDecorator compressionDecorator;
    private final Environment env;
    private final String operatorIdentifier;
    private final File instanceBasePath;
    private final TypeSerializer<K> keySerializer;
    private final int numberOfKeyGroups;
    private final KeyGroupRange keyGroupRange;
    private final TaskKvStateRegistry kvStateRegistry;
    private final TtlTimeProvider ttlTimeProvider;
    private final MetricGroup metricGroup;
    private final Collection<KeyedStateHandle> stateHandles;
    private final CloseableRegistry cancelStreamRegistry;
    private final double managedMemoryFraction;

    FalconKeyedBackendBuilder(
            FalconSettings settings,
            EmbeddedRocksDBStateBackend stock,
            FalconStockBuilderSettings stockSettings,
            ReadableConfig rocksDbConfigurableOptions,
            RocksDBNativeMetricOptions nativeMetricOptions,
            LatencyTrackingStateConfig latencyTrackingConfig,
            StreamCompressionDecorator compressionDecorator,
            Environment env,
            String operatorIdentifier,
            File instanceBasePath,
            TypeSerializer<K> keySerializer,
            int numberOfKeyGroups,
            KeyGroupRange keyGroupRange,
            TaskKvStateRegistry kvStateRegistry,
            TtlTimeProvider ttlTimeProvider,
            MetricGroup metricGroup,
            Collection<KeyedStateHandle> stateHandles,
            CloseableRegistry cancelStreamRegistry,
            double managedMemoryFraction) {
        this.settings = settings;
        this.stock = stock;
        this.stockSettings = stockSettings;
        this.rocksDbConfigurableOptions = rocksDbConfigurableOptions;
        this.nativeMetricOptions = nativeMetricOptions;
        this.latencyTrackingConfig = latencyTrackingConfig;
        this.compressionDecorator = compressionDecorator;
        this.env = env;
        this.operatorIdentifier = operatorIdentifier;
        this.instanceBasePath = instanceBasePath;
        this.keySerializer = keySerializer;
        this.numberOfKeyGroups = numberOfKeyGroups;
        this.keyGroupRange = keyGroupRange;
        this.kvStateRegistry = kvStateRegistry;
        this.ttlTimeProvider = ttlTimeProvider;
        this.metricGroup = metricGroup;
        this.stateHandles = stateHandles;
        this.cancelStreamRegistry = cancelStreamRegistry;
        this.managedMemoryFraction = managedMemoryFraction;
    }

    FalconKeyedStateBackend<K> build() throws IOException {
        ColumnFamilyTuner tuner = null;
        RocksDBResourceContainer resources = null;
        RocksDBKeyedStateBackend<K> rocksDb = null;
        SubtaskCacheBudget budget = null;
        NativeHotStateCache nativeCache = null;
        HotStateCacheManager<K> cache = null;
        try {
            tuner = createTuner();
            reached(Stage.TUNER_CREATED, tuner);

            ManagedMemorySplit split =
                    settings.cacheOn()
                            ? ManagedMemorySplit.withCacheShare(
                                    settings.cache().managedMemoryShare())
                            : ManagedMemorySplit.rocksDbOnly();
            FalconRocksDBBackendBuilder.Resources created = createResourceContainer(split);
            resources = created.container();
            if (tuner != null && created.writeBufferManager() != null) {
                tuner.useSlotWriteBuffers(
                        SlotWriteBuffers.of(
                                created.writeBufferManager(),
                                resources.getWriteBufferManagerCapacity()));
            }
            reached(Stage.RESOURCES_RESERVED, resources);

            StateRegistry registry = new StateRegistry(keySerializer);
            // From here Flink's builder owns the container: it closes it when the build fails,
            // the built backend closes it in dispose().
            RocksDBResourceContainer handedOver = resources;
            resources = null;
            rocksDb = buildRocksDb(handedOver, registry, tuner);
            reached(Stage.ROCKSDB_BUILT, rocksDb);

            if (settings.cacheOn()) {
                budget =
                        CacheBudgets.acquire(
                                env,
                                settings.cache().isFixedSize(),
                                settings.cache().fixedBytesPerSubtask(),
                                settings.cache().fixedEntriesPerSubtask(),
                                settings.cache().entriesPerTaskManager(),
                                split.cacheFraction(managedMemoryFraction),
                                managedMemoryFraction,
                                env.getTaskInfo().getTaskNameWithSubtasks());
            }
            if (budget != null) {
                logCacheBudget(budget);
                nativeCache = settings.cache().createNativeCache(budget.takeLease());
                cache =
                        new HotStateCacheManager<>(
                                rocksDb, nativeCache, settings.cache(), budget, metricGroup);
                // The manager owns both from here.
                nativeCache = null;
                budget = null;
            }
            reached(Stage.CACHE_CREATED, cache);

            FalconKeyedStateBackend<K> backend =
                    new FalconKeyedStateBackend<>(
                            rocksDb,
                            registry,
                            cache,
                            tuner,
                            stock.isIncrementalCheckpointsEnabled(),
                            settings.timerDedupCapacity(),
                            settings.timerHeldCapacity());
            TimerQueues timerQueues = backend.timerQueues();
            if (metricGroup != null && timerQueues.enabled()) {
                MetricGroup timers = metricGroup.addGroup("falcon").addGroup("timers");
                timers.gauge("skippedRegistrations", timerQueues::skippedRegistrations);
                timers.gauge("knownTimers", timerQueues::knownTimers);
                timers.gauge("heldTimers", timerQueues::heldTimers);
                timers.gauge("writtenBack", timerQueues::writtenBack);
            }
            // A restore may have written restored entries into hash memtables.
            backend.flushHashMemtables();
            reached(Stage.BACKEND_CREATED, backend);
            return backend;
        } catch (Exception | Error e) {
            releaseQuietly(e, cache, nativeCache, budget, rocksDb, resources, tuner);
            if (e instanceof IOException) {
                throw (IOException) e;
            }
            if (e instanceof RuntimeException) {
                throw (RuntimeException) e;
            }
            if (e instanceof Error) {
                throw (Error) e;
            }
            throw new IOException("[FALCON] building the keyed state backend failed", e);
        }
    }

    /**
     * LZ4 for the column families at RocksDB's default compression: on unless switched off, set by
     * the user in Flink's configuration, or missing from RocksDB's library (probed once per JVM in
     * the local directory).
     */
    private boolean lz4Compression() {
        return settings.lz4CompressionOn()
                && !Lz4Compression.userConfigured(rocksDbConfigurableOptions)
                && Lz4Compression.supported(instanceBasePath.getAbsoluteFile().getParentFile());
    }

    /** Null when both tunings are off; then every column family is stock. */
    @Nullable
    private ColumnFamilyTuner createTuner() {
        if (!settings.tuningOn()) {
            return null;
        }
        ColumnFamilyTuner tuner =
                new ColumnFamilyTuner(
                        settings.hashMemtableOn(),
                        settings.rangeFilterOn(),
                        CompositeKeyLayout.keyGroupPrefixBytes(numberOfKeyGroups));
        if (!stateHandles.isEmpty()) {
            try {
                // Restored column families are created before any state registers.
                tuner.addRestoredStates(
                        keySerializer,
                        RestoredStateMetaInfo.read(
                                stateHandles,
                                env.getUserCodeClassLoader().asClassLoader(),
                                cancelStreamRegistry));
            } catch (RuntimeException | Error e) {
                tuner.close();
                throw e;
            }
        }
        return tuner;
    }

    private FalconRocksDBBackendBuilder.Resources createResourceContainer(ManagedMemorySplit split)
            throws IOException {
        return FalconRocksDBBackendBuilder.createResourceContainer(
                stock.getMemoryConfiguration(),
                env,
                split.rocksDbFraction(managedMemoryFraction),
                settings.blockCacheMinShardBytes(),
                rocksDbConfigurableOptions,
                stock.getPredefinedOptions(),
                settings.hashMemtableOn()
                        // allow_concurrent_memtable_write off at every DB open
                        ? new DbRuleOptionsFactory(stock.getRocksDBOptions(), true)
                        : stock.getRocksDBOptions(),
                instanceBasePath,
                nativeMetricOptions.isStatisticsEnabled(),
                LOG);
    }

    private RocksDBKeyedStateBackend<K> buildRocksDb(
            RocksDBResourceContainer resources,
            StateRegistry registry,
            @Nullable ColumnFamilyTuner tuner)
            throws IOException {
        return FalconRocksDBBackendBuilder.build(
                stock,
                stockSettings,
                env,
                operatorIdentifier,
                instanceBasePath,
                resources,
                new ColumnFamilyOptionsFunction(resources, registry, tuner, lz4Compression()),
                kvStateRegistry,
                keySerializer,
                numberOfKeyGroups,
                keyGroupRange,
                ttlTimeProvider,
                latencyTrackingConfig,
                metricGroup,
                stateHandles,
                compressionDecorator,
                cancelStreamRegistry,
                nativeMetricOptions);
    }

    /** The TaskManager line (once per JVM) and this subtask's line. */
    private void logCacheBudget(SubtaskCacheBudget budget) {
        CacheSettings cacheSettings = settings.cache();
        SlotCacheBudget slot = budget.slot();
        TaskInfo task = env.getTaskInfo();
        FalconLog.logTaskManagerCacheOnce(
                CacheBudgets.slots(env),
                cacheSettings.isFixedSize()
                        ? cacheSettings.fixedBytesPerSubtask()
                        : slot.slotBytes(),
                cacheSettings.isFixedSize()
                        ? cacheSettings.fixedEntriesPerSubtask()
                        : slot.slotEntries());
        FalconLog.logSubtaskCache(
                task.getTaskName(),
                task.getIndexOfThisSubtask(),
                task.getNumberOfParallelSubtasks(),
                task.getAttemptNumber(),
                budget.subtasksInSlot(),
                budget.joinedQuotaBytes(),
                budget.joinedQuotaEntries());
    }

    /**
     * Releases what a failed build created, newest first and each by its owner: the cache manager
     * (its native cache and budget lease), or else those two themselves; RocksDB (its container and
     * managed memory), or else the container; then the tuner's filters, which RocksDB's table
     * factories may still reference until the DB is closed.
     */
    private static void releaseQuietly(
            Throwable failure,
            @Nullable HotStateCacheManager<?> cache,
            @Nullable NativeHotStateCache nativeCache,
            @Nullable SubtaskCacheBudget budget,
            @Nullable RocksDBKeyedStateBackend<?> rocksDb,
            @Nullable RocksDBResourceContainer resources,
            @Nullable ColumnFamilyTuner tuner) {
        runQuietly(failure, cache == null ? null : cache::release);
        runQuietly(failure, nativeCache == null ? null : nativeCache::close);
        runQuietly(failure, budget == null ? null : budget::close);
        runQuietly(failure, rocksDb == null ? null : rocksDb::dispose);
        runQuietly(failure, resources == null ? null : resources::close);
        runQuietly(failure, tuner == null ? null : tuner::close);
    }

    private interface Release {
        void run() throws Exception;
    }

    private static void runQuietly(Throwable failure, @Nullable Release release) {
        if (release == null) {
            return;
        }
        try {
            release.run();
        } catch (Exception | Error e) {
            failure.addSuppressed(e);
        }
    }

    private void reached(Stage stage, @Nullable Object created) throws Exception {
        stageListener.reached(stage, created);
    }

    /** Replaces the stage listener; returns the previous one. */
    @VisibleForTesting
    static StageListener setStageListenerForTesting(StageListener listener) {
        StageListener previous = stageListener;
        stageListener = listener;
        return previous;
    }
}
