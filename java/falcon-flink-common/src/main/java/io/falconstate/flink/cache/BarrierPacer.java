/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import java.util.function.LongSupplier;

/**
 * Decides when the cache writes back ahead of the next checkpoint barrier, so that the barrier
 * finds little dirty state and small memtables (docs/decisions/0025-pre-barrier-write-back.md).
 *
 * <p>Barriers arrive at a steady rhythm: the next one is expected one interval after the last, the
 * interval being the last one observed, else the configured checkpoint interval. A window opens
 * {@code lead} (a fraction of the interval) before the expected barrier. Inside it, each tick
 * (every {@link #TICK_WRITES} cache writes) writes back one slice, sized from the tick rate so that
 * the dirty entries are gone by the finish point; then the rest is written back at once ({@link
 * #FINISH}) and the memtables of the cached states start flushing without waiting. The finish point
 * starts half the lead before the barrier; a barrier that finds a flush still running (the
 * background flush did not make it) doubles its distance, up to three quarters of the lead; each
 * barrier that finds none moves it back by 3%, so it stays about where flushes make it.
 *
 * <p>While an interval is known but no barrier can be expected -- before the first one (Flink
 * triggers it after a random delay) and when a barrier is more than a lead late -- the pacer works
 * in provisional rounds of {@code lead} x interval: slices over the last three quarters of the
 * round, then {@link #FINISH}. So an unforeseen barrier finds about one round of writes. With no
 * interval known (none configured, fewer than two barriers seen) it does nothing. The barrier
 * always writes back what is left: a wrong guess costs only the saving, never correctness.
 *
 * <p>Pure arithmetic on the times it is given (tests drive it with their own clock). Not
 * thread-safe: the task thread owns it.
 */
final class BarrierPacer {

    /** Cache writes between two looks at the clock. */
    static final int TICK_WRITES = 256;

    /** {@link #onTick} result: nothing to do. */
    static final int NOTHING = 0;

    /** {@link #onTick} result: write back every dirty entry, then start the memtable flushes. */
    static final int FINISH = -1;

    /** The finish point, as a share of the lead before the expected barrier: its bounds. */
    static final double MIN_FINISH_SHARE = 0.25;

    static final double MAX_FINISH_SHARE = 0.75;

    static final double INITIAL_FINISH_SHARE = 0.5;

    /** Smallest slice worth a native call. */
    static final int MIN_SLICE = 64;

    private final double leadFraction;
    private final long minIntervalNanos;

    /** The configured checkpoint interval; 0 if not known. */
    private final long configuredIntervalNanos;

    private long lastBarrier = -1;
    private long observedIntervalNanos;

    // The current round: from roundStart, slices between windowOpen and finishAt, then FINISH;
    // windowClose ends a round that expects a real barrier.
    private long roundStart;
    private long ticksInRound;
    private long windowOpen = Long.MAX_VALUE;
    private long finishAt;
    private long windowClose;
    private boolean provisional;
    private boolean opened;
    private boolean finished;
    private int slice;

    /** Where the finish point is, as a share of the lead before the expected barrier. */
    private double finishShare = INITIAL_FINISH_SHARE;

    /**
     * @param leadFraction how long before the expected barrier the window opens, as a fraction of
     *     the interval (0 turns it off)
     * @param minIntervalNanos intervals shorter than this are not paced (the barrier's own flush is
     *     short anyway)
     * @param configuredIntervalNanos the job's checkpoint interval if configured, else 0
     * @param startNanos when the backend started (the first provisional round begins)
     */
    BarrierPacer(
            double leadFraction,
            long minIntervalNanos,
            long configuredIntervalNanos,
            long startNanos) {
        if (!(leadFraction >= 0 && leadFraction < 1)) {
            throw new IllegalArgumentException("lead fraction must be in [0, 1): " + leadFraction);
        }
        this.leadFraction = leadFraction;
        this.minIntervalNanos = minIntervalNanos;
        this.configuredIntervalNanos = Math.max(0, configuredIntervalNanos);
        planProvisional(startNanos);
    }

