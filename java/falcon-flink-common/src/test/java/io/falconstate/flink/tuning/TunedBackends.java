/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import io.falconstate.flink.FalconKeyedStateBackend;
import io.falconstate.flink.FalconStateBackend;
import io.falconstate.flink.StateBackendCalls;
import io.falconstate.flink.cache.CachedBackends;
import io.falconstate.flink.config.FalconOptions;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.contrib.streaming.state.FalconColumnFamilyAccess;
import org.apache.flink.contrib.streaming.state.RocksDBKeyedStateBackend;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.CheckpointStorageLocationReference;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SharedStateRegistry;
import org.apache.flink.runtime.state.SharedStateRegistryImpl;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.memory.MemCheckpointStreamFactory;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.apache.flink.streaming.api.operators.StreamOperatorStateHandler;
import org.apache.flink.util.concurrent.FutureUtils;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.UUID;
import java.util.concurrent.RunnableFuture;

/**
 * The tuning combinations the snapshot-path tests run under, and the few steps every such test
 * takes: open a keyed backend over {@code Long} keys (fixed length, so ValueStates and, with the
 * range filter, MapStates are tuned), push what RocksDB holds into SST files, and take each kind of
 * snapshot Flink takes.
 */
public final class TunedBackends {

    public static final int MAX_PARALLELISM = 128;

    /** Long key (8) + VoidNamespace (1) + one key-group byte. */
    public static final int VALUE_KEY_BYTES = 10;

    private TunedBackends() {}

    /** The tuning combinations: every one gives ValueState column families the hash memtable. */
    public enum Tuning {
        /** Falcon's defaults: cache on, hash memtable (auto), MapState range filter. */
        DEFAULTS(true),
        /** The hash memtable without the cache: every write reaches RocksDB at once. */
        HASH_MEMTABLE_NO_CACHE(true),
        /** Defaults with the MapState range filter switched off. */
        NO_RANGE_FILTER(false),
        /** Both tunings and a 4-entry cache: every write goes through evictions. */
        TINY_CACHE(true);

        private final boolean rangeFilter;

        Tuning(boolean rangeFilter) {
            this.rangeFilter = rangeFilter;
        }

        /** Whether MapState column families get the range filter in this combination. */
        public boolean rangeFilter() {
            return rangeFilter;
        }

        public Configuration config() {
            Configuration config = new Configuration();
            switch (this) {
                case DEFAULTS:
                    break;
                case HASH_MEMTABLE_NO_CACHE:
                    config.set(FalconOptions.CACHE_ENABLED, false);
                    config.set(FalconOptions.TUNING_VALUE_STATE_HASH_MEMTABLE, "true");
                    break;
                case NO_RANGE_FILTER:
                    config.set(FalconOptions.TUNING_MAP_STATE_RANGE_FILTER, false);
                    break;
                case TINY_CACHE:
                    CachedBackends.tinyCache(config);
                    config.set(FalconOptions.TUNING_MAP_STATE_RANGE_FILTER, true);
                    break;
                default:
                    throw new AssertionError(this);
            }
            return config;
        }
    }

    /** A Falcon backend with {@code tuning}, its RocksDB files under {@code dir}. */
    public static FalconStateBackend falcon(Tuning tuning, boolean incremental, Path dir) {
        EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend(incremental);
        rocksDb.setDbStoragePath(dir.resolve("falcon-" + UUID.randomUUID()).toString());
        FalconStateBackend backend =
                new FalconStateBackend(rocksDb)
                        .configure(tuning.config(), TunedBackends.class.getClassLoader());
        if (!backend.isHashMemtableEnabled()
                || backend.isRangeFilterEnabled() != tuning.rangeFilter()) {
            throw new IllegalStateException("tuning not switched on as " + tuning + ": " + backend);
        }
        return backend;
    }

    /** The stock RocksDB backend, its files under {@code dir}. */
    public static EmbeddedRocksDBStateBackend stock(boolean incremental, Path dir) {
        EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend(incremental);
        rocksDb.setDbStoragePath(dir.resolve("stock-" + UUID.randomUUID()).toString());
        return rocksDb.configure(new Configuration(), TunedBackends.class.getClassLoader());
    }

    /** A keyed backend over Long keys, all key groups, restored from {@code restore}. */
    public static AbstractKeyedStateBackend<Long> keyed(
            StateBackend backend, Environment env, Collection<KeyedStateHandle> restore)
            throws Exception {
        return keyed(
                backend,
                env,
                new KeyGroupRange(0, MAX_PARALLELISM - 1),
                restore,
                TtlTimeProvider.DEFAULT);
    }

    public static AbstractKeyedStateBackend<Long> keyed(
            StateBackend backend,
            Environment env,
            KeyGroupRange keyGroups,
            Collection<KeyedStateHandle> restore,
            TtlTimeProvider ttlTimeProvider)
            throws Exception {
        return (AbstractKeyedStateBackend<Long>)
                StateBackendCalls.keyedBackend(
                        backend,
                        env,
                        new JobID(),
                        "tuned-operator (1/1)#0",
                        LongSerializer.INSTANCE,
                        MAX_PARALLELISM,
                        keyGroups,
                        env.getTaskKvStateRegistry(),
                        ttlTimeProvider,
                        new UnregisteredMetricsGroup(),
                        restore,
                        new CloseableRegistry(),
                        1.0);
    }

