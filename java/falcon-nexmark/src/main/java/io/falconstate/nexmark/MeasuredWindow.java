package io.falconstate.nexmark;

/**
 * The measured part of a run: from the moment the source had emitted the warm-up share of the
 * events ({@link NexmarkRunOptions#warmupFraction}) to the end of the job. CPU time is the process
 * CPU time of the JVM that runs the MiniCluster (all its threads) over the same window, which is
 * Nexmark's "cores" figure for an in-process cluster.
 */
public final class MeasuredWindow {
    private final long events;
    private final long warmupEvents;
    private final long elapsedNanos;
    private final long cpuNanos;
    private final boolean warmupObserved;

    MeasuredWindow(
            long events,
            long warmupEvents,
            long elapsedNanos,
            long cpuNanos,
            boolean warmupObserved) {
        this.events = events;
        this.warmupEvents = warmupEvents;
        this.elapsedNanos = elapsedNanos;
        this.cpuNanos = cpuNanos;
        this.warmupObserved = warmupObserved;
    }

    /** Events the source emitted inside the window. */
    public long events() {
        return events;
    }

    /** Events the source had emitted when the window opened (not measured). */
    public long warmupEvents() {
        return warmupEvents;
    }

    public long elapsedNanos() {
        return elapsedNanos;
    }

    /** Process CPU nanoseconds in the window, or -1 if the JVM does not report CPU time. */
    public long cpuNanos() {
        return cpuNanos;
    }

    /**
     * False if the job ended before the sampler saw the warm-up threshold (tiny runs): the window
     * is then the whole run.
     */
    public boolean warmupObserved() {
        return warmupObserved;
    }

    public double eventsPerSecond() {
        return elapsedNanos <= 0 ? Double.NaN : events / (elapsedNanos / 1e9);
    }

    /** Events per CPU second in the window: throughput per core. */
    public double eventsPerCpuSecond() {
        return cpuNanos <= 0 ? Double.NaN : events / (cpuNanos / 1e9);
    }

    /** Average cores busy in the window (CPU time / wall time). */
    public double cores() {
        return elapsedNanos <= 0 || cpuNanos < 0 ? Double.NaN : (double) cpuNanos / elapsedNanos;
    }
}
