/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import io.falconstate.flink.log.FalconLog;
import io.falconstate.flink.nativeaccess.CacheStats;
import io.falconstate.flink.nativeaccess.MapCacheStats;

import javax.annotation.Nullable;

import java.util.Locale;
import java.util.function.Supplier;

/**
 * Whether one cached state's operations go through the cache or straight to Flink's own RocksDB
 * state, decided from what the cache did for the state (docs/cache.md, "Self-switching").
 *
 * <p>Every operation of the state calls {@link #direct()}: one counter decrement and a branch.
 * Every {@link #window} operations of a cached state, the change in the state's native statistics
 * decides: a state whose reads hit less than {@code threshold}, or more than three quarters of
 * whose operations the cache could not hold (maps over the cap, values over the quota), for {@link
 * #ENTER_WINDOWS} windows in a row is switched to RocksDB. Its cache entries are written back and
 * dropped first, so RocksDB holds the truth and nothing stays behind to go stale. After {@link
 * #probeInterval} operations (doubled for each failed try, up to 64x) the state is cached again for
 * a trial: the first trial window warms the cache, the second decides. A state that warmed up stays
 * cached; one that passes a trial and goes low again before a full window passes counts as a failed
 * trial. Trial windows are a quarter of a normal one: a trial of a state that still does not pay
 * costs what its misses cost (for a MapState of large maps, a seek and a scan of up to the map cap
 * per miss, which also thrashes the block cache), so it is kept short; a trial that is cut short
 * errs towards RocksDB, the stock behaviour (docs/decisions/0015).
 *
 * <p>Each change is one {@code [FALCON]} line ({@link FalconLog#cacheSwitchedOff}, {@link
 * FalconLog#cacheSwitchedOn}) and shows in the state's {@code cacheOn}, {@code cacheSwitchedOff}
 * and {@code bypassed} metrics.
 *
 * <p>Not thread-safe: the task thread. Metric readers only read the volatile mirrors.
 */
final class CacheSwitch {

    /** Low windows in a row before a cached state goes to RocksDB. */
    static final int ENTER_WINDOWS = 2;

    /** A trial window is this fraction of {@link #window}. */
    static final int TRIAL_WINDOW_DIVISOR = 4;

    /** Longest wait between trials, as a multiple of the probe interval. */
    static final int MAX_PROBE_MULTIPLIER = 64;

    /**
     * A window with fewer reads than this share of its operations is write-mostly: the cache
     * absorbs the writes (coalescing them until write-back), so it pays whatever the hit ratio.
     */
    private static final int MIN_READ_SHARE_DIVISOR = 8;

    /**
     * A window more than this share of whose operations the cache could not hold (in quarters) is
     * low: such an operation costs the stock operation plus a cache lookup (a few percent of a
     * RocksDB read), while a hit saves most of one, so a state whose other operations hit pays for
     * up to three not-cacheable operations per cacheable one.
     */
    private static final int NOT_CACHEABLE_QUARTERS = 3;

    /** A switch that never leaves the cache (metrics of a state without one). */
    static final CacheSwitch NEVER = new CacheSwitch("", 0.0, 1, 1, () -> null, () -> {});

    private final String description;
    private final double threshold;
    private final int window;
    private final int trialWindow;
    private final long probeInterval;
    private final Supplier<Window> windowSource;
    private final Runnable dropCachedEntries;

    private long opsLeft;

    /** Operations of the window being counted: {@link #window} or {@link #trialWindow}. */
    private int currentWindow;

    private boolean direct;
    private boolean trial;

    /**
     * Back from a passed trial, before its first full window that is not low. A state that leaves
     * again in that time counts as a failed trial: a trial window is short, and a state whose
     * operations come in runs (a mini-batch aggregate's keys, one after another) can pass one by
     * chance and fail every full window after it.
     */
    private boolean probation;

    private int lowWindows;
    private int probeMultiplier = 1;

    /** Counters at the end of the last window; null during a warm-up window. */
    private Window baseline;

    private long directOps;
    private volatile long directOpsMirror;
    private volatile boolean cacheOnMirror = true;
    private volatile long switchesMirror;

