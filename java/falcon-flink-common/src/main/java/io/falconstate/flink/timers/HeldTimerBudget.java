/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.timers;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The JVM-wide bound on timers held on the heap by all {@link HeldTimers} queues of a TaskManager:
 * a tenth of the JVM's maximum heap, at {@value #BYTES_PER_TIMER} bytes per timer. Queues reserve
 * it in chunks of {@value #CHUNK} timers, so the shared counter changes once per chunk, not per
 * timer; a queue refused a chunk steps aside. Little heap, or many slots holding many timers, thus
 * fall back to stock behaviour instead of pressing on the heap.
 *
 * <p>Thread-safe (task threads of all slots).
 */
final class HeldTimerBudget {

    /** What a held timer costs on the heap: its bytes, two tree entries, object headers. */
    static final long BYTES_PER_TIMER = 160;

    /** Timers reserved at a time. */
    static final int CHUNK = 4096;

    private static final AtomicLong RESERVED = new AtomicLong();

    private HeldTimerBudget() {}

    /** The most timers all queues of this JVM may hold. */
    static long limit() {
        return Runtime.getRuntime().maxMemory() / 10 / BYTES_PER_TIMER;
    }

    /** Reserves one chunk; false (nothing reserved) when it would pass the limit. */
    static boolean reserveChunk() {
        long limit = limit();
        while (true) {
            long reserved = RESERVED.get();
            if (reserved + CHUNK > limit) {
                return false;
            }
            if (RESERVED.compareAndSet(reserved, reserved + CHUNK)) {
                return true;
            }
        }
    }

    /** Returns {@code timers} reserved earlier. */
    static void release(long timers) {
        if (timers > 0) {
            RESERVED.addAndGet(-timers);
        }
    }
}
