/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The pacer's plan, driven by a clock of the test's own. */
class BarrierPacerTest {

    private static final long SECOND = 1_000_000_000L;
    private static final long TICK = SECOND / 100;

    /** Ticks every {@link #TICK} from {@code from} until {@code to}; their results. */
    private static List<Integer> tick(BarrierPacer pacer, long from, long to) {
        List<Integer> actions = new ArrayList<>();
        for (long t = from; t < to; t += TICK) {
            actions.add(pacer.onTick(t, () -> 10_000));
        }
        return actions;
    }

    private static long count(List<Integer> actions, int action) {
        return actions.stream().filter(a -> a == action).count();
    }

    @Test
    void learnsTheIntervalThenSlicesInTheWindowAndFinishesBeforeTheBarrier() {
        BarrierPacer pacer = new BarrierPacer(0.2, SECOND, 0, 0);
        // No interval known: nothing before and after the first barrier.
        assertThat(tick(pacer, 0, 3 * SECOND)).containsOnly(0);
        pacer.onBarrier(3 * SECOND, false);
        assertThat(tick(pacer, 3 * SECOND, 13 * SECOND)).containsOnly(0);
        pacer.onBarrier(13 * SECOND, false);
        assertThat(pacer.intervalNanos()).isEqualTo(10 * SECOND);
        // Before the window (the last 2 s of the expected 10): nothing.
        assertThat(tick(pacer, 13 * SECOND, 21 * SECOND)).containsOnly(0);
        // In the window: slices until 1 s before the barrier, one FINISH, then nothing.
        List<Integer> window = tick(pacer, 21 * SECOND, 24 * SECOND);
        int finish = window.indexOf(BarrierPacer.FINISH);
        assertThat(finish).isEqualTo(100); // 1 s of ticks at 100 per second
        assertThat(window.subList(0, finish)).allMatch(n -> n >= BarrierPacer.MIN_SLICE);
        // 10,000 dirty entries over the 100 ticks the rate so far (801 in 8 s) promises, twice
        // the even share.
        assertThat(window.get(0)).isEqualTo((int) (2 * 10_000 / (1 * 801 / 8.0) + 1));
        assertThat(window.subList(finish + 1, window.size())).containsOnly(0);
        // A barrier is expected: the backend writes its held timers back with the FINISH.
        assertThat(pacer.provisional()).isFalse();
    }

    @Test
    void aConfiguredIntervalPacesProvisionalRoundsBeforeTheFirstBarrier() {
        BarrierPacer pacer = new BarrierPacer(0.2, SECOND, 10 * SECOND, 0);
        assertThat(pacer.provisional()).isTrue();
        // Rounds of 2 s: slices over the last 1.5 s of each, then FINISH.
        List<Integer> first = tick(pacer, 0, 6 * SECOND + TICK / 2);
        assertThat(count(first, BarrierPacer.FINISH)).isEqualTo(3);
        assertThat(first.subList(0, 50)).containsOnly(0);
        assertThat(first.get(51)).isGreaterThanOrEqualTo(BarrierPacer.MIN_SLICE);
        // The first barrier: from now on a real round with the configured interval.
        pacer.onBarrier(6 * SECOND, false);
        assertThat(pacer.provisional()).isFalse();
        List<Integer> round = tick(pacer, 6 * SECOND, 16 * SECOND);
        assertThat(round.subList(0, 800)).containsOnly(0);
        assertThat(count(round, BarrierPacer.FINISH)).isEqualTo(1);
        assertThat(round.indexOf(BarrierPacer.FINISH)).isEqualTo(900);
    }

    @Test
    void aLateBarrierFallsBackToProvisionalRoundsAndAnEarlyOneReplans() {
        BarrierPacer pacer = new BarrierPacer(0.2, SECOND, 0, 0);
        pacer.onBarrier(0, false);
        tick(pacer, 0, 10 * SECOND);
        pacer.onBarrier(10 * SECOND, false);
        List<Integer> late = tick(pacer, 10 * SECOND, 26 * SECOND + TICK / 2);
        // FINISH before the expected barrier at 20 s; none until the window closes at 22 s; then
        // provisional rounds of 2 s (22-24, 24-26).
        assertThat(late.indexOf(BarrierPacer.FINISH)).isEqualTo(900);
        assertThat(count(late, BarrierPacer.FINISH)).isEqualTo(3);
        assertThat(pacer.provisional()).isTrue();
        // An early barrier replans from its own time with the interval it measured.
        pacer.onBarrier(27 * SECOND, false);
        assertThat(pacer.intervalNanos()).isEqualTo(17 * SECOND);
        assertThat(pacer.provisional()).isFalse();
        assertThat(pacer.pacing()).isTrue();
    }

    @Test
    void aFlushStillRunningAtTheBarrierMovesTheFinishEarlier() {
        BarrierPacer pacer = new BarrierPacer(0.2, SECOND, 10 * SECOND, 0);
        pacer.onBarrier(0, false);
        tick(pacer, 0, 10 * SECOND);
        // The round finished 1 s before the barrier, and RocksDB was still flushing at it.
        pacer.onBarrier(10 * SECOND, true);
        assertThat(pacer.finishShare()).isEqualTo(BarrierPacer.MAX_FINISH_SHARE);
        assertThat(tick(pacer, 10 * SECOND, 20 * SECOND).indexOf(BarrierPacer.FINISH))
                .isEqualTo(850); // 1.5 s before the expected barrier
        pacer.onBarrier(20 * SECOND, true);
        assertThat(pacer.finishShare()).isEqualTo(BarrierPacer.MAX_FINISH_SHARE);
        tick(pacer, 20 * SECOND, 30 * SECOND);
        pacer.onBarrier(30 * SECOND, false);
        assertThat(pacer.finishShare()).isEqualTo(0.75 * 0.97);
        // Quiet barriers move it back, slowly, down to a quarter of the lead.
        for (int i = 3; i < 60; i++) {
            tick(pacer, i * 10 * SECOND, (i + 1) * 10 * SECOND);
            pacer.onBarrier((i + 1) * 10 * SECOND, false);
        }
        assertThat(pacer.finishShare()).isEqualTo(BarrierPacer.MIN_FINISH_SHARE);
        // A provisional round's FINISH does not count.
        BarrierPacer provisional = new BarrierPacer(0.2, SECOND, 10 * SECOND, 0);
        tick(provisional, 0, 5 * SECOND);
        provisional.onBarrier(5 * SECOND, true);
        assertThat(provisional.finishShare()).isEqualTo(BarrierPacer.INITIAL_FINISH_SHARE);
    }

    @Test
    void shortIntervalsAndLeadZeroAreNotPaced() {
        BarrierPacer shortInterval = new BarrierPacer(0.2, SECOND, SECOND / 5, 0);
        assertThat(tick(shortInterval, 0, 3 * SECOND)).containsOnly(0);
        shortInterval.onBarrier(3 * SECOND, false);
        shortInterval.onBarrier(3 * SECOND + SECOND / 2, false);
        assertThat(shortInterval.pacing()).isFalse();
        assertThat(tick(shortInterval, 4 * SECOND, 8 * SECOND)).containsOnly(0);

        BarrierPacer off = new BarrierPacer(0, SECOND, 10 * SECOND, 0);
        assertThat(tick(off, 0, 10 * SECOND)).containsOnly(0);
        off.onBarrier(10 * SECOND, false);
        assertThat(tick(off, 10 * SECOND, 21 * SECOND)).containsOnly(0);

        assertThatThrownBy(() -> new BarrierPacer(1.0, SECOND, 0, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
