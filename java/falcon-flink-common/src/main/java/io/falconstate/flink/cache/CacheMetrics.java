/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import io.falconstate.flink.nativeaccess.CacheStats;
import io.falconstate.flink.nativeaccess.MapCacheStats;
import io.falconstate.flink.nativeaccess.NativeHotStateCache;
import io.falconstate.flink.nativeaccess.NativeMapCache;

import org.apache.flink.metrics.MetricGroup;

import javax.annotation.Nullable;

import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The Flink metrics of one subtask's hot-state cache ({@code <operator>.falcon.cache.*} and {@code
 * <operator>.falcon.cache.<state>.*}; docs/configuration.md lists them).
 *
 * <p>Gauges are read by the metric reporter's thread, but the native cache belongs to the task
 * thread. So a gauge never calls into the cache: it reads the last published snapshot and asks for
 * a fresh one ({@link #wanted()}); the task thread publishes at its next write and at every flush
 * (every snapshot). All fields a gauge reads are volatile; only the task thread writes them.
 */
final class CacheMetrics {

    /** Where the gauges go; null: no metrics (unit tests, or no metric group given). */
    @Nullable private final MetricGroup group;

    private volatile boolean wanted;
    private volatile CacheStats[] stateStats = new CacheStats[0];
    private volatile MapCacheStats[] mapStats = new MapCacheStats[0];
    private volatile CacheStats total = CacheStats.EMPTY;
    private volatile long quotaBytes;
    private volatile long lastFlushNanos;
    private volatile long lastFlushBytes;
    private volatile long flushCount;
    private volatile long lastPreBarrierBytes;
    private volatile long dirtyCapBytes;
    private volatile long checkpointMemtableFlushNanos;
    private volatile long checkpointRocksDbSyncNanos;

    // Totals since start, for averages over many checkpoints (benchmark reports).
    private volatile long timedCheckpoints;
    private volatile long checkpointWriteBackNanosTotal;
    private volatile long checkpointMemtableFlushNanosTotal;
    private volatile long checkpointRocksDbSyncNanosTotal;
    private volatile long preBarrierBytesTotal;

    /** Task thread only: bytes written back ahead of the next barrier. */
    private long preBarrierBytes;

    /** Registers the cache-wide gauges under {@code operatorGroup.falcon.cache}, if not null. */
    CacheMetrics(@Nullable MetricGroup operatorGroup, long quotaBytes) {
        this.quotaBytes = quotaBytes;
        this.group =
                operatorGroup == null ? null : operatorGroup.addGroup("falcon").addGroup("cache");
        if (group != null) {
            group.gauge("flushDurationMs", () -> lastFlushNanos / 1_000_000L);
            group.gauge("flushedBytes", () -> lastFlushBytes);
            group.gauge("flushes", () -> flushCount);
            group.gauge("preBarrierBytes", () -> lastPreBarrierBytes);
            group.gauge(
                    "checkpointMemtableFlushMs", () -> checkpointMemtableFlushNanos / 1_000_000L);
            group.gauge("checkpointRocksDbSyncMs", () -> checkpointRocksDbSyncNanos / 1_000_000L);
            group.gauge("timedCheckpoints", () -> timedCheckpoints);
            group.gauge("checkpointWriteBackUsTotal", () -> checkpointWriteBackNanosTotal / 1000L);
            group.gauge(
                    "checkpointMemtableFlushUsTotal",
                    () -> checkpointMemtableFlushNanosTotal / 1000L);
            group.gauge(
                    "checkpointRocksDbSyncUsTotal", () -> checkpointRocksDbSyncNanosTotal / 1000L);
            group.gauge("preBarrierBytesTotal", () -> preBarrierBytesTotal);
            group.gauge("dirtyCapBytes", () -> dirtyCapBytes);
            group.gauge("quotaBytes", () -> this.quotaBytes);
            group.gauge("entries", () -> total().entries());
            group.gauge("bytes", () -> total().bytes());
            group.gauge("allocatedBytes", () -> total().allocatedBytes());
        }
    }

    /** Gauges of a cached state, ValueState or MapState; its switch may be replaced later. */
    void registerState(String stateName, int stateId, Supplier<CacheSwitch> cacheSwitch) {
        if (group == null) {
            return;
        }
        MetricGroup g = group.addGroup(stateName);
        g.gauge("hits", () -> hits(stat(stateId)));
        g.gauge("misses", () -> stat(stateId).misses());
        g.gauge("hitRatio", () -> hitRatio(stat(stateId)));
        g.gauge("evictions", () -> stat(stateId).evictions());
        g.gauge("dirtyWriteBacks", () -> stat(stateId).dirtyWriteBacks());
        g.gauge("entries", () -> stat(stateId).entries());
        g.gauge("bytes", () -> stat(stateId).bytes());
        g.gauge("bypassed", () -> cacheSwitch.get().directOperations());
        g.gauge("cacheOn", () -> cacheSwitch.get().isDirect() ? 0 : 1);
        g.gauge("cacheSwitchedOff", () -> cacheSwitch.get().switches());
    }

    /** The map gauges of a cached MapState, next to its {@link #registerState} gauges. */
    void registerMapState(String stateName, int stateId) {
        if (group == null) {
            return;
        }
        MetricGroup g = group.addGroup(stateName);
        g.gauge("mapLoads", () -> mapStat(stateId).loads());
        g.gauge("mapLoadedEntries", () -> mapStat(stateId).loadedEntries());
        g.gauge("mapsOverCap", () -> mapStat(stateId).oversized());
        g.gauge("mapOpsNotCached", () -> mapStat(stateId).notCachedOps());
    }

    /** The gauge of reads a state's written-key filter answered without RocksDB. */
    void registerWrittenKeyFilter(String stateName, LongSupplier neverWrittenReads) {
        if (group != null) {
            group.addGroup(stateName).gauge("neverWrittenReads", neverWrittenReads::getAsLong);
        }
    }

    /** True when a gauge read a snapshot since the last {@link #publish}. */
    boolean wanted() {
        return wanted;
    }

    /**
     * Task thread: publishes a new snapshot of the statistics of {@code states} (their ids are
     * below {@code stateIdLimit}), of the whole cache, and of the cache's quota now.
     */
    void refresh(
            NativeHotStateCache cache,
            NativeMapCache maps,
            Iterable<? extends CachedState> states,
            int stateIdLimit) {
        CacheStats[] stateSnapshot = new CacheStats[stateIdLimit];
        MapCacheStats[] mapSnapshot = new MapCacheStats[stateIdLimit];
        for (CachedState state : states) {
            int id = state.stateId();
            stateSnapshot[id] = cache.stats(id);
            if (state.isMap()) {
                mapSnapshot[id] = maps.stats(id);
            }
        }
        wanted = false;
        this.quotaBytes = cache.quota().bytes();
        this.total = cache.stats(-1);
        this.stateStats = stateSnapshot;
        this.mapStats = mapSnapshot;
    }

    /** Task thread: a write-back ahead of the next barrier wrote {@code bytes}. */
    void setDirtyCap(long bytes) {
        dirtyCapBytes = bytes;
    }

    void recordPreBarrier(long bytes) {
        preBarrierBytes += bytes;
    }

    /** Task thread: a barrier arrived; what was written back ahead of it becomes the gauge. */
    void onBarrier() {
        lastPreBarrierBytes = preBarrierBytes;
        preBarrierBytesTotal += preBarrierBytes; // one writer (the task thread)
        preBarrierBytes = 0;
    }

    /** Task thread: the timed phases of a checkpoint's synchronous part. */
    void recordCheckpointPhases(
            long writeBackNanos, long memtableFlushNanos, long rocksDbSyncNanos) {
        checkpointMemtableFlushNanos = memtableFlushNanos;
        checkpointRocksDbSyncNanos = rocksDbSyncNanos;
        // One writer (the task thread): plain read-modify-write of the volatiles is safe.
        timedCheckpoints++;
        checkpointWriteBackNanosTotal += writeBackNanos;
        checkpointMemtableFlushNanosTotal += memtableFlushNanos;
        checkpointRocksDbSyncNanosTotal += rocksDbSyncNanos;
    }

    long lastMemtableFlushNanos() {
        return checkpointMemtableFlushNanos;
    }

    long lastRocksDbSyncNanos() {
        return checkpointRocksDbSyncNanos;
    }

    /** Bytes written back ahead of the last barrier. */
    long lastPreBarrierBytes() {
        return lastPreBarrierBytes;
    }

    /** Task thread: one {@code flushAll} took {@code nanos} and wrote {@code bytes} back. */
    void recordFlush(long nanos, long bytes) {
        lastFlushNanos = nanos;
        lastFlushBytes = bytes;
        flushCount++; // one writer (the task thread)
    }

    long lastFlushNanos() {
        return lastFlushNanos;
    }

    long lastFlushBytes() {
        return lastFlushBytes;
    }

    private CacheStats stat(int stateId) {
        wanted = true;
        CacheStats[] snapshot = stateStats;
        return stateId < snapshot.length && snapshot[stateId] != null
                ? snapshot[stateId]
                : CacheStats.EMPTY;
    }

    private MapCacheStats mapStat(int stateId) {
        wanted = true;
        MapCacheStats[] snapshot = mapStats;
        return stateId < snapshot.length && snapshot[stateId] != null
                ? snapshot[stateId]
                : MapCacheStats.EMPTY;
    }

    private CacheStats total() {
        wanted = true;
        return total;
    }

    private static long hits(CacheStats s) {
        return s.hits() + s.absentHits();
    }

    private static double hitRatio(CacheStats s) {
        long hits = hits(s);
        long lookups = hits + s.misses();
        return lookups == 0 ? 0.0 : (double) hits / lookups;
    }
}
