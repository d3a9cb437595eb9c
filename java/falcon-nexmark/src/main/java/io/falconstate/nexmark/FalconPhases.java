/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.nexmark;

/**
 * Where a run's synchronous checkpoint phases went under Falcon, summed over its keyed backends
 * ({@link FalconPhaseReporter}); all zero for the other backends.
 */
public final class FalconPhases {
    public static final FalconPhases NONE = new FalconPhases(0, 0, 0, 0, 0, 0);

    private final int backends;
    private final long timedCheckpoints;
    private final long writeBackUs;
    private final long memtableFlushUs;
    private final long rocksDbSyncUs;
    private final long preBarrierBytes;

    FalconPhases(
            int backends,
            long timedCheckpoints,
            long writeBackUs,
            long memtableFlushUs,
            long rocksDbSyncUs,
            long preBarrierBytes) {
        this.backends = backends;
        this.timedCheckpoints = timedCheckpoints;
        this.writeBackUs = writeBackUs;
        this.memtableFlushUs = memtableFlushUs;
        this.rocksDbSyncUs = rocksDbSyncUs;
        this.preBarrierBytes = preBarrierBytes;
    }

    /** True when some Falcon backend timed a checkpoint. */
    public boolean present() {
        return timedCheckpoints > 0;
    }

    /** Checkpoints per backend (each keyed backend times each checkpoint once). */
    private double checkpointsPerBackend() {
        return (double) timedCheckpoints / backends;
    }

    /**
     * Milliseconds per checkpoint and subtask: the sum over one subtask's keyed backends (one per
     * keyed operator), averaged over checkpoints and the {@code parallelism} subtasks.
     */
    private double perCheckpointMs(long totalUs, int parallelism) {
        return present() ? totalUs / 1000.0 / checkpointsPerBackend() / parallelism : Double.NaN;
    }

    public double writeBackMs(int parallelism) {
        return perCheckpointMs(writeBackUs, parallelism);
    }

    public double memtableFlushMs(int parallelism) {
        return perCheckpointMs(memtableFlushUs, parallelism);
    }

    public double rocksDbSyncMs(int parallelism) {
        return perCheckpointMs(rocksDbSyncUs, parallelism);
    }

    /** MiB written back ahead of each barrier, per subtask. */
    public double preBarrierMib(int parallelism) {
        return present()
                ? preBarrierBytes / 1048576.0 / checkpointsPerBackend() / parallelism
                : Double.NaN;
    }
}
