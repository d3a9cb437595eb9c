/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.timers;

/** {@link HeldTimersPriorityQueueTest} with 3 elements held at most: queues step aside mid-way. */
public class HeldTimersSteppingAsidePriorityQueueTest extends HeldTimersPriorityQueueTest {

    @Override
    protected int capacity() {
        return 3;
    }
}