    /** The interval the next barrier is expected after: observed, configured, or 0. */
    long intervalNanos() {
        return observedIntervalNanos > 0 ? observedIntervalNanos : configuredIntervalNanos;
    }

    /**
     * A checkpoint barrier reached the backend at {@code now}: learn the rhythm, plan the next.
     * {@code flushRunning}: RocksDB was still flushing when the barrier came (if this round started
     * a flush ahead, it started too late).
     */
    void onBarrier(long now, boolean flushRunning) {
        if (!provisional && finished) {
            finishShare =
                    flushRunning
                            ? Math.min(MAX_FINISH_SHARE, finishShare * 2)
                            : Math.max(MIN_FINISH_SHARE, finishShare * 0.97);
        }
        if (lastBarrier >= 0) {
            observedIntervalNanos = now - lastBarrier;
        }
        lastBarrier = now;
        long interval = intervalNanos();
        if (interval == 0) {
            planProvisional(now);
            return;
        }
        startRound(now, false);
        if (leadFraction == 0 || interval < minIntervalNanos) {
            windowOpen = Long.MAX_VALUE;
            return;
        }
        long lead = (long) (interval * leadFraction);
        long expected = now + interval;
        windowOpen = expected - lead;
        finishAt = expected - (long) (lead * finishShare);
        windowClose = expected + lead;
    }

    /** A provisional round from {@code now}: slices over its last 3/4, FINISH at its end. */
    private void planProvisional(long now) {
        startRound(now, true);
        long interval = intervalNanos();
        if (leadFraction == 0 || interval == 0 || interval < minIntervalNanos) {
            windowOpen = Long.MAX_VALUE;
            return;
        }
        long round = (long) (interval * leadFraction);
        windowOpen = now + round / 4;
        finishAt = now + round;
        windowClose = Long.MAX_VALUE;
    }

    private void startRound(long now, boolean provisionalRound) {
        roundStart = now;
        ticksInRound = 0;
        provisional = provisionalRound;
        opened = false;
        finished = false;
    }

    /**
     * A tick at {@code now}. Returns {@link #NOTHING}, {@link #FINISH}, or the number of dirty
     * entries to write back now; {@code dirtyEntries} is asked once per window.
     */
    int onTick(long now, LongSupplier dirtyEntries) {
        ticksInRound++;
        if (now < windowOpen) {
            return NOTHING;
        }
        if (!finished && now >= finishAt) {
            if (provisional) {
                planProvisional(finishAt); // the next round follows at once
            } else {
                finished = true;
            }
            return FINISH;
        }
        if (finished) {
            if (now >= windowClose) {
                // The expected barrier did not come: back to provisional rounds.
                planProvisional(windowClose);
            }
            return NOTHING;
        }
        if (!opened) {
            opened = true;
            // Ticks expected until finishAt, at this round's tick rate so far.
            double ticksPerNano = (double) ticksInRound / Math.max(1, now - roundStart);
            double ticksLeft = Math.max(1, (finishAt - now) * ticksPerNano);
            long dirty = dirtyEntries.getAsLong();
            // Twice the even share: entries dirtied during the window need slices too.
            slice =
                    (int)
                            Math.min(
                                    Integer.MAX_VALUE,
                                    Math.max(MIN_SLICE, 2 * dirty / ticksLeft + 1));
        }
        return slice;
    }

    /** True while a window is planned and not finished. */
    boolean pacing() {
        return windowOpen != Long.MAX_VALUE && !finished;
    }

    /** The finish point's share of the lead before the expected barrier. */
    double finishShare() {
        return finishShare;
    }

    /** True while no barrier can be expected (provisional rounds). */
    boolean provisional() {
        return provisional;
    }
}
