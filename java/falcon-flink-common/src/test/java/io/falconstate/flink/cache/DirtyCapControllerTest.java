/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The dirty-byte cap as a target pause times the measured write-back rate. */
class DirtyCapControllerTest {

    private static final long MS = 1_000_000L;
    private static final long MIB = 1L << 20;

    @Test
    void theCeilingIsTheCapUntilAWriteBackIsMeasured() {
        DirtyCapController c = new DirtyCapController(50 * MS, 16 * MIB);
        assertThat(c.capBytes()).isEqualTo(16 * MIB);
        assertThat(c.lowWaterBytes()).isEqualTo(8 * MIB);
        assertThat(c.bytesPerMilli()).isZero();
    }

    @Test
    void capIsTheTargetPauseTimesTheRate() {
        DirtyCapController c = new DirtyCapController(50 * MS, 64 * MIB);
        // 10 MiB in 100 ms: 0.1 MiB/ms, so 50 ms hold 5 MiB.
        assertThat(c.onWriteBack(10 * MIB, 100 * MS)).isTrue();
        assertThat(c.capBytes()).isEqualTo(5 * MIB);
        assertThat(c.lowWaterBytes()).isEqualTo(5 * MIB / 2);
        assertThat(c.bytesPerMilli()).isCloseTo(0.1 * MIB, within(1e-6));
    }

    @Test
    void rateIsSmoothedOverMeasurements() {
        DirtyCapController c = new DirtyCapController(100 * MS, 0);
        c.onWriteBack(10 * MIB, 100 * MS); // 0.1 MiB/ms
        c.onWriteBack(30 * MIB, 100 * MS); // 0.3 MiB/ms: smoothed 0.2
        assertThat(c.capBytes()).isEqualTo(20 * MIB);
        assertThat(c.onWriteBack(20 * MIB, 100 * MS)).as("same rate, same cap").isFalse();
    }

    @Test
    void staysBetweenTheFloorAndTheCeiling() {
        DirtyCapController slow = new DirtyCapController(10 * MS, 16 * MIB);
        slow.onWriteBack(2 * MIB, 1000 * MS); // 10 ms of this rate: 20 KiB
        assertThat(slow.capBytes()).isEqualTo(DirtyCapController.MIN_CAP_BYTES);

        DirtyCapController fast = new DirtyCapController(1000 * MS, 16 * MIB);
        fast.onWriteBack(100 * MIB, 10 * MS);
        assertThat(fast.capBytes()).isEqualTo(16 * MIB);

        DirtyCapController tinyCeiling = new DirtyCapController(1000 * MS, 256 * 1024);
        tinyCeiling.onWriteBack(2 * MIB, 1000 * MS);
        assertThat(tinyCeiling.capBytes())
                .as("a ceiling below the floor wins")
                .isEqualTo(256 * 1024);
    }

    @Test
    void smallWriteBacksAndNoTargetLeaveTheCapAlone() {
        DirtyCapController c = new DirtyCapController(50 * MS, 16 * MIB);
        assertThat(c.onWriteBack(DirtyCapController.MIN_MEASURED_BYTES - 1, MS)).isFalse();
        assertThat(c.onWriteBack(10 * MIB, 0)).isFalse();
        assertThat(c.capBytes()).isEqualTo(16 * MIB);

        DirtyCapController off = new DirtyCapController(0, 16 * MIB);
        assertThat(off.onWriteBack(10 * MIB, 1000 * MS)).isFalse();
        assertThat(off.capBytes()).isEqualTo(16 * MIB);

        DirtyCapController none = new DirtyCapController(0, 0);
        assertThat(none.capBytes()).isZero();
    }

    @Test
    void rejectsNegativeArguments() {
        assertThatThrownBy(() -> new DirtyCapController(-1, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DirtyCapController(0, -1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
