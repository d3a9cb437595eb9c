/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.timers;

import org.apache.flink.contrib.streaming.state.RocksDBCachingPriorityQueueSet.OrderedByteArraySetCache;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import javax.annotation.Nonnull;
import javax.annotation.Nullable;

import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The ordered cache of one key group's timers in Flink's RocksDB timer set, as Flink's {@code
 * TreeOrderedSetCache} (serialized timers in RocksDB's byte order), with one difference while its
 * {@link HeldTimers} holds: it is never full, so it holds every timer of the key group, and it
 * records which of its changes RocksDB has not got yet.
 *
 * <p>While holding, the cache is exactly the key group's set of timers (Flink's set loads it whole
 * from RocksDB before its first operation and never reloads it while the cache is not full), and
 * RocksDB holds that set minus the unwritten changes: a timer added that RocksDB does not have, or
 * one removed that it has. An add and a remove of one timer between two write-backs cancel (the
 * usual life of a window's timer). The set's own writes to RocksDB are dropped meanwhile ({@link
 * HeldTimers#writes()}); {@link #writeUnwritten} hands the changes to a write batch.
 *
 * <p>Once its queue steps aside, it behaves as Flink's cache of {@value
 * HeldTimers#FLINK_CACHE_SIZE} timers: full from that size on, loading at most that many, with
 * nothing unwritten. A cache larger than that when the queue stepped aside stays correct (Flink's
 * set needs only that the cache holds the smallest timers of the key group) and shrinks as its
 * timers fire.
 *
 * <p>Not thread-safe: the task thread of its queue.
 */
final class HeldTimerBytes implements OrderedByteArraySetCache {

    private static final byte[] NO_VALUE = new byte[0];

    private final HeldTimers queue;
    private final TreeSet<byte[]> timers = new TreeSet<>(LEXICOGRAPHIC_BYTE_COMPARATOR);

    /** Changes RocksDB has not got: true, a timer to put; false, a timer to delete. */
    private final TreeMap<byte[], Boolean> unwritten = new TreeMap<>(LEXICOGRAPHIC_BYTE_COMPARATOR);

    HeldTimerBytes(HeldTimers queue) {
        this.queue = queue;
    }

    @Override
    public int size() {
        return timers.size();
    }

    @Override
    public int maxSize() {
        return queue.holding() ? Integer.MAX_VALUE : HeldTimers.FLINK_CACHE_SIZE;
    }

    @Override
    public boolean isEmpty() {
        return timers.isEmpty();
    }

    @Override
    public boolean isFull() {
        return !queue.holding() && timers.size() >= HeldTimers.FLINK_CACHE_SIZE;
    }

    @Override
    public boolean add(@Nonnull byte[] toAdd) {
        if (!timers.add(toAdd)) {
            return false;
        }
        if (queue.holding()) {
            change(toAdd, true);
            queue.timerAdded();
        }
        return true;
    }

    @Override
    public boolean remove(@Nonnull byte[] toRemove) {
        if (!timers.remove(toRemove)) {
            return false;
        }
        removed(toRemove);
        return true;
    }

    @Nullable
    @Override
    public byte[] peekFirst() {
        return timers.isEmpty() ? null : timers.first();
    }

    @Nullable
    @Override
    public byte[] peekLast() {
        return timers.isEmpty() ? null : timers.last();
    }

    @Nullable
    @Override
    public byte[] pollFirst() {
        byte[] first = timers.pollFirst();
        if (first != null) {
            removed(first);
        }
        return first;
    }

    @Nullable
    @Override
    public byte[] pollLast() {
        byte[] last = timers.pollLast();
        if (last != null) {
            removed(last);
        }
        return last;
    }

    @Override
    public void bulkLoadFromOrderedIterator(@Nonnull Iterator<byte[]> orderedIterator) {
        // Flink's set loads only an empty cache; what it loads is in RocksDB already.
        timers.clear();
        int loaded = 0;
        while (orderedIterator.hasNext() && !isFull()) {
            timers.add(orderedIterator.next());
            loaded++;
        }
        if (queue.holding()) {
            queue.timersLoaded(loaded);
        }
    }

    /**
     * Adds the changes RocksDB has not got to {@code batch}, handing it to {@code full} after each
     * one; none are left. Returns how many.
     */
    int writeUnwritten(WriteBatch batch, ColumnFamilyHandle handle, HeldTimers.BatchFull full)
            throws RocksDBException {
        int count = unwritten.size();
        for (Map.Entry<byte[], Boolean> change : unwritten.entrySet()) {
            if (change.getValue()) {
                batch.put(handle, change.getKey(), NO_VALUE);
            } else {
                batch.delete(handle, change.getKey());
            }
            full.writeIfFull(batch);
        }
        unwritten.clear();
        return count;
    }

    boolean hasUnwritten() {
        return !unwritten.isEmpty();
    }

    private void removed(byte[] timer) {
        if (queue.holding()) {
            change(timer, false);
            queue.timerRemoved();
        }
    }

    /** Records that {@code timer} is now in the set ({@code present}) or not. */
    private void change(byte[] timer, boolean present) {
        // The set changes a timer's membership only by adding an absent one or removing a
        // present one, so a pending change of the same timer is always the opposite one: the two
        // cancel, and RocksDB already has what the set has.
        if (unwritten.remove(timer) == null) {
            unwritten.put(timer, present);
        }
    }
}
