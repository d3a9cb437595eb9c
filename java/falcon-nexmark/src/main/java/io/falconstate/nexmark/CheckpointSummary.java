package io.falconstate.nexmark;

import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStats;
import org.apache.flink.runtime.checkpoint.TaskStateStats;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The checkpoint figures of a finished job, from the job's checkpoint statistics (what the REST
 * API's {@code /jobs/:id/checkpoints} shows). Durations are averaged over the completed checkpoints
 * of the job's history (the synchronous phase also as their median); the sizes are those of the
 * last completed checkpoint.
 */
public final class CheckpointSummary {
    /** No statistics (checkpointing off, or the job graph had none). */
    public static final CheckpointSummary NONE =
            new CheckpointSummary(-1, 0, -1, -1, -1, -1, -1, -1, -1);

    private final long completed;
    private final int inHistory;
    private final double avgSyncMillis;
    private final long maxSyncMillis;
    private final double medianSyncMillis;
    private final double avgEndToEndMillis;
    private final long maxEndToEndMillis;
    private final long lastStateSize;
    private final long lastCheckpointedSize;

    CheckpointSummary(
            long completed,
            int inHistory,
            double avgSyncMillis,
            long maxSyncMillis,
            double medianSyncMillis,
            double avgEndToEndMillis,
            long maxEndToEndMillis,
            long lastStateSize,
            long lastCheckpointedSize) {
        this.completed = completed;
        this.inHistory = inHistory;
        this.avgSyncMillis = avgSyncMillis;
        this.maxSyncMillis = maxSyncMillis;
        this.medianSyncMillis = medianSyncMillis;
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
        List<Long> syncs = new ArrayList<>();
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
            syncs.add(syncMax);
            syncMaxOfAll = Math.max(syncMaxOfAll, syncMax);
        }
        CompletedCheckpointStats last = s.getHistory().getLatestCompletedCheckpoint();
        return new CheckpointSummary(
                completed,
                n,
                n == 0 ? -1 : sync / n,
                syncMaxOfAll,
                median(syncs),
                n == 0 ? -1 : e2e / n,
                e2eMax,
                last == null ? -1 : last.getStateSize(),
                last == null ? -1 : last.getCheckpointedSize());
    }

    /** The middle value (the mean of the two middle ones for an even count); -1 if none. */
    static double median(List<Long> values) {
        if (values.isEmpty()) {
            return -1;
        }
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int mid = sorted.size() / 2;
        return sorted.size() % 2 == 1
                ? sorted.get(mid)
                : (sorted.get(mid - 1) + sorted.get(mid)) / 2.0;
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

    /** Median over checkpoints of the slowest subtask's synchronous phase, ms; -1 if none. */
    public double medianSyncMillis() {
        return medianSyncMillis;
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
