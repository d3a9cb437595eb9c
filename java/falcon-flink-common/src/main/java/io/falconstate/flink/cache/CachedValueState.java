/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.CompositeKeySerializationUtils;
import org.apache.flink.runtime.state.internal.InternalValueState;
import org.apache.flink.util.FlinkRuntimeException;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

import javax.annotation.Nullable;

import java.io.IOException;

/**
 * A RocksDB {@code ValueState} behind Falcon's write-back hot-state cache.
 *
 * <p>Keys and values are exactly the bytes RocksDB stores for this state (TTL timestamp included
 * when the state has a TTL: the TTL wrapper sits above this class), so the cache's write-back is a
 * raw put or delete. {@link #value()} reads the cache; on a miss it reads RocksDB once, with the
 * same default {@code ReadOptions} as Flink's own ValueState, and fills the cache. {@link #update}
 * and {@link #clear()} write the cache only (dirty); dirty entries reach RocksDB when they are
 * evicted, before every snapshot, and before every whole-state scan ({@link HotStateCacheManager}).
 *
 * <p>The per-record path allocates nothing for keys and value bytes: the key is built into a shared
 * reused buffer, a hit is copied into this state's reused value buffer, and values are serialized
 * into a reused output buffer. Deserializing the value may allocate the value object itself, as in
 * Flink.
 *
 * <p>A miss on a key that was never written into the state's column family is answered "absent" by
 * the state's {@link WrittenKeyFilter}, without a RocksDB read.
 *
 * <p>A state whose cache does not pay goes straight to Flink's own RocksDB state for a while
 * ({@link CacheSwitch}): then every call is one counter and a delegation.
 *
 * <p>Not thread-safe: the task thread uses it. Queryable states are never wrapped (query threads
 * would race the cache).
 */
public final class CachedValueState<K, N, V> implements InternalValueState<K, N, V> {

    private final HotStateCacheManager<K> manager;
    private final NativeHotStateCache cache;
    private final CacheKeyBuilder<K> keyBuilder;
    private final InternalValueState<K, N, V> rocksDbState;
    private final int stateId;
    private final RocksDB db;
    private final WriteOptions writeOptions;
    private final CacheSwitch cacheSwitch;
    @Nullable private final WrittenKeyFilter writtenKeys;

    private ColumnFamilyHandle columnFamily;
    private TypeSerializer<N> namespaceSerializer;
    private boolean namespaceVariableSized;
    private TypeSerializer<V> valueSerializer;
    private V defaultValue;

    private N currentNamespace;
    private byte[] valueBuffer = new byte[128];
    private final DataInputDeserializer valueIn = new DataInputDeserializer();
    private final DataOutputSerializer valueOut = new DataOutputSerializer(128);

    CachedValueState(
            HotStateCacheManager<K> manager,
            int stateId,
            InternalValueState<K, N, V> rocksDbState,
            ColumnFamilyHandle columnFamily,
            V defaultValue,
            CacheSwitch cacheSwitch,
            @Nullable WrittenKeyFilter writtenKeys) {
        this.manager = manager;
        this.cacheSwitch = cacheSwitch;
        this.writtenKeys = writtenKeys;
        this.cache = manager.cache();
        this.keyBuilder = manager.keyBuilder();
        this.db = manager.db();
        this.writeOptions = manager.writeOptions();
        this.stateId = stateId;
        this.rocksDbState = rocksDbState;
        refresh(columnFamily, defaultValue);
    }

    /** After a re-registration: the RocksDB state may have new serializers and default value. */
    void refresh(ColumnFamilyHandle columnFamily, V defaultValue) {
        this.columnFamily = columnFamily;
        this.namespaceSerializer = rocksDbState.getNamespaceSerializer();
        this.namespaceVariableSized =
                CompositeKeySerializationUtils.isSerializerTypeVariableSized(namespaceSerializer);
        this.valueSerializer = rocksDbState.getValueSerializer();
        this.defaultValue = defaultValue;
    }

    int stateId() {
        return stateId;
    }

    InternalValueState<K, N, V> rocksDbState() {
        return rocksDbState;
    }

    // -- ValueState ------------------------------------------------------------------------------

    @Override
    public V value() throws IOException {
        if (cacheSwitch.direct()) {
            return rocksDbState.value();
        }
        int keyLength =
                keyBuilder.build(currentNamespace, namespaceSerializer, namespaceVariableSized);
        byte[] key = keyBuilder.buffer();
        int result = cache.get(stateId, key, keyLength, valueBuffer);
        if (result <= NativeHotStateCache.NEED_BUFFER) {
            valueBuffer = new byte[grow(NativeHotStateCache.NEED_BUFFER - result)];
            result = cache.get(stateId, key, keyLength, valueBuffer);
        }
        if (result >= 0) {
            return deserialize(result);
        }
        if (result == NativeHotStateCache.ABSENT) {
            return defaultValueCopy();
        }
        // MISS or BYPASS: RocksDB has the truth, unless it never saw the key.
        int size = neverWritten(key, keyLength) ? -1 : readFromRocksDb(key, keyLength);
        if (result == NativeHotStateCache.MISS) {
            int code =
                    size < 0
                            ? cache.fill(stateId, key, keyLength, null, 0)
                            : cache.fill(stateId, key, keyLength, valueBuffer, size);
            manager.afterWrite(code);
        }
        return size < 0 ? defaultValueCopy() : deserialize(size);
    }

