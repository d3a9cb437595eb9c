/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The decisions of {@link CacheSwitch} from scripted counters: when a state leaves the cache, for
 * how long, what a trial does, and what never switches. The counters stand for the native cache's
 * statistics; the states that use a switch run against real caches in {@code
 * MapStateDifferentialTest} and {@code SelfSwitchingFalconStateBackendTest}.
 */
class CacheSwitchTest {
    private static final int WINDOW = 100;
    private static final long RETRY = 1_000;
    private static final int TRIAL_WINDOW = WINDOW / CacheSwitch.TRIAL_WINDOW_DIVISOR;

    /** Cumulative counters the switch reads at each window's end. */
    private long reads;

    private long hits;
    private long notCached;
    private int drops;
    private final List<Boolean> modes = new ArrayList<>();

    private CacheSwitch newSwitch(double threshold) {
        return new CacheSwitch(
                "s, VALUE",
                threshold,
                WINDOW,
                RETRY,
                () -> new CacheSwitch.Window(reads, hits, notCached),
                () -> drops++);
    }

    /** Runs {@code ops} operations; each read hits with the given share (reads = every op). */
    private boolean run(CacheSwitch s, long ops, double hitShare, boolean reading) {
        boolean direct = false;
        for (long i = 0; i < ops; i++) {
            direct = s.direct();
            modes.add(direct);
            if (!direct && reading) {
                reads++;
                if ((i % 100) < Math.round(hitShare * 100)) {
                    hits++;
                }
            }
        }
        return direct;
    }

    @Test
    void aStateThatHitsStaysCached() {
        CacheSwitch s = newSwitch(0.3);
        assertThat(run(s, 50 * WINDOW, 0.9, true)).isFalse();
        assertThat(s.isDirect()).isFalse();
        assertThat(s.switches()).isZero();
        assertThat(drops).isZero();
    }

    @Test
    void lowHitRatioSwitchesAfterTheWarmUpAndTwoLowWindows() {
        CacheSwitch s = newSwitch(0.3);
        // Window 1 warms up (no baseline), windows 2 and 3 are low: the switch happens at the end
        // of window 3, i.e. with the first operation of window 4.
        run(s, 3 * WINDOW - 1, 0.1, true);
        assertThat(s.isDirect()).isFalse();
        assertThat(run(s, 1, 0.1, true)).isTrue();
        assertThat(s.isDirect()).isTrue();
        assertThat(drops).as("entries written back and dropped").isEqualTo(1);
        assertThat(s.switches()).isEqualTo(1);
    }

    @Test
    void aDirectStateIsTriedAgainAndComesBackWhenItHits() {
        CacheSwitch s = newSwitch(0.3);
        run(s, 3 * WINDOW, 0.1, true);
        assertThat(s.isDirect()).isTrue();
        // RETRY operations direct (the one that switched included), then a trial.
        run(s, RETRY - 1, 0.9, true);
        assertThat(s.isDirect()).isTrue();
        assertThat(run(s, 1, 0.9, true)).isFalse();
        assertThat(s.directOperations()).isEqualTo(RETRY);
        // The trial's warm-up window, then a good window: cached for good.
        run(s, 10 * WINDOW, 0.9, true);
        assertThat(s.isDirect()).isFalse();
        assertThat(s.switches()).isEqualTo(1);
        assertThat(drops).isEqualTo(1);
    }

    @Test
    void aFailedTrialDoublesTheWait() {
        CacheSwitch s = newSwitch(0.3);
        run(s, 3 * WINDOW, 0.1, true); // off, waits RETRY
        run(s, RETRY, 0.1, true); // trial starts
        assertThat(s.isDirect()).isFalse();
        // The trial's short warm-up window and one short low window: off again at once.
        run(s, 2 * TRIAL_WINDOW - 1, 0.1, true);
        assertThat(s.isDirect()).isFalse();
        run(s, 1, 0.1, true);
        assertThat(s.isDirect()).isTrue();
        assertThat(s.switches()).isEqualTo(2);
        assertTriedAgainAfter(s, 2 * RETRY);
    }

