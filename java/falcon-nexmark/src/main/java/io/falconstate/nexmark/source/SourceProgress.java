package io.falconstate.nexmark.source;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Events emitted by every {@link NexmarkSource} reader of this JVM, so that an in-process runner
 * (MiniCluster) can watch a job's progress without the metrics system, e.g. to start a benchmark's
 * measured window after the warm-up events.
 *
 * <p>Readers add in batches of {@link #BATCH} events (one atomic add per batch, nothing else on the
 * per-record path) and add their remainder when their input ends, so the count is exact once the
 * job has finished and at most {@code BATCH - 1} events per reader behind while it runs. The count
 * is monotonic and never reset: callers take differences. Replayed events after a restore are
 * counted again.
 */
public final class SourceProgress {
    /** Events a reader emits between two updates of the shared counter. */
    public static final int BATCH = 1024;

    private static final AtomicLong EMITTED = new AtomicLong();

    /** {@link System#nanoTime} of the last injected failure ({@link FailureInjection}); 0: none. */
    private static volatile long failedAtNanos;

    private SourceProgress() {}

    /** Events emitted so far by all readers of this JVM (monotonic). */
    public static long emitted() {
        return EMITTED.get();
    }

    static void add(long events) {
        EMITTED.addAndGet(events);
    }

    /** When a reader of this JVM last threw its injected failure; 0 if none did. */
    public static long failedAtNanos() {
        return failedAtNanos;
    }

    static void failed() {
        failedAtNanos = System.nanoTime();
    }
}
