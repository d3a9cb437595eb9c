package io.falconstate.nexmark.source;

import org.apache.flink.api.connector.source.SourceSplit;

/**
 * Split {@code index} of {@code count}: the events whose number is {@code index} modulo {@code
 * count}, emitted in increasing order. {@code emitted} counts the events already emitted, so a
 * split restored from a checkpoint continues with exactly the next event.
 *
 * <p>Mutable only through {@link #advance()}; the reader snapshots copies.
 */
public final class NexmarkSplit implements SourceSplit {
    private final int index;
    private final int count;
    private long emitted;

    public NexmarkSplit(int index, int count, long emitted) {
        if (count <= 0 || index < 0 || index >= count || emitted < 0) {
            throw new IllegalArgumentException(
                    "bad split index=" + index + " count=" + count + " emitted=" + emitted);
        }
        this.index = index;
        this.count = count;
        this.emitted = emitted;
    }

    public int index() {
        return index;
    }

    public int count() {
        return count;
    }

    public long emitted() {
        return emitted;
    }

    /** The number of the next event this split emits. */
    public long nextEventNumber() {
        return index + emitted * count;
    }

    /** True when every event of this split below {@code eventsNum} has been emitted. */
    public boolean isFinished(long eventsNum) {
        return nextEventNumber() >= eventsNum;
    }

    void advance() {
        emitted++;
    }

    public NexmarkSplit copy() {
        return new NexmarkSplit(index, count, emitted);
    }

    @Override
    public String splitId() {
        return "nexmark-" + index + "-of-" + count;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof NexmarkSplit)) {
            return false;
        }
        NexmarkSplit s = (NexmarkSplit) o;
        return s.index == index && s.count == count && s.emitted == emitted;
    }

    @Override
    public int hashCode() {
        return (int) (index * 31L + count * 961L + emitted);
    }

    @Override
    public String toString() {
        return splitId() + "@" + emitted;
    }
}
