/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.timers;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.contrib.streaming.state.FalconColumnFamilyAccess;
import org.apache.flink.contrib.streaming.state.FalconRocksDBAccess;
import org.apache.flink.contrib.streaming.state.FalconTimerQueueAccess;
import org.apache.flink.contrib.streaming.state.RocksDBKeyedStateBackend;
import org.apache.flink.runtime.state.KeyGroupedInternalPriorityQueue;
import org.apache.flink.runtime.state.Keyed;
import org.apache.flink.runtime.state.PriorityComparable;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueElement;
import org.apache.flink.streaming.api.operators.TimerSerializer;

import org.rocksdb.ColumnFamilyHandle;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The timer queues of one Falcon keyed backend whose timers are in RocksDB: each queue Flink asks
 * for is Flink's RocksDB queue, with Falcon's two layers where they apply — its timers held on the
 * heap and written back before snapshots ({@link HeldTimers}), and repeated registrations answered
 * from a set of timers known to be present ({@link DeduplicatingTimerQueue}). Only queues of
 * Flink's timers get them (their equality is timestamp, key and namespace); other queues, and
 * backends with Flink's heap timers, are left as stock.
 *
 * <p>Not thread-safe: the task thread of the backend creates and writes back. The counters may be
 * read by a metrics thread, which may see them late.
 */
public final class TimerQueues {

    private final RocksDBKeyedStateBackend<?> rocksDb;
    private final int dedupCapacity;
    private final int heldCapacity;
    private final List<DeduplicatingTimerQueue<?>> deduplicating = new CopyOnWriteArrayList<>();
    private final List<HeldTimers> held = new CopyOnWriteArrayList<>();

    /**
     * @param rocksDb the backend whose timer queues these are
     * @param dedupCapacity per queue, the known-timer set's capacity; 0 is off
     * @param heldCapacity per queue, the most timers held on the heap; 0 is off
     */
    public TimerQueues(RocksDBKeyedStateBackend<?> rocksDb, int dedupCapacity, int heldCapacity) {
        this.rocksDb = rocksDb;
        this.dedupCapacity = dedupCapacity;
        this.heldCapacity = heldCapacity;
    }

    /** Whether any layer applies (Falcon exposes the timer metrics only then). */
    public boolean enabled() {
        return dedupCapacity > 0 || heldCapacity > 0;
    }

    /** The queue for {@code stateName}: Flink's RocksDB queue, with the layers that apply. */
    public <T extends HeapPriorityQueueElement & PriorityComparable<? super T> & Keyed<?>>
            KeyGroupedInternalPriorityQueue<T> create(
                    String stateName,
                    TypeSerializer<T> byteOrderedElementSerializer,
                    boolean allowFutureMetadataUpdates) {
        // Flink registers (or checks) the queue's column family and serializer here.
        KeyGroupedInternalPriorityQueue<T> queue =
                rocksDb.create(stateName, byteOrderedElementSerializer, allowFutureMetadataUpdates);
        if (!(byteOrderedElementSerializer instanceof TimerSerializer)
                || !FalconColumnFamilyAccess.timersInRocksDb(rocksDb)) {
            return queue;
        }
        if (heldCapacity > 0) {
            queue = held(stateName, byteOrderedElementSerializer, queue);
        }
        if (dedupCapacity > 0) {
            DeduplicatingTimerQueue<T> dedup =
                    new DeduplicatingTimerQueue<>(
                            queue, byteOrderedElementSerializer.duplicate(), dedupCapacity);
            deduplicating.add(dedup);
            queue = dedup;
        }
        return queue;
    }

    private <T extends HeapPriorityQueueElement & PriorityComparable<? super T> & Keyed<?>>
            KeyGroupedInternalPriorityQueue<T> held(
                    String stateName,
                    TypeSerializer<T> serializer,
                    KeyGroupedInternalPriorityQueue<T> flinkQueue) {
        ColumnFamilyHandle handle = FalconRocksDBAccess.columnFamily(rocksDb, stateName);
        if (handle == null) {
            return flinkQueue;
        }
        HeldTimers timers =
                new HeldTimers(
                        stateName,
                        FalconRocksDBAccess.db(rocksDb),
                        rocksDb.getWriteOptions(),
                        handle,
                        rocksDb.getKeyGroupRange(),
                        heldCapacity);
        // Flink's own queue for this state stays unused: it has read nothing yet, so the two
        // never disagree about what RocksDB holds.
        KeyGroupedInternalPriorityQueue<T> queue =
                FalconTimerQueueAccess.create(
                        rocksDb, stateName, serializer, timers::cacheFor, timers.writes());
        if (queue == null) {
            timers.dispose();
            return flinkQueue;
        }
        held.add(timers);
        return queue;
    }

    /** Before a snapshot: every held timer change into RocksDB. */
    public void writeBack() {
        for (HeldTimers timers : held) {
            timers.writeBack();
        }
    }

    /** The state names (column families) of the queues whose timers are held. */
    public List<String> heldStateNames() {
        List<String> names = new ArrayList<>();
        for (HeldTimers timers : held) {
            names.add(timers.stateName());
        }
        return names;
    }

    /** Releases the queues' write batches; call before the RocksDB backend is disposed. */
    public void dispose() {
        for (HeldTimers timers : held) {
            timers.dispose();
        }
    }

    /** Timer registrations answered without the queue. */
    public long skippedRegistrations() {
        long sum = 0;
        for (DeduplicatingTimerQueue<?> queue : deduplicating) {
            sum += queue.skippedAdds();
        }
        return sum;
    }

    /** Timers the known-timer sets remember now. */
    public long knownTimers() {
        long sum = 0;
        for (DeduplicatingTimerQueue<?> queue : deduplicating) {
            sum += queue.knownTimers();
        }
        return sum;
    }

    /** Timers held on the heap now. */
    public long heldTimers() {
        long sum = 0;
        for (HeldTimers timers : held) {
            sum += timers.heldTimers();
        }
        return sum;
    }

    /** Timer puts and deletes written to RocksDB by write-backs so far. */
    public long writtenBack() {
        long sum = 0;
        for (HeldTimers timers : held) {
            sum += timers.writtenBack();
        }
        return sum;
    }
}