    /**
     * @param description the state as the log lines name it: {@code <name>, VALUE} or {@code
     *     <name>, MAP}
     * @param threshold hit ratio below which a window is low; {@code <= 0}: never switch
     * @param window operations per decision window
     * @param probeInterval operations a state stays on RocksDB before its first trial
     * @param windowSource the state's counters now
     * @param dropCachedEntries writes the state's dirty entries back and drops all of them
     */
    CacheSwitch(
            String description,
            double threshold,
            int window,
            long probeInterval,
            Supplier<Window> windowSource,
            Runnable dropCachedEntries) {
        this.description = description;
        this.threshold = threshold;
        this.window = window;
        this.trialWindow = Math.max(1, window / TRIAL_WINDOW_DIVISOR);
        this.currentWindow = window;
        this.probeInterval = probeInterval;
        this.windowSource = windowSource;
        this.dropCachedEntries = dropCachedEntries;
        // A new state starts cold: its first window only warms the cache (no baseline yet).
        this.opsLeft = threshold > 0 ? window : Long.MAX_VALUE;
    }

    /** What the cache did for a state so far: cumulative counters from its statistics. */
    static final class Window {
        final long reads;
        final long hits;
        final long notCached;

        Window(long reads, long hits, long notCached) {
            this.reads = reads;
            this.hits = hits;
            this.notCached = notCached;
        }

        /**
         * A ValueState's counters: reads are gets; hits include known-absent keys, in the cache or
         * by the written-key filter. A read the filter answers missed the cache first; it costs no
         * RocksDB read, so it is a hit and not also a miss.
         */
        static Window ofValueState(CacheStats s, @Nullable WrittenKeyFilter writtenKeys) {
            long filtered = writtenKeys == null ? 0 : writtenKeys.knownAbsentReads();
            long hits = s.hits() + s.absentHits() + filtered;
            long misses = Math.max(0, s.misses() - filtered);
            return new Window(hits + misses, hits, s.notCached());
        }

        /**
         * A ListState's counters: reads as a ValueState's; not cacheable are an add merged into
         * RocksDB because the cache did not hold its list (or the list grew past the cap), and a
         * list the cache evicted. A stock add is a merge that reads nothing, so a list cached and
         * evicted costs the cache's work and a put in place of that merge whether or not it was
         * read while cached: lists put into the cache and pushed out before their window fires (a
         * window join whose windows fire long after their rows arrive) are not coalesced writes
         * that pay. A list state whose lists leave the cache before they are read (one long list
         * per window, or more lists than the cache holds) is so sent to RocksDB, and the memory it
         * held goes back to the slot.
         */
        static Window ofListState(
                CacheStats s, @Nullable WrittenKeyFilter writtenKeys, long mergedAdds) {
            Window reads = ofValueState(s, writtenKeys);
            return new Window(
                    reads.reads, reads.hits, reads.notCached + mergedAdds + s.evictions());
        }

        /**
         * A MapState's counters. Two kinds of cache hits are not hits of the state's reads: a read
         * of a key that the partial body of a map over the cap does not hold (a "marker read"),
         * which the cache counts as a hit on a known-absent entry and as a map operation answered
         * from RocksDB (writes past the cache count in both not-cached counters, so the difference
         * is the marker reads); and a read that missed asks again once its map is loaded, a hit for
         * every load. A miss the written-key filter answered (the map loaded empty without RocksDB)
         * is a hit; so is a key a partial body holds.
         *
         * <p>Every operation answered from RocksDB (marker reads, writes past the cache) is not
         * cacheable, and marker reads are left out of the reads the hit ratio is taken over: one
         * costs what the stock read costs (a RocksDB get of the bytes the lookup serialized), so it
         * says nothing about whether caching the other maps pays. A state with a few busy maps over
         * the cap is judged by its other maps and by the keys their partial bodies hold.
         *
         * <p>A miss is weighed by what it loads: one for the seek, and one more for every {@link
         * WrittenKeyFilter#STEPS_BEFORE_SEEK} entries its scan read, where the stock read was one
         * point get. A state that hits often but loads long maps on each miss costs more than it
         * saves; maps the written-key filter loads empty weigh nothing more (docs/decisions/0015).
         */
        static Window ofMapState(
                CacheStats s, MapCacheStats m, @Nullable WrittenKeyFilter writtenMaps) {
            long filtered = writtenMaps == null ? 0 : writtenMaps.knownAbsentReads();
            long markerReads = Math.max(0, m.notCachedOps() - s.notCached());
            long hits = Math.max(0, s.hits() + s.absentHits() - markerReads - m.loads()) + filtered;
            long misses =
                    Math.max(0, s.misses() - filtered)
                            + m.loadedEntries() / WrittenKeyFilter.STEPS_BEFORE_SEEK;
            return new Window(hits + misses, hits, m.notCachedOps());
        }
    }

