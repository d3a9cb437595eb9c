/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import io.falconstate.flink.cache.CacheBudgets;
import io.falconstate.flink.cache.CacheSettings;
import io.falconstate.flink.cache.HotStateCacheManager;
import io.falconstate.flink.cache.NativeHotStateCache;
import io.falconstate.flink.cache.SlotCacheBudget;
import io.falconstate.flink.cache.SubtaskCacheBudget;
import io.falconstate.flink.nativeaccess.NativeLibrary;
import io.falconstate.flink.nativeaccess.NativeLoadResult;
import io.falconstate.flink.tuning.ColumnFamilyTuner;
import io.falconstate.flink.tuning.CompositeKeyLayout;
import io.falconstate.flink.tuning.HashColumnFamilyFlushHook;
import io.falconstate.flink.tuning.RestoredStateMetaInfo;

import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.contrib.streaming.state.FalconColumnFamilyAccess;
import org.apache.flink.contrib.streaming.state.FalconRocksDBBackendBuilder;
import org.apache.flink.contrib.streaming.state.RocksDBKeyedStateBackend;
import org.apache.flink.contrib.streaming.state.RocksDBNativeMetricOptions;
import org.apache.flink.contrib.streaming.state.RocksDBResourceContainer;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.query.TaskKvStateRegistry;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.AbstractManagedMemoryStateBackend;
import org.apache.flink.runtime.state.ConfigurableStateBackend;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.OperatorStateBackend;
import org.apache.flink.runtime.state.OperatorStateHandle;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nonnull;
import javax.annotation.Nullable;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Falcon's state backend: Flink's {@link EmbeddedRocksDBStateBackend} with Falcon's keyed backend
 * in front of every RocksDB instance.
 *
 * <p>It wraps (does not subclass) a configured {@link EmbeddedRocksDBStateBackend}: the stock
 * backend's re-configuration constructor is private. Every stock setting is resolved by the wrapped
 * instance and read back through its public getters; the few pieces of the stock setup that are
 * private (merging {@code state.backend.rocksdb.*} options, native metric options, choosing the
 * local directory) are re-created here, and the parity test checks that both open RocksDB with the
 * same options and the same managed memory.
 *
 * <p>Deliberately not a {@code DelegatingStateBackend}: Flink's changelog backend wraps this one
 * and rejects nested delegation. Checkpoint storage stays separate, as for the stock backend.
 *
 * <p>When {@code libfalcon_jni.so} cannot be loaded, keyed backends are created by the wrapped
 * stock backend itself (one {@code [FALCON] WARN} line per JVM), unless {@link
 * FalconOptions#NATIVE_REQUIRED} is set, in which case creation fails with that message.
 */
public class FalconStateBackend extends AbstractManagedMemoryStateBackend
        implements ConfigurableStateBackend {

    private static final long serialVersionUID = 1L;

    private static final Logger LOG = LoggerFactory.getLogger(FalconStateBackend.class);

    /** Where the native library comes from; tests replace it to exercise the fallback. */
    private static volatile Supplier<NativeLoadResult> nativeLoader = NativeLibrary::load;

    // -- configuration, serialized with the job ----------------------------------------------

    private final EmbeddedRocksDBStateBackend rocksDb;

    /** The {@code state.backend.rocksdb.*} options the resource container reads. */
    private final Configuration rocksDbConfigurableOptions;

    private final RocksDBNativeMetricOptions nativeMetricOptions;

    @Nullable private final Boolean nativeRequired;

    @Nullable private final Boolean cacheEnabled;

    /** {@code state.backend.falcon.cache.*} sizes and policy; null until configured. */
    @Nullable private CacheSettings cacheSettings;

    /** {@link FalconOptions#TUNING_VALUE_STATE_HASH_MEMTABLE}; null until configured. */
    @Nullable private ColumnFamilyTuner.HashMemtableMode hashMemtableMode;

    /** {@link FalconOptions#TUNING_MAP_STATE_RANGE_FILTER}; null until configured. */
    @Nullable private Boolean rangeFilterEnabled;


    // -- runtime, per TaskManager ------------------------------------------------------------

    private transient File[] initializedDbBasePaths;
    private transient JobID jobId;
    private transient int nextDirectory;
    private transient boolean isInitialized;

    /** A backend with the stock defaults (incremental checkpoints from the configuration). */
    public FalconStateBackend() {
        this(new EmbeddedRocksDBStateBackend());
    }

    public FalconStateBackend(boolean enableIncrementalCheckpointing) {
        this(new EmbeddedRocksDBStateBackend(enableIncrementalCheckpointing));
    }

    /**
     * Wraps a RocksDB backend configured in application code (predefined options, options
     * factory, storage paths, ...). Its settings win over the configuration, as for the stock
     * backend.
     */
    public FalconStateBackend(EmbeddedRocksDBStateBackend rocksDb) {
        this(rocksDb, new Configuration(), new RocksDBNativeMetricOptions(), null, null);
    }

    private FalconStateBackend(
            EmbeddedRocksDBStateBackend rocksDb,
            Configuration rocksDbConfigurableOptions,
            RocksDBNativeMetricOptions nativeMetricOptions,
            @Nullable Boolean nativeRequired,
            @Nullable Boolean cacheEnabled) {
        this.rocksDb = rocksDb;
        this.rocksDbConfigurableOptions = rocksDbConfigurableOptions;
        this.nativeMetricOptions = nativeMetricOptions;
        this.nativeRequired = nativeRequired;
        this.cacheEnabled = cacheEnabled;
    }

    /** Re-configuration: what the application set wins, the configuration fills the rest. */
    private FalconStateBackend(
            FalconStateBackend original, ReadableConfig config, ClassLoader classLoader) {
        this(
                original.rocksDb.configure(config, classLoader),
                mergeConfigurableOptions(original.rocksDbConfigurableOptions, config),
                RocksDBNativeMetricOptions.fromConfig(config),
                original.nativeRequired != null
                        ? original.nativeRequired
                        : config.get(FalconOptions.NATIVE_REQUIRED),
                original.cacheEnabled != null
                        ? original.cacheEnabled
                        : config.get(FalconOptions.CACHE_ENABLED));
        this.latencyTrackingConfigBuilder = original.latencyTrackingConfigBuilder.configure(config);
        this.cacheSettings =
                original.cacheSettings != null
                        ? original.cacheSettings
                        : CacheSettings.fromConfig(config);
        this.hashMemtableMode =
                original.hashMemtableMode != null
                        ? original.hashMemtableMode
                        : ColumnFamilyTuner.hashMemtableMode(config);
        this.rangeFilterEnabled =
                original.rangeFilterEnabled != null
                        ? original.rangeFilterEnabled
                        : ColumnFamilyTuner.rangeFilterEnabled(config);
        // Refused, never ignored: in-place updates would break state migration and savepoints.
        FalconOptions.rejectInplaceUpdates(config);
        for (String key : FalconOptions.unknownKeys(config)) {
            FalconLog.logUnknownOptionOnce(key, FalconOptions.closestKey(key));
        }
    }

    @Override
    public FalconStateBackend configure(ReadableConfig config, ClassLoader classLoader) {
        return new FalconStateBackend(this, config, classLoader);
    }

    /**
     * The stock backend keeps the {@code state.backend.rocksdb.*} options privately; this builds
     * the same view: the newer configuration's value over the earlier one, each value validated
     * like the stock backend validates it.
     */
    private static Configuration mergeConfigurableOptions(
            ReadableConfig earlier, ReadableConfig newer) {
        Configuration merged = new Configuration();
        for (ConfigOption<?> option : FalconRocksDBBackendBuilder.configurableOptions()) {
            Optional<?> value = newer.getOptional(option);
            if (!value.isPresent()) {
                value = earlier.getOptional(option);
            }
            if (value.isPresent()) {
                FalconRocksDBBackendBuilder.checkConfigurableOptionValue(option, value.get());
                merged.setString(option.key(), value.get().toString());
            }
        }
        return merged;
    }

    // -- what Flink asks a state backend ------------------------------------------------------

    /** The wrapped stock backend, as configured. */
    public EmbeddedRocksDBStateBackend getRocksDBStateBackend() {
        return rocksDb;
    }

    public boolean isNativeRequired() {
        return nativeRequired != null ? nativeRequired : FalconOptions.NATIVE_REQUIRED.defaultValue();
    }

    /** Whether ValueStates get the hot-state cache (on, and a size that can hold entries). */
    public boolean isCacheEnabled() {
        boolean on = cacheEnabled != null ? cacheEnabled : FalconOptions.CACHE_ENABLED.defaultValue();
        return on && getCacheSettings().canHoldEntries();
    }

    /** The cache's size, policy and bypass settings (defaults until configured). */
    public CacheSettings getCacheSettings() {
        return cacheSettings != null
                ? cacheSettings
                : CacheSettings.fromConfig(new Configuration());
    }

    /**
     * Whether ValueState column families may get a HashLinkList memtable: {@code auto} (the
     * default) follows {@link #isCacheEnabled()}.
     */
    public boolean isHashMemtableEnabled() {
        ColumnFamilyTuner.HashMemtableMode mode =
                hashMemtableMode != null
                        ? hashMemtableMode
                        : ColumnFamilyTuner.HashMemtableMode.AUTO;
        return mode.enabled(isCacheEnabled());
    }

    /** Whether MapState column families may get the range filter. */
    public boolean isRangeFilterEnabled() {
        return rangeFilterEnabled != null
                ? rangeFilterEnabled
                : FalconOptions.TUNING_MAP_STATE_RANGE_FILTER.defaultValue();
    }

    @Override
    public boolean supportsNoClaimRestoreMode() {
        return rocksDb.supportsNoClaimRestoreMode();
    }

    @Override
    public boolean supportsSavepointFormat(SavepointFormatType formatType) {
        return rocksDb.supportsSavepointFormat(formatType);
    }

    @Override
    public OperatorStateBackend createOperatorStateBackend(
            Environment env,
            String operatorIdentifier,
            @Nonnull Collection<OperatorStateHandle> stateHandles,
            CloseableRegistry cancelStreamRegistry)
            throws Exception {
        return rocksDb.createOperatorStateBackend(
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

        NativeLoadResult nativeLibrary = nativeLoader.get();
        if (!nativeLibrary.isLoaded()) {
            if (isNativeRequired()) {
                throw new IOException(FalconLog.nativeRequiredFailure(nativeLibrary));
            }
            FalconLog.logNativeNotLoadedOnce(FalconLog.nativeNotLoadedLine(nativeLibrary));
            // Exactly the stock backend, built by the stock backend.
            return rocksDb.createKeyedStateBackend(
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
        FalconLog.logActivationOnce(() -> activationLine(nativeLibrary));

        // The steps of the stock backend, in its order.
        String tempDir = env.getTaskManagerInfo().getTmpWorkingDirectory().getAbsolutePath();
        FalconRocksDBBackendBuilder.ensureRocksDBIsLoaded(tempDir);

        String fileCompatibleIdentifier = operatorIdentifier.replaceAll("[^a-zA-Z0-9\\-]", "_");
        lazyInitializeForJob(env);
        File instanceBasePath =
                new File(
                        getNextStoragePath(),
                        "job_"
                                + jobId
                                + "_op_"
                                + fileCompatibleIdentifier
                                + "_uuid_"
                                + UUID.randomUUID());

        // Column-family tuning: null when both tunings are off (then everything is stock).
        ColumnFamilyTuner tuner =
                isHashMemtableEnabled() || isRangeFilterEnabled()
                        ? new ColumnFamilyTuner(
                                isHashMemtableEnabled(),
                                isRangeFilterEnabled(),
                                CompositeKeyLayout.keyGroupPrefixBytes(numberOfKeyGroups))
                        : null;
        if (tuner != null && !stateHandles.isEmpty()) {
            // Restored column families are created before any state registers.
            tuner.addRestoredStates(
                    keySerializer,
                    RestoredStateMetaInfo.read(
                            stateHandles,
                            env.getUserCodeClassLoader().asClassLoader(),
                            cancelStreamRegistry));
        }

        ManagedMemorySplit split =
                isCacheEnabled()
                        ? ManagedMemorySplit.withCacheShare(getCacheSettings().managedMemoryShare())
                        : ManagedMemorySplit.rocksDbOnly();
        RocksDBResourceContainer resourceContainer =
                FalconRocksDBBackendBuilder.createResourceContainer(
                        rocksDb.getMemoryConfiguration(),
                        env.getMemoryManager(),
                        split.rocksDbFraction(managedMemoryFraction),
                        rocksDbConfigurableOptions,
                        rocksDb.getPredefinedOptions(),
                        isHashMemtableEnabled()
                                // allow_concurrent_memtable_write off at every DB open
                                ? ColumnFamilyTuner.withDbRule(rocksDb.getRocksDBOptions(), true)
                                : rocksDb.getRocksDBOptions(),
                        instanceBasePath,
                        nativeMetricOptions.isStatisticsEnabled(),
                        LOG);

        StateRegistry registry = new StateRegistry(keySerializer);
        // On failure the builder closes what it opened, the resource container included.
        RocksDBKeyedStateBackend<K> inner =
                    FalconRocksDBBackendBuilder.build(
                            operatorIdentifier,
                            env.getUserCodeClassLoader().asClassLoader(),
                            instanceBasePath,
                            resourceContainer,
                            new ColumnFamilyOptionsFunction(resourceContainer, registry, tuner),
                            kvStateRegistry,
                            keySerializer,
                            numberOfKeyGroups,
                            keyGroupRange,
                            env.getExecutionConfig(),
                            env.getTaskStateManager().createLocalRecoveryConfig(),
                            rocksDb.getPriorityQueueStateType(),
                            ttlTimeProvider,
                            latencyTrackingConfigBuilder.setMetricGroup(metricGroup).build(),
                            metricGroup,
                            stateHandles,
                            getCompressionDecorator(env.getExecutionConfig()),
                            cancelStreamRegistry,
                            rocksDb.isIncrementalCheckpointsEnabled(),
                            rocksDb.getNumberOfTransferThreads(),
                            nativeMetricOptions,
                            rocksDb.getWriteBatchSize(),
                            FalconRocksDBBackendBuilder.overlapFractionThreshold(rocksDb));
        HotStateCacheManager<K> cache = null;
        if (isCacheEnabled()) {
            try {
                cache = createCache(env, inner, split, managedMemoryFraction, metricGroup);
            } catch (IOException | RuntimeException e) {
                inner.dispose();
                throw e;
            }
        }
        try {
            return new FalconKeyedStateBackend<>(
                    inner,
                    registry,
                    withTuning(cache != null ? cache : CacheFlushHook.NONE, tuner, inner),
                    cache);
        } catch (IOException | RuntimeException e) {
            if (cache != null) {
                cache.release();
            }
            throw e;
        }
    }

    /**
     * Joins the slot's cache budget (reserving the slot's {@code a·f} when this is its first keyed
     * subtask), logs the TaskManager line (once per JVM) and the subtask line, and builds the
     * subtask's cache on its budget lease. Null when the budget gives the cache nothing.
     */
    @Nullable
    private <K> HotStateCacheManager<K> createCache(
            Environment env,
            RocksDBKeyedStateBackend<K> inner,
            ManagedMemorySplit split,
            double managedMemoryFraction,
            MetricGroup metricGroup)
            throws IOException {
        CacheSettings settings = getCacheSettings();
        TaskInfo task = env.getTaskInfo();
        SubtaskCacheBudget budget =
                CacheBudgets.acquire(
                        env,
                        settings,
                        split.cacheFraction(managedMemoryFraction),
                        managedMemoryFraction,
                        task.getTaskNameWithSubtasks());
        if (budget == null) {
            return null;
        }
        NativeHotStateCache nativeCache = null;
        try {
            SlotCacheBudget slot = budget.slot();
            FalconLog.logTaskManagerCacheOnce(
                    CacheBudgets.slots(env),
                    settings.isFixedSize() ? settings.fixedBytesPerSubtask() : slot.slotBytes(),
                    settings.isFixedSize() ? settings.fixedEntriesPerSubtask() : slot.slotEntries());
            FalconLog.logSubtaskCache(
                    task.getTaskName(),
                    task.getIndexOfThisSubtask(),
                    task.getNumberOfParallelSubtasks(),
                    task.getAttemptNumber(),
                    budget.subtasksInSlot(),
                    budget.joinedQuotaBytes(),
                    budget.joinedQuotaEntries());
            nativeCache = settings.createNativeCache(budget.takeLease());
            return new HotStateCacheManager<>(inner, nativeCache, budget, metricGroup);
        } catch (RuntimeException e) {
            if (nativeCache != null) {
                nativeCache.close();
            }
            budget.close();
            throw e;
        }
    }

    /**
     * With tuning, flushes hash column families before whole-column-family scans (after the
     * cache's own flush) and releases the tuner with the backend. Also flushes them once now: a
     * restore may have written restored entries into their memtables.
     */
    private static CacheFlushHook withTuning(
            CacheFlushHook cacheHook,
            @Nullable ColumnFamilyTuner tuner,
            RocksDBKeyedStateBackend<?> inner)
            throws IOException {
        if (tuner == null) {
            return cacheHook;
        }
        HashColumnFamilyFlushHook hook =
                new HashColumnFamilyFlushHook(
                        cacheHook,
                        tuner,
                        state -> FalconColumnFamilyAccess.flushColumnFamily(inner, state));
        try {
            hook.flushHashColumnFamilies();
        } catch (Exception e) {
            inner.dispose();
            tuner.close();
            throw new IOException("[FALCON] flushing restored hash column families failed", e);
        }
        return hook;
    }

    /** The activation line for what this version actually runs. */
    String activationLine(NativeLoadResult nativeLibrary) {
        String version = NativeLibrary.jarVersion();
        return FalconLog.activationLine(
                version == null ? "(unknown version)" : version,
                nativeLibrary.path(),
                isCacheEnabled(),
                isCacheEnabled() ? getCacheSettings().policy() : "none",
                isHashMemtableEnabled(),
                isRangeFilterEnabled());
    }

    // -- local directories (re-created: the stock versions are private) ----------------------

    private void lazyInitializeForJob(Environment env) throws IOException {
        if (isInitialized) {
            return;
        }
        this.jobId = env.getJobID();
        String[] configured = rocksDb.getDbStoragePaths();
        if (configured == null) {
            initializedDbBasePaths = new File[] {env.getTaskManagerInfo().getTmpWorkingDirectory()};
        } else {
            List<File> usable = new ArrayList<>(configured.length);
            StringBuilder problems = new StringBuilder();
            for (String path : configured) {
                File dir = new File(path);
                File probe = new File(dir, UUID.randomUUID().toString());
                if (probe.mkdirs()) {
                    usable.add(dir);
                } else {
                    String problem =
                            "Local DB files directory '"
                                    + dir
                                    + "' does not exist and cannot be created. ";
                    LOG.error(problem);
                    problems.append(problem);
                }
                //noinspection ResultOfMethodCallIgnored
                probe.delete();
            }
            if (usable.isEmpty()) {
                throw new IOException("No local storage directories available. " + problems);
            }
            initializedDbBasePaths = usable.toArray(new File[0]);
        }
        nextDirectory = new Random().nextInt(initializedDbBasePaths.length);
        isInitialized = true;
    }

    private File getNextStoragePath() {
        nextDirectory = (nextDirectory + 1) % initializedDbBasePaths.length;
        return initializedDbBasePaths[nextDirectory];
    }

    // -- tests ----------------------------------------------------------------------------------

    /** Replaces the native loader; returns the previous one. */
    @VisibleForTesting
    static Supplier<NativeLoadResult> setNativeLoaderForTesting(Supplier<NativeLoadResult> loader) {
        Supplier<NativeLoadResult> previous = nativeLoader;
        nativeLoader = loader;
        return previous;
    }

    @Override
    public String toString() {
        return "FalconStateBackend{rocksDb="
                + rocksDb
                + ", nativeRequired="
                + isNativeRequired()
                + ", cacheEnabled="
                + isCacheEnabled()
                + '}';
    }
}
