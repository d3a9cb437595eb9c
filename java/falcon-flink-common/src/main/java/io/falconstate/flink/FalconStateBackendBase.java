/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import io.falconstate.flink.cache.CacheSettings;
import io.falconstate.flink.config.FalconOptions;
import io.falconstate.flink.log.FalconLog;
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
import org.apache.flink.contrib.streaming.state.FalconStockBuilderSettings;
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
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * Everything of {@link FalconStateBackend} that is the same on every Flink minor: the wrapped stock
 * backend and its resolved settings, Falcon's settings, the native library check, the local
 * directories and the creation of Falcon's keyed backend. {@link FalconStateBackend} (one class per
 * Flink minor, same name) adds the {@code StateBackend} methods of its minor's SPI and delegates
 * here.
 *
 * <p>It wraps (does not subclass) a configured {@link EmbeddedRocksDBStateBackend}: the stock
 * backend's re-configuration constructor is private. Every stock setting is resolved by the wrapped
 * instance and read back through its getters; the few pieces of the stock setup that are private
 * (merging {@code state.backend.rocksdb.*} options, native metric options, the settings a minor's
 * stock backend resolves without a getter, choosing the local directory) are re-created here, and
 * the parity test checks that both open RocksDB with the same options and the same managed memory.
 *
 * <p>Deliberately not a {@code DelegatingStateBackend}: Flink's changelog backend wraps this one
 * and rejects nested delegation. Checkpoint storage stays separate, as for the stock backend.
 *
 * <p>When {@code libfalcon_jni.so} cannot be loaded, keyed backends are created by the wrapped
 * stock backend itself (one {@code [FALCON] WARN} line per JVM), unless {@link
 * FalconOptions#NATIVE_REQUIRED} is set, in which case creation fails with that message.
 */
public abstract class FalconStateBackendBase extends AbstractManagedMemoryStateBackend
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

    /** What this minor's stock backend sets on its keyed builder and keeps without a getter. */
    private final FalconStockBuilderSettings stockBuilderSettings;

    /** Falcon's own options; null until configured (then the defaults apply). */
    @Nullable private final FalconSettings settings;

    // -- runtime, per TaskManager ------------------------------------------------------------

    private transient File[] initializedDbBasePaths;
    private transient JobID jobId;
    private transient int nextDirectory;
    private transient boolean isInitialized;

    /** Wraps a RocksDB backend configured in application code; its settings win. */
    protected FalconStateBackendBase(EmbeddedRocksDBStateBackend rocksDb) {
        this.rocksDb = rocksDb;
        this.rocksDbConfigurableOptions = new Configuration();
        this.nativeMetricOptions = new RocksDBNativeMetricOptions();
        this.stockBuilderSettings = FalconStockBuilderSettings.unconfigured();
        this.settings = null;
    }

    /**
     * Re-configuration: what the application set wins, the configuration fills the rest. Falcon's
     * own settings, once read (on the client), travel with the job as they are.
     */
    protected FalconStateBackendBase(
            FalconStateBackendBase original, ReadableConfig config, ClassLoader classLoader) {
        this.rocksDb = original.rocksDb.configure(config, classLoader);
        this.rocksDbConfigurableOptions =
                mergeConfigurableOptions(original.rocksDbConfigurableOptions, config);
        this.nativeMetricOptions = RocksDBNativeMetricOptions.fromConfig(config);
        this.stockBuilderSettings = original.stockBuilderSettings.configure(config);
        this.settings =
                original.settings != null ? original.settings : FalconSettings.fromConfig(config);
        this.latencyTrackingConfigBuilder = original.latencyTrackingConfigBuilder.configure(config);
    }

    /**
     * Flink configures a backend the application set before it creates any state, so a jar built
     * for another Flink minor version refuses here ({@link FlinkVersionGuard}), before anything
     * reaches a Flink internal that version changed.
     */
    @Override
    public abstract FalconStateBackend configure(ReadableConfig config, ClassLoader classLoader);

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

    /** What this minor's stock backend sets on its keyed builder beyond every minor's settings. */
    protected FalconStockBuilderSettings stockBuilderSettings() {
        return stockBuilderSettings;
    }

    /**
     * The loaded native library, or null when keyed backends are to come from the stock backend
     * itself (logged once per JVM).
     *
     * @throws IOException when the library is missing and {@link FalconOptions#NATIVE_REQUIRED} is
     *     set
     */
    @Nullable
    protected final NativeLoadResult nativeLibraryOrFallback() throws IOException {
        NativeLoadResult nativeLibrary = nativeLoader.get();
        if (!nativeLibrary.isLoaded()) {
            if (isNativeRequired()) {
                throw new IOException(
                        FalconLog.nativeRequiredFailure(
                                nativeLibrary.describeAttempts(),
                                FalconOptions.NATIVE_REQUIRED.key()));
            }
            FalconLog.logNativeNotLoadedOnce(
                    FalconLog.nativeNotLoadedLine(nativeLibrary.describeAttempts()));
            return null;
        }
        return nativeLibrary;
    }

    /**
     * Falcon's keyed backend, created with the steps of the stock backend, in its order (the job id
     * comes from {@code env}, as for the stock backend).
     */
    protected final <K> AbstractKeyedStateBackend<K> createFalconKeyedBackend(
            NativeLoadResult nativeLibrary,
            FalconStockBuilderSettings stockSettings,
            Environment env,
            String operatorIdentifier,
            TypeSerializer<K> keySerializer,
            int numberOfKeyGroups,
            KeyGroupRange keyGroupRange,
            TaskKvStateRegistry kvStateRegistry,
            TtlTimeProvider ttlTimeProvider,
            MetricGroup metricGroup,
            Collection<KeyedStateHandle> stateHandles,
            CloseableRegistry cancelStreamRegistry,
            double managedMemoryFraction)
            throws IOException {
        FalconLog.logActivationOnce(() -> activationLine(nativeLibrary));

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
                        stockSettings,
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
                isRangeFilterEnabled(),
                getSettings().lz4CompressionOn());
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
        return getClass().getSimpleName() + "{rocksDb=" + rocksDb + ", " + getSettings() + '}';
    }
}
