/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.nexmark;

import io.falconstate.nexmark.source.SourceProgress;

import java.util.Arrays;

/**
 * How fast a job got going again after an injected source failure: a sampler thread records the
 * events the sources emitted every {@link #SAMPLE_MILLIS} ms while the job runs; afterwards the
 * timeline gives the rate over the {@link #BEFORE_MILLIS} ms before the failure and the events of
 * each {@link #BUCKET_MILLIS} ms bucket after it (restart, restore from the last checkpoint with a
 * cold cache, replay), up to {@link #AFTER_MILLIS} ms or the end of the job.
 */
public final class RecoveryTimeline extends Thread {
    static final long SAMPLE_MILLIS = 50;
    public static final long BUCKET_MILLIS = 250;
    static final long BEFORE_MILLIS = 10_000;
    static final long AFTER_MILLIS = 120_000;

    private long[] times = new long[4096];
    private long[] events = new long[4096];
    private int n;

    RecoveryTimeline() {
        super("nexmark-recovery-sampler");
        setDaemon(true);
    }

    @Override
    public void run() {
        try {
            while (!isInterrupted()) {
                sample();
                Thread.sleep(SAMPLE_MILLIS);
            }
        } catch (InterruptedException e) {
            // the job ended
        }
    }

    private synchronized void sample() {
        if (n == times.length) {
            times = Arrays.copyOf(times, n * 2);
            events = Arrays.copyOf(events, n * 2);
        }
        times[n] = System.nanoTime();
        events[n] = SourceProgress.emitted();
        n++;
    }

    /** What the samples show about the failure at {@code failedAtNanos}; null if none was seen. */
    synchronized Recovery result(long failedAtNanos) {
        if (failedAtNanos == 0 || n < 2 || times[0] > failedAtNanos) {
            return null;
        }
        long from = failedAtNanos - BEFORE_MILLIS * 1_000_000L;
        double before =
                (at(failedAtNanos) - at(Math.max(from, times[0])))
                        / ((failedAtNanos - Math.max(from, times[0])) / 1e9);
        long end = Math.min(times[n - 1], failedAtNanos + AFTER_MILLIS * 1_000_000L);
        int buckets = (int) ((end - failedAtNanos) / (BUCKET_MILLIS * 1_000_000L));
        long[] counts = new long[Math.max(0, buckets)];
        for (int i = 0; i < counts.length; i++) {
            long t = failedAtNanos + i * BUCKET_MILLIS * 1_000_000L;
            counts[i] = Math.round(at(t + BUCKET_MILLIS * 1_000_000L) - at(t));
        }
        return new Recovery(before, counts);
    }

    /** Events emitted at time {@code t}, interpolated between the samples around it. */
    private double at(long t) {
        int i = Arrays.binarySearch(times, 0, n, t);
        if (i >= 0) {
            return events[i];
        }
        int hi = -i - 1;
        if (hi == 0) {
            return events[0];
        }
        if (hi == n) {
            return events[n - 1];
        }
        double f = (double) (t - times[hi - 1]) / (times[hi] - times[hi - 1]);
        return events[hi - 1] + f * (events[hi] - events[hi - 1]);
    }

    /** The rate before the failure and the events per bucket after it. */
    public static final class Recovery {
        private final double eventsPerSecondBefore;
        private final long[] bucketEvents;

        public Recovery(double eventsPerSecondBefore, long[] bucketEvents) {
            this.eventsPerSecondBefore = eventsPerSecondBefore;
            this.bucketEvents = bucketEvents.clone();
        }

        public double eventsPerSecondBefore() {
            return eventsPerSecondBefore;
        }

        public long[] bucketEvents() {
            return bucketEvents.clone();
        }

        /**
         * Milliseconds from the failure until the events of the last second first reach {@code
         * eventsPerSecond} (the end of the first such second); -1 if they never do.
         */
        public long millisToRate(double eventsPerSecond) {
            int perSecond = (int) (1000 / BUCKET_MILLIS);
            long window = 0;
            for (int i = 0; i < bucketEvents.length; i++) {
                window += bucketEvents[i];
                if (i >= perSecond) {
                    window -= bucketEvents[i - perSecond];
                }
                if (i >= perSecond - 1 && window >= eventsPerSecond) {
                    return (i + 1) * BUCKET_MILLIS;
                }
            }
            return -1;
        }
    }
}
