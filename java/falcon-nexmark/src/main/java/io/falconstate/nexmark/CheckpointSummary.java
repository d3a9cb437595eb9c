package io.falconstate.nexmark;

import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStats;
import org.apache.flink.runtime.checkpoint.TaskStateStats;

import java.util.List;

/**
 * The checkpoint figures of a finished job, from the job's checkpoint statistics (what the REST
 * API's {@code /jobs/:id/checkpoints} shows). Durations are averaged over the completed checkpoints
 * of the job's history; the sizes are those of the last completed checkpoint.
 */
public final class CheckpointSummary {
    /** No statistics (checkpointing off, or the job graph had none). */
    public static final CheckpointSummary NONE =
            new CheckpointSummary(-1, 0, -1, -1, -1, -1, -1, -1);

    private final long completed;
    private final int inHistory;
    private final double avgSyncMillis;
    private final long maxSyncMillis;
    private final double avgEndToEndMillis;
    private final long maxEndToEndMillis;
    private final long lastStateSize;
    private final long lastCheckpointedSize;

    CheckpointSummary(
            long completed,
            int inHistory,
            double avgSyncMillis,
            long maxSyncMillis,
            double avgEndToEndMillis,
            long maxEndToEndMillis,
            long lastStateSize,
            long lastCheckpointedSize) {
        this.completed = completed;
        this.inHistory = inHistory;
        this.avgSyncMillis = avgSyncMillis;
        this.maxSyncMillis = maxSyncMillis;
        this.avgEndToEndMillis = avgEndToEndMillis;
        this.maxEndToEndMillis = maxEndToEndMillis;
        this.lastStateSize = lastStateSize;
        this.lastCheckpointedSize = lastCheckpointedSize;
    }

    static CheckpointSummary of(CheckpointStatsSnapshot s) {
        if (s == null) {
            return NONE;
        }
        long completed = s.getCounts().getNumberOfCompletedCheckpoints();
        List<AbstractCheckpointStats> history = s.getHistory().getCheckpoints();
        int n = 0;
        double sync = 0;
        long syncMaxOfAll = -1;
        double e2e = 0;
        long e2eMax = -1;
        for (AbstractCheckpointStats c : history) {
            if (!(c instanceof CompletedCheckpointStats)) {
                continue;
            }
            n++;
            e2e += c.getEndToEndDuration();
            e2eMax = Math.max(e2eMax, c.getEndToEndDuration());
            // The checkpoint's synchronous part is as long as its slowest subtask's.
            long syncMax = 0;
            for (TaskStateStats t : c.getAllTaskStateStats()) {
                syncMax =
                        Math.max(
                                syncMax,
                                t.getSummaryStats().getSyncCheckpointDurationStats().getMaximum());
            }
            sync += syncMax;
            syncMaxOfAll = Math.max(syncMaxOfAll, syncMax);
        }
        CompletedCheckpointStats last = s.getHistory().getLatestCompletedCheckpoint();
        return new CheckpointSummary(
                completed,
                n,
                n == 0 ? -1 : sync / n,
                syncMaxOfAll,
                n == 0 ? -1 : e2e / n,
                e2eMax,
                last == null ? -1 : last.getStateSize(),
                last == null ? -1 : last.getCheckpointedSize());
    }

    /** Completed checkpoints of the job, -1 if unknown. */
    public long completed() {
        return completed;
    }

    /** Completed checkpoints the averages are over (the history keeps the last 10 by default). */
    public int inHistory() {
        return inHistory;
    }

    /** Mean over checkpoints of the slowest subtask's synchronous phase, ms; -1 if none. */
    public double avgSyncMillis() {
        return avgSyncMillis;
    }

    /** The longest synchronous phase of any checkpoint (slowest subtask), ms; -1 if none. */
    public long maxSyncMillis() {
        return maxSyncMillis;
    }

    /** Mean end-to-end (trigger to last acknowledgement) duration, ms; -1 if none. */
    public double avgEndToEndMillis() {
        return avgEndToEndMillis;
    }

    public long maxEndToEndMillis() {
        return maxEndToEndMillis;
    }

    /** Full state size of the last completed checkpoint, bytes; -1 if none. */
    public long lastStateSize() {
        return lastStateSize;
    }

    /** Bytes the last completed checkpoint uploaded (incremental size); -1 if none. */
    public long lastCheckpointedSize() {
        return lastCheckpointedSize;
    }
}
