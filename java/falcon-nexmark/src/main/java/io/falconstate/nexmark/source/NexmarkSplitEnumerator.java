package io.falconstate.nexmark.source;

import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Hands split {@code i} to reader {@code i % parallelism} when that reader registers, then tells it
 * no more splits come. Splits returned by a failed reader (with the progress of the last
 * checkpoint) go back to the pending list and to the reader that re-registers for them. The
 * checkpoint holds the pending splits only: assigned splits live in the readers' state.
 */
final class NexmarkSplitEnumerator implements SplitEnumerator<NexmarkSplit, List<NexmarkSplit>> {
    private final SplitEnumeratorContext<NexmarkSplit> context;
    private final List<NexmarkSplit> pending;

    NexmarkSplitEnumerator(
            SplitEnumeratorContext<NexmarkSplit> context, List<NexmarkSplit> pending) {
        this.context = context;
        this.pending = new ArrayList<>(pending);
    }

    @Override
    public void start() {}

    @Override
    public void handleSplitRequest(int subtaskId, @Nullable String requesterHostname) {
        // Assignment is push-based on registration; requests need no answer.
    }

    @Override
    public void addSplitsBack(List<NexmarkSplit> splits, int subtaskId) {
        pending.addAll(splits);
        if (context.registeredReaders().containsKey(subtaskId)) {
            addReader(subtaskId);
        }
    }

    @Override
    public void addReader(int subtaskId) {
        int parallelism = context.currentParallelism();
        Iterator<NexmarkSplit> it = pending.iterator();
        while (it.hasNext()) {
            NexmarkSplit split = it.next();
            if (split.index() % parallelism == subtaskId) {
                context.assignSplit(split, subtaskId);
                it.remove();
            }
        }
        context.signalNoMoreSplits(subtaskId);
    }

    @Override
    public List<NexmarkSplit> snapshotState(long checkpointId) {
        List<NexmarkSplit> copy = new ArrayList<>(pending.size());
        for (NexmarkSplit s : pending) {
            copy.add(s.copy());
        }
        return copy;
    }

    @Override
    public void close() {}
}
