package io.falconstate.nexmark;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Collections;

import static org.assertj.core.api.Assertions.assertThat;

/** The median of the checkpoints' synchronous phases. */
class CheckpointSummaryTest {

    @Test
    void medianOfOddAndEvenCountsAndOfNone() {
        assertThat(CheckpointSummary.median(Arrays.asList(300L, 10L, 20L))).isEqualTo(20);
        assertThat(CheckpointSummary.median(Arrays.asList(40L, 10L, 30L, 20L))).isEqualTo(25);
        assertThat(CheckpointSummary.median(Collections.singletonList(7L))).isEqualTo(7);
        assertThat(CheckpointSummary.median(Collections.emptyList())).isEqualTo(-1);
    }
}