    /**
     * A switch that just went to RocksDB (the operation that switched counts) stays there for
     * {@code wait} operations, then starts a trial.
     */
    private void assertTriedAgainAfter(CacheSwitch s, long wait) {
        run(s, wait - 1, 0.1, true);
        assertThat(s.isDirect()).as("still waiting %d operations", wait).isTrue();
        run(s, 1, 0.1, true);
        assertThat(s.isDirect()).as("tried again after %d operations", wait).isFalse();
    }

    /** A new switch that went to RocksDB, waited the first interval and passed its trial. */
    private CacheSwitch afterAPassedTrial() {
        CacheSwitch s = newSwitch(0.3);
        run(s, 3 * WINDOW, 0.1, true); // off, waits RETRY
        run(s, RETRY, 0.9, true); // trial starts
        run(s, 2 * TRIAL_WINDOW, 0.9, true); // the trial passes
        assertThat(s.isDirect()).isFalse();
        return s;
    }

    @Test
    void aStateLowAgainRightAfterAPassedTrialCountsAsAFailedTrial() {
        CacheSwitch s = afterAPassedTrial();
        run(s, 2 * WINDOW, 0.1, true); // its first two full windows are low
        assertThat(s.isDirect()).isTrue();
        assertThat(s.switches()).isEqualTo(2);
        assertTriedAgainAfter(s, 2 * RETRY);
    }

    @Test
    void aFullWindowThatPassesAfterATrialResetsTheWait() {
        CacheSwitch s = afterAPassedTrial();
        run(s, WINDOW, 0.9, true); // and a full window
        run(s, 2 * WINDOW, 0.1, true); // low later: off, a new start
        assertThat(s.isDirect()).isTrue();
        assertThat(s.switches()).isEqualTo(2);
        assertTriedAgainAfter(s, RETRY);
    }

    @Test
    void theWaitStopsGrowingAt64Times() {
        CacheSwitch s = newSwitch(0.3);
        run(s, 3 * WINDOW, 0.0, true);
        long wait = RETRY;
        for (int trial = 0; trial < 10; trial++) {
            run(s, wait, 0.0, true);
            assertThat(s.isDirect()).isFalse();
            run(s, 2 * TRIAL_WINDOW, 0.0, true);
            assertThat(s.isDirect()).isTrue();
            wait = Math.min(wait * 2, RETRY * CacheSwitch.MAX_PROBE_MULTIPLIER);
        }
        run(s, RETRY * CacheSwitch.MAX_PROBE_MULTIPLIER - 1, 0.0, true);
        assertThat(s.isDirect()).isTrue();
        run(s, 1, 0.0, true);
        assertThat(s.isDirect()).isFalse();
    }

    @Test
    void writeMostlyStatesStayCached() {
        CacheSwitch s = newSwitch(0.3);
        // No reads at all: the cache absorbs the writes, whatever the hit ratio.
        assertThat(run(s, 20 * WINDOW, 0.0, false)).isFalse();
        assertThat(s.switches()).isZero();
    }

    @Test
    void mostlyNotCacheableOperationsSwitchEvenWithHits() {
        CacheSwitch s = newSwitch(0.3);
        boolean direct = false;
        for (int i = 0; i < 3 * WINDOW + 1 && !direct; i++) {
            direct = s.direct();
            reads++;
            hits++;
            notCached++;
        }
        assertThat(direct).isTrue();
        assertThat(drops).isEqualTo(1);
    }

    @Test
    void thresholdZeroNeverSwitches() {
        CacheSwitch s = newSwitch(0.0);
        assertThat(run(s, 50 * WINDOW, 0.0, true)).isFalse();
        assertThat(s.switches()).isZero();
        assertThat(drops).isZero();
    }

    @Test
    void logLinesHaveTheDocumentedFormat() {
        assertThat(
                        io.falconstate.flink.log.FalconLog.cacheOffLine(
                                "s, VALUE", "hit ratio 0.12 over 20000 reads", 200000))
                .isEqualTo(
                        "[FALCON] <s, VALUE> cache off: hit ratio 0.12 over 20000 reads; tried"
                                + " again after 200000 operations");
        assertThat(io.falconstate.flink.log.FalconLog.cacheOnLine("m, MAP", 0.625, 19000))
                .isEqualTo("[FALCON] <m, MAP> cache on: hit ratio 0.63 over 19000 reads");
    }
}