    /**
     * Counts one operation; true when it goes to RocksDB directly. The decision runs out of line
     * once per window (or per probe interval while direct).
     */
    boolean direct() {
        if (--opsLeft <= 0) {
            decide();
        }
        if (direct && (++directOps & 0xFFFF) == 0) {
            directOpsMirror = directOps;
        }
        return direct;
    }

    private void decide() {
        if (direct) {
            // A trial: cached again; its first window warms the cache, the second decides.
            direct = false;
            trial = true;
            currentWindow = trialWindow;
            opsLeft = trialWindow;
            baseline = null;
            directOpsMirror = directOps;
            cacheOnMirror = true;
            return;
        }
        int counted = currentWindow;
        opsLeft = currentWindow;
        Window now = windowSource.get();
        Window before = baseline;
        baseline = now;
        if (before == null) {
            return;
        }
        long reads = now.reads - before.reads;
        long hits = now.hits - before.hits;
        String reason = lowReason(counted, reads, hits, now.notCached - before.notCached);
        if (reason == null) {
            lowWindows = 0;
            if (trial) {
                trial = false;
                probation = true;
                currentWindow = window;
                opsLeft = window;
                FalconLog.cacheSwitchedOn(description, ratio(hits, reads), reads);
            } else if (probation) {
                probation = false;
                probeMultiplier = 1;
            }
            return;
        }
        if (!trial && ++lowWindows < ENTER_WINDOWS) {
            return;
        }
        if (trial || probation) {
            probeMultiplier = Math.min(probeMultiplier * 2, MAX_PROBE_MULTIPLIER);
        }
        trial = false;
        probation = false;
        currentWindow = window;
        lowWindows = 0;
        dropCachedEntries.run();
        direct = true;
        baseline = null;
        long wait = probeInterval * probeMultiplier;
        opsLeft = wait;
        switchesMirror++;
        cacheOnMirror = false;
        FalconLog.cacheSwitchedOff(description, reason, wait);
    }

    /** Why a window of {@code ops} operations shows the cache does not pay, or null. */
    private String lowReason(int ops, long reads, long hits, long notCached) {
        if (notCached * 4 > (long) ops * NOT_CACHEABLE_QUARTERS) {
            return notCached
                    + " of "
                    + ops
                    + " operations were not cacheable (maps over the cap, values over the quota, adds to"
                    + " lists not cached, lists evicted)";
        }
        if (reads * MIN_READ_SHARE_DIVISOR < ops) {
            return null;
        }
        double ratio = ratio(hits, reads);
        return ratio < threshold
                ? String.format(Locale.ROOT, "hit ratio %.2f over %d reads", ratio, reads)
                : null;
    }

    private static double ratio(long hits, long reads) {
        return reads == 0 ? 0.0 : (double) hits / reads;
    }

    /** True while the state's operations go to RocksDB (metric threads may read it). */
    boolean isDirect() {
        return !cacheOnMirror;
    }

    /** Operations that went to RocksDB directly, as of the last change (metric threads). */
    long directOperations() {
        return directOpsMirror;
    }

    /** Times the state went to RocksDB (metric threads). */
    long switches() {
        return switchesMirror;
    }
}
