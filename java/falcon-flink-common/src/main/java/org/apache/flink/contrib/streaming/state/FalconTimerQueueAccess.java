/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package org.apache.flink.contrib.streaming.state;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.KeyExtractorFunction;
import org.apache.flink.runtime.state.Keyed;
import org.apache.flink.runtime.state.PriorityComparable;
import org.apache.flink.runtime.state.PriorityComparator;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueElement;
import org.apache.flink.runtime.state.heap.KeyGroupPartitionedPriorityQueue;

import org.rocksdb.ColumnFamilyHandle;

import java.util.function.IntFunction;

/**
 * Builds a timer queue of Flink's own classes — {@link KeyGroupPartitionedPriorityQueue} over one
 * {@link RocksDBCachingPriorityQueueSet} per key group, as Flink's {@code
 * RocksDBPriorityQueueSetFactory} does — with the ordered cache and the write batch Falcon passes,
 * over the column family Flink registered for the queue. The set's constructor is package-private,
 * hence this class in Flink's package (same class loading rule as {@link FalconRocksDBAccess}).
 *
 * <p>Call from the task thread that owns the backend, after {@code backend.create(stateName, ...)}
 * registered the queue's column family. Stateless.
 */
public final class FalconTimerQueueAccess {

    private FalconTimerQueueAccess() {}

    /**
     * A queue over the column family of the registered priority queue state {@code stateName}, or
     * null when the backend has no such column family.
     *
     * @param caches the ordered cache of each key group (called once per key group of the range)
     * @param writes the write batch every set writes through
     */
    public static <T extends HeapPriorityQueueElement & PriorityComparable<? super T> & Keyed<?>>
            KeyGroupPartitionedPriorityQueue<T, RocksDBCachingPriorityQueueSet<T>> create(
                    RocksDBKeyedStateBackend<?> backend,
                    String stateName,
                    TypeSerializer<T> byteOrderedElementSerializer,
                    IntFunction<RocksDBCachingPriorityQueueSet.OrderedByteArraySetCache> caches,
                    RocksDBWriteBatchWrapper writes) {
        ColumnFamilyHandle handle = backend.getColumnFamilyHandle(stateName);
        if (handle == null) {
            return null;
        }
        int keyGroupPrefixBytes = backend.getKeyGroupPrefixBytes();
        DataOutputSerializer sharedOut = new DataOutputSerializer(128);
        DataInputDeserializer sharedIn = new DataInputDeserializer();
        return new KeyGroupPartitionedPriorityQueue<>(
                KeyExtractorFunction.forKeyedObjects(),
                PriorityComparator.forPriorityComparableObjects(),
                new KeyGroupPartitionedPriorityQueue.PartitionQueueSetFactory<
                        T, RocksDBCachingPriorityQueueSet<T>>() {
                    @Override
                    public RocksDBCachingPriorityQueueSet<T> create(
                            int keyGroupId,
                            int numKeyGroups,
                            KeyExtractorFunction<T> keyExtractor,
                            PriorityComparator<T> elementPriorityComparator) {
                        return new RocksDBCachingPriorityQueueSet<>(
                                keyGroupId,
                                keyGroupPrefixBytes,
                                backend.db,
                                backend.getReadOptions(),
                                handle,
                                byteOrderedElementSerializer,
                                sharedOut,
                                sharedIn,
                                writes,
                                caches.apply(keyGroupId));
                    }
                },
                backend.getKeyGroupRange(),
                backend.getNumberOfKeyGroups());
    }
}