    /** The tuning profile Falcon applied to a state's column family; null when untuned. */
    public static TuningProfile profileOf(AbstractKeyedStateBackend<?> backend, String state) {
        ColumnFamilyTuner tuner =
                backend instanceof FalconKeyedStateBackend
                        ? ((FalconKeyedStateBackend<?>) backend).getColumnFamilyTuner()
                        : null;
        if (tuner == null) {
            return null;
        }
        TuningProfile profile = tuner.profileOf(state);
        return profile != null && profile.tuned() ? profile : null;
    }

    /** True when {@code state}'s column family has Falcon's HashLinkList memtable. */
    public static boolean hasHashMemtable(AbstractKeyedStateBackend<?> backend, String state) {
        TuningProfile profile = profileOf(backend, state);
        return profile != null && profile.isHashMemtable();
    }

    /** True when {@code state}'s column family has Falcon's range filter. */
    public static boolean hasRangeFilter(AbstractKeyedStateBackend<?> backend, String state) {
        TuningProfile profile = profileOf(backend, state);
        return profile != null && !profile.isHashMemtable();
    }

    /**
     * Writes everything the cache holds into RocksDB and flushes the named column families, so what
     * was written so far is in SST files and what comes next is in the memtables.
     */
    public static void pushToSst(AbstractKeyedStateBackend<?> backend, String... states)
            throws Exception {
        RocksDBKeyedStateBackend<?> rocksDb = rocksDb(backend);
        if (backend instanceof FalconKeyedStateBackend) {
            ((FalconKeyedStateBackend<?>) backend).flushAll();
        }
        for (String state : states) {
            if (!FalconColumnFamilyAccess.flushColumnFamily(rocksDb, state)) {
                throw new IllegalStateException("no column family " + state);
            }
        }
    }

    /** The RocksDB keyed backend behind a Falcon or stock keyed backend. */
    public static RocksDBKeyedStateBackend<?> rocksDb(AbstractKeyedStateBackend<?> backend) {
        return backend instanceof FalconKeyedStateBackend
                ? ((FalconKeyedStateBackend<?>) backend).getRocksDBKeyedStateBackend()
                : (RocksDBKeyedStateBackend<?>) backend;
    }

    /** The kinds of snapshot Flink takes of a keyed backend. */
    public enum SnapshotKind {
        /** A checkpoint: incremental or full (native, non-incremental) by the backend's setting. */
        CHECKPOINT,
        /** A savepoint in the canonical format: iterators over a RocksDB snapshot. */
        CANONICAL_SAVEPOINT,
        /** A savepoint in the native format. */
        NATIVE_SAVEPOINT
    }

    /**
     * Takes snapshots with increasing ids and registers their shared files, as the checkpoint
     * coordinator does: a later incremental checkpoint refers to files an earlier one uploaded.
     */
    public static final class Snapshots {
        private final SharedStateRegistry registry = new SharedStateRegistryImpl();
        private long nextId = 1;

        /** Takes a snapshot, both phases, and returns the handle a restore takes. */
        public KeyedStateHandle take(AbstractKeyedStateBackend<?> backend, SnapshotKind kind)
                throws Exception {
            return complete(startSnapshot(backend, kind, nextId));
        }

        /** Runs the asynchronous phase of a snapshot this object started, and registers it. */
        public KeyedStateHandle complete(RunnableFuture<SnapshotResult<KeyedStateHandle>> future)
                throws Exception {
            long id = nextId++;
            KeyedStateHandle handle =
                    FutureUtils.runIfNotDoneAndGet(future).getJobManagerOwnedSnapshot();
            if (handle != null) {
                handle.registerSharedStates(registry, id);
            }
            return handle;
        }

        /** The synchronous phase of the next snapshot. */
        public RunnableFuture<SnapshotResult<KeyedStateHandle>> start(
                AbstractKeyedStateBackend<?> backend, SnapshotKind kind) throws Exception {
            return startSnapshot(backend, kind, nextId);
        }
    }

    /** The synchronous phase of a snapshot; run the future for the asynchronous one. */
    public static RunnableFuture<SnapshotResult<KeyedStateHandle>> startSnapshot(
            AbstractKeyedStateBackend<?> backend, SnapshotKind kind, long id) throws Exception {
        MemCheckpointStreamFactory streams = new MemCheckpointStreamFactory(64 << 20);
        switch (kind) {
            case CHECKPOINT:
                return backend.snapshot(
                        id, id, streams, CheckpointOptions.forCheckpointWithDefaultLocation());
            case CANONICAL_SAVEPOINT:
                return StreamOperatorStateHandler.prepareCanonicalSavepoint(
                                backend, new CloseableRegistry())
                        .snapshot(id, id, streams, savepointOptions(SavepointFormatType.CANONICAL));
            case NATIVE_SAVEPOINT:
                return backend.snapshot(
                        id, id, streams, savepointOptions(SavepointFormatType.NATIVE));
            default:
                throw new AssertionError(kind);
        }
    }

    private static CheckpointOptions savepointOptions(SavepointFormatType format) {
        return new CheckpointOptions(
                SavepointType.savepoint(format), CheckpointStorageLocationReference.getDefault());
    }

    /** A restore list of one handle; mutable, as Flink's rescaling restore removes from it. */
    public static Collection<KeyedStateHandle> from(KeyedStateHandle handle) {
        return new ArrayList<>(Collections.singletonList(handle));
    }
}
