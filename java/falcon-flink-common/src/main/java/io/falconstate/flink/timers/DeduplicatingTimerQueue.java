/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.timers;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.runtime.state.KeyGroupedInternalPriorityQueue;
import org.apache.flink.util.CloseableIterator;

import javax.annotation.Nonnull;
import javax.annotation.Nullable;

import java.util.Collection;
import java.util.Set;

/**
 * A timer queue in RocksDB that skips registering a timer again while it is known to be there.
 * Window operators register their window's timer on every record; Flink's RocksDB queue writes each
 * of those to RocksDB unless the timer is among the few it holds in order on the heap. This queue
 * remembers, in a bounded {@link KnownTimerSet}, timers it has added and not yet seen leave (polled
 * or removed), and answers a repeated add itself: nothing changes, as in RocksDB, where putting a
 * present key again leaves the same state.
 *
 * <p>Invariant: every timer in the known set is in the RocksDB queue. It holds because every change
 * to the queue passes through here (the timer service holds only this queue; snapshots read the
 * column family and restores build a new backend), a timer enters the set only after the RocksDB
 * queue accepted it and leaves it before being removed from RocksDB. Timers compare by {@code
 * equals} (timestamp, key and namespace), as Flink's heap timers do.
 *
 * <p>Not thread-safe; used by the task thread, as the queue it wraps. The two counters may be read
 * from a metrics thread, which may see them late, as Flink's own counters.
 */
public final class DeduplicatingTimerQueue<T> implements KeyGroupedInternalPriorityQueue<T> {

    private final KeyGroupedInternalPriorityQueue<T> rocksDbQueue;
    private final TypeSerializer<T> copier;
    private final KnownTimerSet known;
    private long skippedAdds;

    /**
     * @param rocksDbQueue Flink's timer queue in RocksDB; this queue becomes its only user
     * @param copier deep-copies timers; owned by this queue (pass a duplicate)
     * @param capacity the most timers remembered; at least 1
     */
    public DeduplicatingTimerQueue(
            KeyGroupedInternalPriorityQueue<T> rocksDbQueue,
            TypeSerializer<T> copier,
            int capacity) {
        this.rocksDbQueue = rocksDbQueue;
        this.copier = copier;
        this.known = new KnownTimerSet(capacity);
    }

    @Override
    public boolean add(@Nonnull T toAdd) {
        if (known.contains(toAdd)) {
            // Present: the head cannot change.
            skippedAdds++;
            return false;
        }
        boolean headChanged = rocksDbQueue.add(toAdd);
        known.add(copier.copy(toAdd));
        return headChanged;
    }

    @Override
    public boolean remove(@Nonnull T toRemove) {
        known.remove(toRemove);
        return rocksDbQueue.remove(toRemove);
    }

    @Nullable
    @Override
    public T poll() {
        T polled = rocksDbQueue.poll();
        if (polled != null) {
            known.remove(polled);
        }
        return polled;
    }

    @Nullable
    @Override
    public T peek() {
        return rocksDbQueue.peek();
    }

    @Override
    public boolean isEmpty() {
        return rocksDbQueue.isEmpty();
    }

    @Override
    public int size() {
        return rocksDbQueue.size();
    }

    @Override
    public void addAll(@Nullable Collection<? extends T> toAdd) {
        if (toAdd != null) {
            for (T element : toAdd) {
                add(element);
            }
        }
    }

    @Nonnull
    @Override
    public CloseableIterator<T> iterator() {
        return rocksDbQueue.iterator();
    }

    @Nonnull
    @Override
    public Set<T> getSubsetForKeyGroup(int keyGroupId) {
        return rocksDbQueue.getSubsetForKeyGroup(keyGroupId);
    }

    /** Adds answered here because the timer was known to be in RocksDB. */
    public long skippedAdds() {
        return skippedAdds;
    }

    /** Timers currently known to be in RocksDB. */
    public int knownTimers() {
        return known.size();
    }
}
