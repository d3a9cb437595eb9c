/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import io.falconstate.flink.CacheFlushHook;

import org.apache.flink.contrib.streaming.state.FalconRocksDBAccess;
import org.apache.flink.contrib.streaming.state.RocksDBKeyedStateBackend;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.state.internal.InternalMapState;
import org.apache.flink.runtime.state.internal.InternalValueState;
import org.apache.flink.util.FlinkRuntimeException;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

import javax.annotation.Nullable;

import java.util.HashMap;
import java.util.Map;

/**
 * The hot-state cache of one keyed backend (one subtask): the native cache, the shared key builder,
 * the write-back path into RocksDB, and the {@link CachedValueState}s built on them.
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
 * <p>Not thread-safe (task thread). {@link #release()} is idempotent and frees native memory
 * without writing anything back.
 */
public final class HotStateCacheManager<K> implements CacheFlushHook {

    private final RocksDBKeyedStateBackend<K> rocksDb;
    private final RocksDB db;
    private final WriteOptions writeOptions;
    private final NativeHotStateCache cache;
    private final CacheKeyBuilder<K> keyBuilder;
    private final WriteBackWriter writer;
    private final NativeMapCache maps;
    private final CacheSettings settings;
    private final ReadOptions readOptions;
    private final Map<String, CachedValueState<K, ?, ?>> states = new HashMap<>();
    private final Map<String, CachedMapState<K, ?, ?, ?>> mapStates = new HashMap<>();

    /** The state id of every cached state, ValueState or MapState, by name. */
    private final Map<String, Integer> stateIds = new HashMap<>();

    /** Each state's current switch; metric threads read it, so it is a concurrent map. */
    private final Map<String, CacheSwitch> switches =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** Per state name with a filter: its written-key filter (metric threads read it). */
    private final Map<String, WrittenKeyFilter> writtenKeyFilters =
            new java.util.concurrent.ConcurrentHashMap<>();

    private int nextStateId;
    private boolean released;

    /** This subtask's place in the slot's budget; closed after the cache. Null in unit tests. */
    @Nullable private final SubtaskCacheBudget budget;

