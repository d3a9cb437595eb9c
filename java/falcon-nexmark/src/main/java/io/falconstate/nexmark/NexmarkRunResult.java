package io.falconstate.nexmark;

import io.falconstate.nexmark.sink.MaterializedTable;

import javax.annotation.Nullable;

/** What one {@link NexmarkRunner#run} measured and produced. */
public final class NexmarkRunResult {
    private final String query;
    private final String stateBackend;
    private final String stateBackendClass;
    private final long events;
    private final long elapsedNanos;
    private final long cpuNanos;
    private final CheckpointSummary checkpoints;
    private final MeasuredWindow window;
    @Nullable private final MaterializedTable table;
    private final FalconPhases falconPhases;
    @Nullable private final RecoveryTimeline.Recovery recovery;

    NexmarkRunResult(
            String query,
            String stateBackend,
            String stateBackendClass,
            long events,
            long elapsedNanos,
            long cpuNanos,
            CheckpointSummary checkpoints,
            MeasuredWindow window,
            @Nullable MaterializedTable table,
            FalconPhases falconPhases,
            @Nullable RecoveryTimeline.Recovery recovery) {
        this.query = query;
        this.stateBackend = stateBackend;
        this.stateBackendClass = stateBackendClass;
        this.events = events;
        this.elapsedNanos = elapsedNanos;
        this.cpuNanos = cpuNanos;
        this.checkpoints = checkpoints;
        this.window = window;
        this.table = table;
        this.falconPhases = falconPhases;
        this.recovery = recovery;
    }

    /** The recovery after an injected source failure; null if none was injected (or seen). */
    @Nullable
    public RecoveryTimeline.Recovery recovery() {
        return recovery;
    }

    /** Where Falcon's synchronous checkpoint phases went ({@link FalconPhases#NONE} if stock). */
    public FalconPhases falconPhases() {
        return falconPhases;
    }

    public String query() {
        return query;
    }

    public String stateBackend() {
        return stateBackend;
    }

    /** Class of the state backend the job ran with, e.g. EmbeddedRocksDBStateBackend. */
    public String stateBackendClass() {
        return stateBackendClass;
    }

    public long events() {
        return events;
    }

    /** Wall time from job submission to job termination (planning and cluster start excluded). */
    public long elapsedNanos() {
        return elapsedNanos;
    }

    /**
     * Process CPU time over the same interval (all threads of this JVM, i.e. the whole
     * MiniCluster); -1 if the JVM does not report it.
     */
    public long cpuNanos() {
        return cpuNanos;
    }

    /** Completed checkpoints of the job, or -1 if unknown. */
    public long completedCheckpoints() {
        return checkpoints.completed();
    }

    /** Checkpoint durations and sizes of the job. */
    public CheckpointSummary checkpoints() {
        return checkpoints;
    }

    /**
     * The measured window after the warm-up ({@link NexmarkRunOptions#warmupFraction}); the whole
     * run when the warm-up fraction is 0.
     */
    public MeasuredWindow window() {
        return window;
    }

    /** The materialized result; null for the blackhole sink. */
    @Nullable
    public MaterializedTable table() {
        return table;
    }

    public double eventsPerSecond() {
        return events / (elapsedNanos / 1e9);
    }

    /** Events per CPU-second: Nexmark's throughput per core, measured with process CPU time. */
    public double eventsPerCpuSecond() {
        return cpuNanos <= 0 ? Double.NaN : events / (cpuNanos / 1e9);
    }

    /** One line, key=value, for logs and benchmark scrapers. */
    public String summary() {
        return String.format(
                java.util.Locale.ROOT,
                "nexmark query=%s state.backend=%s backend_class=%s events=%d elapsed_ms=%d cpu_ms=%d events_per_s=%.0f"
                        + " events_per_cpu_s=%.0f window_events=%d window_events_per_cpu_s=%.0f checkpoints=%d"
                        + " state_size=%d result_rows=%s changelog_records=%s",
                query,
                stateBackend,
                stateBackendClass,
                events,
                elapsedNanos / 1_000_000,
                cpuNanos / 1_000_000,
                eventsPerSecond(),
                eventsPerCpuSecond(),
                window.events(),
                window.eventsPerCpuSecond(),
                checkpoints.completed(),
                checkpoints.lastStateSize(),
                table == null ? "-" : Long.toString(table.size()),
                table == null ? "-" : Long.toString(table.changelogRecords()));
    }

    @Override
    public String toString() {
        return summary();
    }
}
