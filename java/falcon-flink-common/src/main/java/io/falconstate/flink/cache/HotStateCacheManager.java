/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import io.falconstate.flink.budget.SubtaskCacheBudget;
import io.falconstate.flink.nativeaccess.CacheQuota;
import io.falconstate.flink.nativeaccess.CacheStats;
import io.falconstate.flink.nativeaccess.MapCacheStats;
import io.falconstate.flink.nativeaccess.NativeHotStateCache;
import io.falconstate.flink.nativeaccess.NativeMapCache;

import org.apache.flink.contrib.streaming.state.FalconRocksDBAccess;
import org.apache.flink.contrib.streaming.state.RocksDBKeyedStateBackend;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.state.internal.InternalListState;
import org.apache.flink.runtime.state.internal.InternalMapState;
import org.apache.flink.runtime.state.internal.InternalValueState;
import org.apache.flink.util.FlinkRuntimeException;

import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The hot-state cache of one keyed backend (one subtask): the native cache, the shared key builder,
 * the write-back path into RocksDB, and the cached states ({@link CachedValueState}, {@link
 * CachedListState}, {@link CachedMapState}) built on them, each with its {@link StateColumnFamily}
 * and {@link CacheSwitch}.
 *
 * <p>As the backend's {@link CacheFlushHook} it makes RocksDB complete before anything reads
 * RocksDB around the cache: every snapshot (checkpoint or savepoint), every count, every
 * whole-state scan, and every re-registration (which may migrate values). All of it runs on the
 * task thread; asynchronous checkpoint threads never touch the cache.
 *
 * <p>Write-back invariant: when a cache call reports pending write-backs, they are written into
 * RocksDB before the call's caller returns ({@link #afterWrite}), so an entry that left the cache
 * is always in RocksDB before anyone can read it there.
 *
 * <p>Not thread-safe (task thread); metric threads only read the registrations. {@link #release()}
 * is idempotent and frees native memory without writing anything back.
 */
public final class HotStateCacheManager<K> implements CacheFlushHook {

    /** What one registration of a cached state consists of; replaced by a re-registration. */
    static final class Registration {
        final int stateId;
        final StateColumnFamily column;
        final CacheSwitch cacheSwitch;
        final CachedState state;

        Registration(
                int stateId, StateColumnFamily column, CacheSwitch cacheSwitch, CachedState state) {
            this.stateId = stateId;
            this.column = column;
            this.cacheSwitch = cacheSwitch;
            this.state = state;
        }
    }

    private final RocksDBKeyedStateBackend<K> rocksDb;
    private final RocksDB db;
    private final NativeHotStateCache cache;
    private final CacheKeyBuilder<K> keyBuilder;
    private final WriteBackWriter writer;
    private final NativeMapCache maps;
    private final CacheSettings settings;
    private final CachedStateWrappers<K> wrappers;

    /** Every cached state by name; metric threads read it, so it is a concurrent map. */
    private final Map<String, Registration> registrations = new ConcurrentHashMap<>();

    private int nextStateId;
    private boolean released;

    /** This subtask's place in the slot's budget; closed after the cache. Null in unit tests. */
    @Nullable private final SubtaskCacheBudget budget;

    /** The cache's gauges, fed snapshots by the task thread. */
    private final CacheMetrics metrics;

    /** When to write back ahead of the next barrier; see {@link #pace()}. */
    private final BarrierPacer pacer;

    /** The dirty-byte cap, sized from the target pause and measured write-backs. */
    private final DirtyCapController dirtyCap;

    /** The cache's dirty entries now (asked once per pre-barrier window). */
    private final LongSupplier dirtyEntries;

    /** Cache writes until the pacer next looks at the clock. */
    private int writesUntilPace = BarrierPacer.TICK_WRITES;

    /**
     * What runs after the pacer's last write-back ahead of a barrier (the held timers' write-back,
     * memtable flushes started without waiting); set by the keyed backend. Nothing by default.
     */
    private AheadOfBarrier aheadOfBarrier = barrierExpected -> {};

    /**
     * Takes ownership of {@code cache} and {@code budget} (both closed by {@link #release()}, the
     * cache first). Registers the key builder as a key-selection listener of {@code rocksDb}, and
     * metrics under {@code metricGroup.falcon.cache} when it is not null.
     */
    public HotStateCacheManager(
            RocksDBKeyedStateBackend<K> rocksDb,
            NativeHotStateCache cache,
            CacheSettings settings,
            @Nullable SubtaskCacheBudget budget,
            @Nullable MetricGroup metricGroup) {
        this.settings = settings;
        this.budget = budget;
        this.metrics = new CacheMetrics(metricGroup, cache.quota().bytes());
        this.rocksDb = rocksDb;
        this.db = FalconRocksDBAccess.db(rocksDb);
        this.cache = cache;
        this.maps = new NativeMapCache(cache);
        this.keyBuilder =
                new CacheKeyBuilder<>(
                        rocksDb, rocksDb.getKeySerializer(), rocksDb.getKeyGroupPrefixBytes());
        rocksDb.registerKeySelectionListener(keyBuilder);
        this.writer = new WriteBackWriter(db, rocksDb.getWriteOptions());
        this.wrappers = new CachedStateWrappers<>(this, rocksDb, db, settings);
        this.pacer =
                new BarrierPacer(
                        settings.preBarrierLead(),
                        MIN_PACED_INTERVAL_NANOS,
                        settings.checkpointIntervalMillis() * 1_000_000L,
                        System.nanoTime());
        this.dirtyEntries = () -> cache.stats(-1).dirtyEntries();
        this.dirtyCap =
                new DirtyCapController(
                        settings.writeBackPauseTargetNanos(), settings.maxDirtyBytes());
        metrics.setDirtyCap(dirtyCap.capBytes());
    }

    /** Checkpoint intervals under one second are not paced: the barrier has little to do. */
    private static final long MIN_PACED_INTERVAL_NANOS = 1_000_000_000L;

    /**
     * Wraps RocksDB's ValueState {@code stateName}. Called after RocksDB registered (or
     * re-registered) it; returns the same wrapper for the same name, refreshed.
     */
    public <N, V> InternalValueState<K, N, V> wrap(
            String stateName, InternalValueState<K, N, V> rocksDbState, V defaultValue) {
        return wrappers.wrapValue(stateName, rocksDbState, defaultValue);
    }

    /** As {@link #wrap}, for a ListState: whole lists are cached. */
    public <N, V> InternalListState<K, N, V> wrapList(
            String stateName, InternalListState<K, N, V> rocksDbState) {
        return wrappers.wrapList(stateName, rocksDbState);
    }

    /** As {@link #wrap}, for a MapState: maps of up to {@code maxMapBytes} are cached whole. */
    public <N, UK, UV> InternalMapState<K, N, UK, UV> wrapMap(
            String stateName, InternalMapState<K, N, UK, UV> rocksDbState, long maxMapBytes) {
        return wrappers.wrapMap(stateName, rocksDbState, maxMapBytes);
    }

    /** The registration of a cached state, or null. */
    @Nullable
    Registration registration(String stateName) {
        return registrations.get(stateName);
    }

    /** A state id for a state new to this backend. */
    int newStateId() {
        return nextStateId++;
    }

    /**
     * The one path of every new wrapper, of either kind: its records go to its column family, and a
     * state new to this backend gets its metrics (their suppliers look the registration up, so they
     * follow re-registrations).
     */
    void register(String stateName, @Nullable Registration previous, Registration r) {
        writer.setColumn(r.stateId, r.column);
        registrations.put(stateName, r);
        if (previous == null) {
            metrics.registerState(stateName, r.stateId, () -> cacheSwitch(stateName));
            if (r.state.isMap()) {
                metrics.registerMapState(stateName, r.stateId);
            }
            if (r.column.writtenKeys() != null) {
                metrics.registerWrittenKeyFilter(stateName, () -> neverWrittenReads(stateName));
            }
        }
    }

    /** The written-key filter of a state, or null (none, or not wrapped). */
    WrittenKeyFilter writtenKeyFilter(String stateName) {
        Registration r = registrations.get(stateName);
        return r == null ? null : r.column.writtenKeys();
    }

    /** Misses of a state its written-key filter answered without RocksDB (metrics). */
    private long neverWrittenReads(String stateName) {
        WrittenKeyFilter filter = writtenKeyFilter(stateName);
        return filter == null ? 0 : filter.knownAbsentReads();
    }

    /**
     * Keys of {@code stateName} (wrapped) must be exactly {@code keyLength} bytes, or any length
     * when it is -1: its column family has a HashLinkList memtable. Checked for every record the
     * cache writes into RocksDB (write-back or not cached).
     */
    public void requireKeyLength(String stateName, int keyLength) {
        Registration r = registrations.get(stateName);
        if (r != null) {
            r.column.requireKeyLength(keyLength);
        }
    }

    /** Drains pending write-backs if {@code code} (from a cache write call) reports any. */
    void afterWrite(int code) {
        afterFlush(code);
        if (--writesUntilPace == 0) {
            pace();
        }
    }

    /** {@link #afterWrite} for the cache's own write-backs: drains, and no pacer tick. */
    private void afterFlush(int code) {
        if ((code & NativeHotStateCache.WRITE_PENDING) != 0) {
            drain();
        }
        if (metrics.wanted()) {
            refreshStats();
        }
    }

    /**
     * A pacer tick (every {@link BarrierPacer#TICK_WRITES} cache writes): inside the window before
     * the expected barrier, writes back one slice of dirty entries; at its end, the rest, then
     * starts the flush of the cached states' memtables without waiting.
     */
    private void pace() {
        writesUntilPace = BarrierPacer.TICK_WRITES;
        if (released) {
            return;
        }
        int action = pacer.onTick(System.nanoTime(), dirtyEntries);
        if (action == BarrierPacer.NOTHING) {
            return;
        }
        long before = writer.bytesWritten();
        if (action > 0) {
            afterFlush(cache.writeBackSome(action));
        } else {
            long start = System.nanoTime();
            afterFlush(cache.flush(-1));
            measureWriteBack(writer.bytesWritten() - before, System.nanoTime() - start);
            aheadOfBarrier.run(!pacer.provisional());
        }
        metrics.recordPreBarrier(writer.bytesWritten() - before);
    }

    /** A whole write-back measured: the dirty-byte cap follows the rate (DirtyCapController). */
    private void measureWriteBack(long bytes, long nanos) {
        if (dirtyCap.onWriteBack(bytes, nanos)) {
            cache.setDirtyCap(dirtyCap.capBytes(), dirtyCap.lowWaterBytes());
            metrics.setDirtyCap(dirtyCap.capBytes());
        }
    }

    /** What the keyed backend does once the cache has written back ahead of a barrier. */
    @FunctionalInterface
    public interface AheadOfBarrier {
        /**
         * @param barrierExpected true when a barrier is expected soon; false at the end of a
         *     provisional round (before the first barrier, or after one came late)
         */
        void run(boolean barrierExpected);
    }

    /**
     * What the pacer runs after its last slice before a barrier: the backend's other write-backs
     * and flushes of the memtables whose flush the barrier would otherwise wait for (called on the
     * task thread between two state operations; must not wait for RocksDB's flushes).
     */
    public void setAheadOfBarrier(AheadOfBarrier aheadOfBarrier) {
        this.aheadOfBarrier = aheadOfBarrier;
    }

    /**
     * A checkpoint barrier reached the backend at {@code nanoTime}, before its {@link #flushAll}:
     * the pacer plans the write-back ahead of the next one. {@code flushRunning}: RocksDB was still
     * flushing a memtable.
     */
    public void onBarrier(long nanoTime, boolean flushRunning) {
        pacer.onBarrier(nanoTime, flushRunning);
        metrics.onBarrier();
    }

    /** The timed phases of a checkpoint's synchronous part (the {@code checkpoint*} gauges). */
    public void recordCheckpointPhases(
            long writeBackNanos, long memtableFlushNanos, long rocksDbSyncNanos) {
        metrics.recordCheckpointPhases(writeBackNanos, memtableFlushNanos, rocksDbSyncNanos);
    }

    /** The switch of the state's current wrapper (a re-registration may replace it). */
    private CacheSwitch cacheSwitch(String stateName) {
        Registration r = registrations.get(stateName);
        return r == null ? CacheSwitch.NEVER : r.cacheSwitch;
    }

    /** Task thread: publishes a new snapshot of the statistics to the metrics. */
    private void refreshStats() {
        if (!released) {
            metrics.refresh(cache, maps, this::cachedStates, nextStateId);
        }
    }

    private Iterator<CachedState> cachedStates() {
        return registrations.values().stream().map(r -> r.state).iterator();
    }

    private void drain() {
        try {
            writer.drain(cache);
        } catch (RocksDBException e) {
            throw new FlinkRuntimeException(
                    "[FALCON] writing cached state back to RocksDB failed", e);
        }
    }

    // --- CacheFlushHook ---

    /**
     * Before every snapshot (and whole-backend scan): evicts down to the current budget quota (it
     * may have shrunk when subtasks joined the slot) and writes every dirty entry back. How long
     * that took and how many bytes it wrote are the {@code flushDurationMs}/{@code flushedBytes}
     * metrics; the dirty-byte cap bounds both.
     */
    @Override
    public void flushAll() {
        if (released || registrations.isEmpty()) {
            return;
        }
        long start = System.nanoTime();
        long bytesBefore = writer.bytesWritten();
        afterFlush(cache.shrinkToQuota());
        afterFlush(cache.flush(-1));
        closeIterators();
        long nanos = System.nanoTime() - start;
        long bytes = writer.bytesWritten() - bytesBefore;
        metrics.recordFlush(nanos, bytes);
        measureWriteBack(bytes, nanos);
        refreshStats();
    }

    /** The states' reused RocksDB iterators pin nothing across a flush point. */
    private void closeIterators() {
        for (Registration r : registrations.values()) {
            r.state.closeIterators();
        }
    }

    /** Nanoseconds the last {@link #flushAll()} took. */
    public long lastFlushNanos() {
        return metrics.lastFlushNanos();
    }

    /** Write-back bytes (records with their headers) of the last {@link #flushAll()}. */
    public long lastFlushBytes() {
        return metrics.lastFlushBytes();
    }

    /** The cache's quota now ({@link CacheQuota#NONE} once released). */
    public CacheQuota quota() {
        return released ? CacheQuota.NONE : cache.quota();
    }

    @Override
    public void flushState(String stateName) {
        Registration r = registrations.get(stateName);
        if (r != null) {
            flushStateId(r.stateId);
        }
    }

    /** Writes back the dirty entries of one cached state. */
    void flushStateId(int stateId) {
        if (!released) {
            afterFlush(cache.flush(stateId));
        }
    }

    @Override
    public void flushAndDropState(String stateName) {
        Registration r = registrations.get(stateName);
        if (r != null) {
            flushAndDropStateId(r.stateId);
        }
    }

    /** Writes one state's dirty entries back and drops all its entries from the cache. */
    void flushAndDropStateId(int stateId) {
        if (released) {
            return;
        }
        afterFlush(cache.flush(stateId));
        cache.dropState(stateId);
        // Tells the slot's budget what the cache holds now, so a share freed here is lent.
        afterFlush(cache.shrinkToQuota());
        closeIterators();
    }

    @Override
    public void release() {
        if (released) {
            return;
        }
        released = true;
        closeIterators(); // before RocksDB closes
        rocksDb.deregisterKeySelectionListener(keyBuilder);
        cache.close(); // frees the budget lease it owns: the slot's other quotas grow
        writer.close();
        if (budget != null) {
            budget.close();
        }
    }

    /** True once {@link #release()} ran: the native cache and the budget lease are freed. */
    public boolean isReleased() {
        return released && cache.isClosed();
    }

    // --- accessors for the states and tests ---

    NativeHotStateCache cache() {
        return cache;
    }

    CacheKeyBuilder<K> keyBuilder() {
        return keyBuilder;
    }

    /** The cache settings this cache was made with. */
    public CacheSettings settings() {
        return settings;
    }

    NativeMapCache maps() {
        return maps;
    }

    /** Statistics of one cached state ({@link CacheStats#EMPTY} if not cached or released). */
    public CacheStats stats(String stateName) {
        Registration r = registrations.get(stateName);
        return r != null && !released ? cache.stats(r.stateId) : CacheStats.EMPTY;
    }

    /** Map statistics of one cached MapState ({@link MapCacheStats#EMPTY} if none). */
    public MapCacheStats mapStats(String stateName) {
        Registration r = registrations.get(stateName);
        return r != null && r.state.isMap() && !released
                ? maps.stats(r.stateId)
                : MapCacheStats.EMPTY;
    }

    /** Adds of a cached ListState merged into RocksDB (its list not cached); 0 for others. */
    long mergedAdds(String stateName) {
        Registration r = registrations.get(stateName);
        return r == null ? 0 : r.column.merges();
    }

    /** Statistics of the whole cache ({@link CacheStats#EMPTY} once released). */
    public CacheStats totalStats() {
        return released ? CacheStats.EMPTY : cache.stats(-1);
    }

    /** Nanoseconds the last snapshot spent flushing hash memtables (after its write-back). */
    public long lastCheckpointMemtableFlushNanos() {
        return metrics.lastMemtableFlushNanos();
    }

    /** Nanoseconds of the last snapshot's RocksDB synchronous part. */
    public long lastCheckpointRocksDbSyncNanos() {
        return metrics.lastRocksDbSyncNanos();
    }

    /** Bytes written back ahead of the last checkpoint barrier (by the pacer). */
    public long lastPreBarrierBytes() {
        return metrics.lastPreBarrierBytes();
    }

    /** The dirty-byte cap now (0: none). */
    public long dirtyCapBytes() {
        return dirtyCap.capBytes();
    }

    public long recordsWrittenBack() {
        return writer.recordsWritten();
    }

    public long bytesWrittenBack() {
        return writer.bytesWritten();
    }

    /** Times the state's cache switched itself off (0 for a state that is not cached). */
    public long cacheSwitchedOff(String stateName) {
        return cacheSwitch(stateName).switches();
    }

    /** Operations of the state that went to RocksDB past its cache (about: see CacheSwitch). */
    public long directOperations(String stateName) {
        return cacheSwitch(stateName).directOperations();
    }

    /** Names of the cached states (a snapshot). */
    public List<String> cachedStateNames() {
        return new ArrayList<>(registrations.keySet());
    }

    public boolean isCached(String stateName) {
        return registrations.containsKey(stateName);
    }
}