    /** The cache's gauges, fed snapshots by the task thread. */
    private final CacheMetrics metrics;

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
        this.writeOptions = rocksDb.getWriteOptions();
        this.cache = cache;
        this.maps = new NativeMapCache(cache);
        this.readOptions = rocksDb.getReadOptions();
        this.keyBuilder =
                new CacheKeyBuilder<>(
                        rocksDb, rocksDb.getKeySerializer(), rocksDb.getKeyGroupPrefixBytes());
        rocksDb.registerKeySelectionListener(keyBuilder);
        this.writer = new WriteBackWriter(db, writeOptions);
    }

    /**
     * Wraps RocksDB's ValueState {@code stateName}. Called after RocksDB registered (or
     * re-registered) it; returns the same wrapper for the same name, refreshed.
     */
    @SuppressWarnings("unchecked")
    public <N, V> InternalValueState<K, N, V> wrap(
            String stateName, InternalValueState<K, N, V> rocksDbState, V defaultValue) {
        ColumnFamilyHandle columnFamily = FalconRocksDBAccess.columnFamily(rocksDb, stateName);
        if (columnFamily == null) {
            throw new IllegalStateException("[FALCON] no column family for state " + stateName);
        }
        CachedValueState<K, N, V> existing = (CachedValueState<K, N, V>) states.get(stateName);
        if (existing != null && existing.rocksDbState() == rocksDbState) {
            existing.refresh(columnFamily, defaultValue);
            writer.setColumnFamily(existing.stateId(), columnFamily);
            return existing;
        }
        int stateId = existing != null ? existing.stateId() : nextStateId++;
        WrittenKeyFilter writtenKeys = newWrittenKeyFilter(settings.writtenKeyFilterMaxKeys());
        CachedValueState<K, N, V> state =
                new CachedValueState<>(
                        this,
                        stateId,
                        rocksDbState,
                        columnFamily,
                        defaultValue,
                        newSwitch(
                                stateName,
                                "VALUE",
                                settings.bypassHitRatio(),
                                stateId,
                                id -> valueWindow(id, writtenKeys)),
                        writtenKeys);
        writer.setColumnFamily(stateId, columnFamily);
        writer.setWrittenKeyFilter(stateId, writtenKeys);
        putWrittenKeyFilter(stateName, writtenKeys);
        states.put(stateName, state);
        stateIds.put(stateName, stateId);
        if (existing == null) {
            metrics.registerState(stateName, stateId, () -> cacheSwitch(stateName));
            registerFilterMetric(stateName, writtenKeys);
        }
        return state;
    }

    /** A new (unbuilt) written-key filter of up to {@code maxKeys} keys, or null for 0 (off). */
    private static WrittenKeyFilter newWrittenKeyFilter(int maxKeys) {
        return maxKeys > 0 ? new WrittenKeyFilter(maxKeys) : null;
    }

    private void putWrittenKeyFilter(String stateName, WrittenKeyFilter filter) {
        if (filter != null) {
            writtenKeyFilters.put(stateName, filter);
        } else {
            writtenKeyFilters.remove(stateName);
        }
    }

    private void registerFilterMetric(String stateName, WrittenKeyFilter filter) {
        if (filter != null) {
            metrics.registerWrittenKeyFilter(stateName, () -> neverWrittenReads(stateName));
        }
    }

    /** The written-key filter of a state, or null (none, or not wrapped). */
    WrittenKeyFilter writtenKeyFilter(String stateName) {
        return writtenKeyFilters.get(stateName);
    }

    /** Misses of a state its written-key filter answered without RocksDB (metrics). */
    private long neverWrittenReads(String stateName) {
        WrittenKeyFilter filter = writtenKeyFilters.get(stateName);
        return filter == null ? 0 : filter.knownAbsentReads();
    }

    /**
     * Wraps RocksDB's MapState {@code stateName}: maps of up to {@code maxMapBytes} are cached
     * whole. Called after RocksDB registered (or re-registered) it; returns the same wrapper for
     * the same name, refreshed.
     */
    @SuppressWarnings("unchecked")
    public <N, UK, UV> InternalMapState<K, N, UK, UV> wrapMap(
            String stateName, InternalMapState<K, N, UK, UV> rocksDbState, long maxMapBytes) {
        ColumnFamilyHandle columnFamily = FalconRocksDBAccess.columnFamily(rocksDb, stateName);
        if (columnFamily == null) {
            throw new IllegalStateException("[FALCON] no column family for state " + stateName);
        }
        CachedMapState<K, N, UK, UV> existing =
                (CachedMapState<K, N, UK, UV>) mapStates.get(stateName);
        if (existing != null && existing.rocksDbState() == rocksDbState) {
            existing.refresh(columnFamily);
            writer.setColumnFamily(existing.stateId(), columnFamily);
            return existing;
        }
        int stateId = existing != null ? existing.stateId() : nextStateId++;
        WrittenKeyFilter writtenMaps = newWrittenKeyFilter(settings.writtenKeyFilterMaxMaps());
        CachedMapState<K, N, UK, UV> state =
                new CachedMapState<>(
                        this,
                        stateId,
                        rocksDbState,
                        columnFamily,
                        maxMapBytes,
                        newSwitch(
                                stateName,
                                "MAP",
                                settings.mapBypassHitRatio(),
                                stateId,
                                id -> mapWindow(id, writtenMaps)),
                        writtenMaps);
        writer.setColumnFamily(stateId, columnFamily);
        writer.setWrittenKeyFilter(stateId, writtenMaps);
        putWrittenKeyFilter(stateName, writtenMaps);
        mapStates.put(stateName, state);
        stateIds.put(stateName, stateId);
        if (existing == null) {
            metrics.registerState(stateName, stateId, () -> cacheSwitch(stateName));
            metrics.registerMapState(stateName, stateId);
            registerFilterMetric(stateName, writtenMaps);
        }
        return state;
    }

    /**
     * Keys of {@code stateName} (wrapped) must be exactly {@code keyLength} bytes, or any length
     * when it is -1: its column family has a HashLinkList memtable. Checked for every record the
     * cache writes into RocksDB (write-back or not cached).
     */
    public void requireKeyLength(String stateName, int keyLength) {
        CachedValueState<K, ?, ?> state = states.get(stateName);
        if (state != null) {
            writer.requireKeyLength(state.stateId(), stateName, keyLength);
        }
    }

    /** Throws when a key the cache writes past itself breaks the state's required length. */
    void checkKeyLength(int stateId, int keyLength) {
        writer.checkKeyLength(stateId, keyLength);
    }

    /** A state's switch between the cache and RocksDB (docs/cache.md, "Self-switching"). */
    private CacheSwitch newSwitch(
            String stateName,
            String kind,
            double threshold,
            int stateId,
            java.util.function.IntFunction<CacheSwitch.Window> counters) {
        CacheSwitch cacheSwitch =
                new CacheSwitch(
                        stateName + ", " + kind,
                        threshold,
                        settings.switchWindow(),
                        settings.switchRetryOperations(),
                        () -> counters.apply(stateId),
                        () -> flushAndDropStateId(stateId));
        switches.put(stateName, cacheSwitch);
        return cacheSwitch;
    }

    /**
     * A ValueState's counters: reads are gets; hits include known-absent keys, in the cache or by
     * the written-key filter. A read the filter answers missed the cache first; it costs no RocksDB
     * read, so it is a hit and not also a miss.
     */
    private CacheSwitch.Window valueWindow(int stateId, WrittenKeyFilter writtenKeys) {
        CacheStats s = cache.stats(stateId);
        long filtered = writtenKeys == null ? 0 : writtenKeys.knownAbsentReads();
        long hits = s.hits() + s.absentHits() + filtered;
        long misses = Math.max(0, s.misses() - filtered);
        return new CacheSwitch.Window(hits + misses, hits, s.notCached());
    }

    /**
     * A MapState's counters. Two kinds of cache hits are not hits of the state's reads: a read of a
     * map over the cap finds the cache's "oversized" marker, which the cache counts as a hit on a
     * known-absent key and as a map operation answered from RocksDB (writes to maps that are not
     * cached count in both not-cached counters, so the difference is the marker reads); and a read
     * that missed asks again once its map is loaded, a hit for every load. A miss the written-key
     * filter answered (the map loaded empty without RocksDB) is a hit.
     *
     * <p>Every operation answered from RocksDB (marker reads, writes to maps not cached) is not
     * cacheable, and marker reads are left out of the reads the hit ratio is taken over: one costs
     * what the stock read costs (a RocksDB get of the bytes the lookup serialized), so it says
     * nothing about whether caching the other maps pays. A state with a few busy maps over the cap
     * (Nexmark q16's hot channels) is judged by its other maps.
     *
     * <p>A miss is weighed by what it loads: one for the seek, and one more for every {@link
     * WrittenKeyFilter#STEPS_BEFORE_SEEK} entries its scan read, where the stock read was one point
     * get. Nexmark q7's price-keyed join state hit half of its reads at 2 M events, above the
     * threshold, while each miss loaded 55 rows of a low price: the cache cost it a quarter of its
     * throughput. Weighed, that state hits 0.12 and goes to RocksDB; the join states of q4, q9 and
     * q20 load their maps empty (the written-key filter), so their ratios do not change.
     */
    private CacheSwitch.Window mapWindow(int stateId, WrittenKeyFilter writtenMaps) {
        CacheStats s = cache.stats(stateId);
        MapCacheStats m = maps.stats(stateId);
        long filtered = writtenMaps == null ? 0 : writtenMaps.knownAbsentReads();
        long markerReads = Math.max(0, m.notCachedOps() - s.notCached());
        long hits = Math.max(0, s.hits() + s.absentHits() - markerReads - m.loads()) + filtered;
        long misses =
                Math.max(0, s.misses() - filtered)
                        + m.loadedEntries() / WrittenKeyFilter.STEPS_BEFORE_SEEK;
        return new CacheSwitch.Window(hits + misses, hits, m.notCachedOps());
    }

    /** Drains pending write-backs if {@code code} (from a cache write call) reports any. */
    void afterWrite(int code) {
        if ((code & NativeHotStateCache.WRITE_PENDING) != 0) {
            drain();
        }
        if (metrics.wanted()) {
            refreshStats();
        }
    }

    /** The switch of the state's current wrapper (a re-registration may replace it). */
    private CacheSwitch cacheSwitch(String stateName) {
        return switches.getOrDefault(stateName, CacheSwitch.NEVER);
    }

    /** Task thread: copies every cached state's statistics into a new snapshot. */
    void refreshStats() {
        if (released) {
            return;
        }
        CacheStats[] snapshot = new CacheStats[nextStateId];
        for (int stateId : stateIds.values()) {
            snapshot[stateId] = cache.stats(stateId);
        }
        MapCacheStats[] mapSnapshot = new MapCacheStats[nextStateId];
        for (CachedMapState<K, ?, ?, ?> state : mapStates.values()) {
            mapSnapshot[state.stateId()] = maps.stats(state.stateId());
        }
        metrics.publish(snapshot, mapSnapshot, cache.stats(-1), cache.quota().bytes());
    }

    private void drain() {
        try {
            writer.drain(cache);
        } catch (RocksDBException e) {
            throw new FlinkRuntimeException(
                    "[FALCON] writing cached state back to RocksDB failed", e);
        }
    }

    // -- CacheFlushHook ------------------------------------------------------------------------

    /**
     * Before every snapshot (and whole-backend scan): evicts down to the current budget quota (it
     * may have shrunk when subtasks joined the slot) and writes every dirty entry back. How long
     * that took and how many bytes it wrote are the {@code flushDurationMs}/{@code flushedBytes}
     * metrics; the dirty-byte cap bounds both.
     */
    @Override
    public void flushAll() {
        if (released || stateIds.isEmpty()) {
            return;
        }
        long start = System.nanoTime();
        long bytesBefore = writer.bytesWritten();
        afterWrite(cache.shrinkToQuota());
        afterWrite(cache.flush(-1));
        closeMapIterators();
        metrics.recordFlush(System.nanoTime() - start, writer.bytesWritten() - bytesBefore);
        refreshStats();
    }

    /** The map states' reused RocksDB iterators pin nothing across a flush point. */
    private void closeMapIterators() {
        for (CachedMapState<K, ?, ?, ?> state : mapStates.values()) {
            state.closeIterator();
        }
    }

    /** Nanoseconds the last {@link #flushAll()} took. */
    public long lastFlushNanos() {
        return metrics.lastFlushNanos();
    }

    /** Write-back bytes (records with their 12-byte headers) of the last {@link #flushAll()}. */
    public long lastFlushBytes() {
        return metrics.lastFlushBytes();
    }

    /** The cache's quota now ({@link CacheQuota#NONE} once released). */
    public CacheQuota quota() {
        return released ? CacheQuota.NONE : cache.quota();
    }

    @Override
    public void flushState(String stateName) {
        Integer stateId = stateIds.get(stateName);
        if (released || stateId == null) {
            return;
        }
        afterWrite(cache.flush(stateId));
    }

    /** Writes back the dirty entries of one cached state. */
    void flushStateId(int stateId) {
        if (!released) {
            afterWrite(cache.flush(stateId));
        }
    }

    @Override
    public void flushAndDropState(String stateName) {
        Integer stateId = stateIds.get(stateName);
        if (stateId != null) {
            flushAndDropStateId(stateId);
        }
    }

    /** Writes one state's dirty entries back and drops all its entries from the cache. */
    private void flushAndDropStateId(int stateId) {
        if (released) {
            return;
        }
        afterWrite(cache.flush(stateId));
        cache.dropState(stateId);
        closeMapIterators();
    }

    @Override
    public void release() {
        if (released) {
            return;
        }
        released = true;
        closeMapIterators(); // before RocksDB closes
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

    // -- accessors for the states and tests
    // --------------------------------------------------------

    NativeHotStateCache cache() {
        return cache;
    }

    CacheKeyBuilder<K> keyBuilder() {
        return keyBuilder;
    }

    /** Bytes of the key group in front of every stored key. */
    int keyGroupPrefixBytes() {
        return rocksDb.getKeyGroupPrefixBytes();
    }

    /** The cache settings this cache was made with. */
    public CacheSettings settings() {
        return settings;
    }

    NativeMapCache maps() {
        return maps;
    }

    ReadOptions readOptions() {
        return readOptions;
    }

    RocksDB db() {
        return db;
    }

    WriteOptions writeOptions() {
        return writeOptions;
    }

    /** Statistics of one cached state ({@link CacheStats#EMPTY} if not cached or released). */
    public CacheStats stats(String stateName) {
        Integer stateId = stateIds.get(stateName);
        return stateId != null && !released ? cache.stats(stateId) : CacheStats.EMPTY;
    }

    /** Map statistics of one cached MapState ({@link MapCacheStats#EMPTY} if none). */
    public MapCacheStats mapStats(String stateName) {
        CachedMapState<K, ?, ?, ?> state = mapStates.get(stateName);
        return state != null && !released ? maps.stats(state.stateId()) : MapCacheStats.EMPTY;
    }

    /** Statistics of the whole cache ({@link CacheStats#EMPTY} once released). */
    public CacheStats totalStats() {
        return released ? CacheStats.EMPTY : cache.stats(-1);
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

    public boolean isCached(String stateName) {
        return stateIds.containsKey(stateName);
    }
}
