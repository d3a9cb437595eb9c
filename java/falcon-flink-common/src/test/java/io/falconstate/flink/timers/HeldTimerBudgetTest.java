/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.timers;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The JVM-wide bound on held timers: a tenth of the heap, reserved in chunks. */
class HeldTimerBudgetTest {

    @Test
    void chunksAreRefusedAtATenthOfTheHeapAndGrantedAgainAfterARelease() {
        long limit = HeldTimerBudget.limit();
        assertThat(limit)
                .isEqualTo(Runtime.getRuntime().maxMemory() / 10 / HeldTimerBudget.BYTES_PER_TIMER);
        long chunks = 0;
        try {
            while (HeldTimerBudget.reserveChunk()) {
                chunks++;
                assertThat(chunks * HeldTimerBudget.CHUNK).isLessThanOrEqualTo(limit);
            }
            assertThat(HeldTimerBudget.reserveChunk()).isFalse();
            HeldTimerBudget.release(HeldTimerBudget.CHUNK);
            assertThat(HeldTimerBudget.reserveChunk()).isTrue();
        } finally {
            HeldTimerBudget.release(chunks * HeldTimerBudget.CHUNK);
        }
        assertThat(chunks).isPositive();
        assertThat(HeldTimerBudget.reserveChunk()).isTrue();
        HeldTimerBudget.release(HeldTimerBudget.CHUNK);
    }
}