    @Override
    public void update(V value) throws IOException {
        if (value == null) {
            clear();
            return;
        }
        if (cacheSwitch.direct()) {
            if (writtenKeys != null) {
                writtenKeys.markStale(); // a write the filter does not see
            }
            rocksDbState.update(value);
            return;
        }
        int keyLength =
                keyBuilder.build(currentNamespace, namespaceSerializer, namespaceVariableSized);
        byte[] key = keyBuilder.buffer();
        try {
            valueOut.clear();
            valueSerializer.serialize(value, valueOut);
        } catch (IOException e) {
            throw new FlinkRuntimeException("[FALCON] cannot serialize the value", e);
        }
        int code =
                cache.put(stateId, key, keyLength, valueOut.getSharedBuffer(), valueOut.length());
        if ((code & NativeHotStateCache.WRITE_NOT_CACHED) != 0) {
            manager.checkKeyLength(stateId, keyLength);
            if (writtenKeys != null) {
                writtenKeys.add(key, keyLength);
            }
            try {
                db.put(
                        columnFamily,
                        writeOptions,
                        key,
                        0,
                        keyLength,
                        valueOut.getSharedBuffer(),
                        0,
                        valueOut.length());
            } catch (RocksDBException e) {
                throw new FlinkRuntimeException("Error while adding data to RocksDB", e);
            }
        }
        manager.afterWrite(code);
    }

    @Override
    public void clear() {
        if (cacheSwitch.direct()) {
            rocksDbState.clear();
            return;
        }
        int keyLength =
                keyBuilder.build(currentNamespace, namespaceSerializer, namespaceVariableSized);
        byte[] key = keyBuilder.buffer();
        int code = cache.remove(stateId, key, keyLength);
        if ((code & NativeHotStateCache.WRITE_NOT_CACHED) != 0) {
            manager.checkKeyLength(stateId, keyLength);
            try {
                db.delete(columnFamily, writeOptions, key, 0, keyLength);
            } catch (RocksDBException e) {
                throw new FlinkRuntimeException("Error while removing entry from RocksDB", e);
            }
        }
        manager.afterWrite(code);
    }

    // -- InternalKvState -------------------------------------------------------------------------

    @Override
    public void setCurrentNamespace(N namespace) {
        this.currentNamespace = namespace;
        rocksDbState.setCurrentNamespace(namespace);
    }

    @Override
    public TypeSerializer<K> getKeySerializer() {
        return rocksDbState.getKeySerializer();
    }

    @Override
    public TypeSerializer<N> getNamespaceSerializer() {
        return namespaceSerializer;
    }

    @Override
    public TypeSerializer<V> getValueSerializer() {
        return valueSerializer;
    }

    /**
     * Flink calls this from query-server threads for queryable states, which are never cached; for
     * a cached state only tests call it (possibly from several threads while the task thread
     * waits). It writes this state's dirty entries back, serialized among such callers, and reads
     * RocksDB through Flink's own state.
     */
    @Override
    public byte[] getSerializedValue(
            byte[] serializedKeyAndNamespace,
            TypeSerializer<K> safeKeySerializer,
            TypeSerializer<N> safeNamespaceSerializer,
            TypeSerializer<V> safeValueSerializer)
            throws Exception {
        synchronized (manager) {
            manager.flushStateId(stateId);
        }
        return rocksDbState.getSerializedValue(
                serializedKeyAndNamespace,
                safeKeySerializer,
                safeNamespaceSerializer,
                safeValueSerializer);
    }

    @Override
    public StateIncrementalVisitor<K, N, V> getStateIncrementalVisitor(
            int recommendedMaxNumberOfReturnedRecords) {
        return rocksDbState.getStateIncrementalVisitor(recommendedMaxNumberOfReturnedRecords);
    }

    // -- helpers
    // -----------------------------------------------------------------------------------

    /**
     * True when the column family cannot hold the key: the filter (built first if it must be; no
     * write-back is pending between two operations) has never seen it.
     */
    private boolean neverWritten(byte[] key, int keyLength) {
        if (writtenKeys == null) {
            return false;
        }
        if (writtenKeys.needsBuild()) {
            writtenKeys.build(db, columnFamily, WrittenKeyFilter.WHOLE_KEY);
        }
        return writtenKeys.knowsAbsent(key, keyLength);
    }

    /** Reads the raw value into {@link #valueBuffer}; returns its size or -1 when absent. */
    private int readFromRocksDb(byte[] key, int keyLength) {
        try {
            while (true) {
                int size =
                        db.get(columnFamily, key, 0, keyLength, valueBuffer, 0, valueBuffer.length);
                if (size == RocksDB.NOT_FOUND) {
                    return -1;
                }
                if (size <= valueBuffer.length) {
                    return size;
                }
                valueBuffer = new byte[grow(size)];
            }
        } catch (RocksDBException e) {
            throw new FlinkRuntimeException("Error while retrieving data from RocksDB.", e);
        }
    }

    private V deserialize(int size) {
        try {
            valueIn.setBuffer(valueBuffer, 0, size);
            return valueSerializer.deserialize(valueIn);
        } catch (IOException e) {
            throw new FlinkRuntimeException("Error while deserializing a cached value.", e);
        }
    }

    private V defaultValueCopy() {
        return defaultValue == null ? null : valueSerializer.copy(defaultValue);
    }

    private static int grow(int needed) {
        return Math.max(needed, 64) + (needed >> 1);
    }
}
