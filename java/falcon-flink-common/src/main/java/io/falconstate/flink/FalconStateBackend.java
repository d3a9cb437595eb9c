/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import io.falconstate.flink.cache.CacheSettings;
import io.falconstate.flink.nativeaccess.NativeLibrary;
import io.falconstate.flink.nativeaccess.NativeLoadResult;

import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.contrib.streaming.state.FalconRocksDBBackendBuilder;
import org.apache.flink.contrib.streaming.state.RocksDBNativeMetricOptions;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.core.fs.CloseableRegistry;
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

    /** Falcon's own options; null until configured (then the defaults apply). */
    @Nullable private final FalconSettings settings;

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
     * Wraps a RocksDB backend configured in application code (predefined options, options factory,
     * storage paths, ...). Its settings win over the configuration, as for the stock backend.
     */
    public FalconStateBackend(EmbeddedRocksDBStateBackend rocksDb) {
        this(rocksDb, new Configuration(), new RocksDBNativeMetricOptions(), null);
    }

    private FalconStateBackend(
            EmbeddedRocksDBStateBackend rocksDb,
            Configuration rocksDbConfigurableOptions,
            RocksDBNativeMetricOptions nativeMetricOptions,
            @Nullable FalconSettings settings) {
        this.rocksDb = rocksDb;
        this.rocksDbConfigurableOptions = rocksDbConfigurableOptions;
        this.nativeMetricOptions = nativeMetricOptions;
        this.settings = settings;
    }

    /**
     * Re-configuration: what the application set wins, the configuration fills the rest. Falcon's
     * own settings, once read (on the client), travel with the job as they are.
     */
    private FalconStateBackend(
            FalconStateBackend original, ReadableConfig config, ClassLoader classLoader) {
        this(
                original.rocksDb.configure(config, classLoader),
                mergeConfigurableOptions(original.rocksDbConfigurableOptions, config),
                RocksDBNativeMetricOptions.fromConfig(config),
                original.settings != null ? original.settings : FalconSettings.fromConfig(config));
        this.latencyTrackingConfigBuilder = original.latencyTrackingConfigBuilder.configure(config);
    }

    /**
     * Flink configures a backend the application set before it creates any state, so a jar built
     * for another Flink minor version refuses here ({@link FlinkVersionGuard}), before anything
     * reaches a Flink internal that version changed.
     */
    @Override
    public FalconStateBackend configure(ReadableConfig config, ClassLoader classLoader) {
        FlinkVersionGuard.check();
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

    /** Falcon's settings (the defaults until configured). */
    public FalconSettings getSettings() {
        return settings != null ? settings : FalconSettings.defaults();
    }

    public boolean isNativeRequired() {
        return getSettings().nativeRequired();
    }

    /** Whether ValueStates get the hot-state cache (on, and a size that can hold entries). */
    public boolean isCacheEnabled() {
        return getSettings().cacheOn();
    }

    /** The cache's size, policy and bypass settings. */
    public CacheSettings getCacheSettings() {
        return getSettings().cache();
    }

    /** Whether ValueState column families may get a HashLinkList memtable. */
    public boolean isHashMemtableEnabled() {
        return getSettings().hashMemtableOn();
    }

    /** Whether MapState column families may get the range filter. */
    public boolean isRangeFilterEnabled() {
        return getSettings().rangeFilterOn();
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

        return new FalconKeyedBackendBuilder<>(
                        getSettings(),
                        rocksDb,
                        rocksDbConfigurableOptions,
                        nativeMetricOptions,
                        latencyTrackingConfigBuilder.setMetricGroup(metricGroup).build(),
                        getCompressionDecorator(env.getExecutionConfig()),
                        env,
                        operatorIdentifier,
                        instanceBasePath,
                        keySerializer,
                        numberOfKeyGroups,
                        keyGroupRange,
                        kvStateRegistry,
                        ttlTimeProvider,
                        metricGroup,
                        stateHandles,
                        cancelStreamRegistry,
                        managedMemoryFraction)
                .build();
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
        return "FalconStateBackend{rocksDb=" + rocksDb + ", " + getSettings() + '}';
    }
}
