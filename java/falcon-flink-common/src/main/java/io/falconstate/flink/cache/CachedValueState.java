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

import java.io.IOException;

/**
 * A RocksDB {@code ValueState} behind Falcon's write-back hot-state cache.
 *
 * <p>Keys and values are exactly the bytes RocksDB stores for this state (TTL timestamp included
 * when the state has a TTL: the TTL wrapper sits above this class), so the cache's write-back is a
 * raw put or delete. {@link #value()} reads the cache; on a miss it reads RocksDB once through the
 * state's {@link StateColumnFamily} and fills the cache. {@link #update} and {@link #clear()} write
 * the cache only (dirty); dirty entries reach RocksDB when they are evicted, before every snapshot,
 * and before every whole-state scan ({@link HotStateCacheManager}).
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
public final class CachedValueState<K, N, V> implements InternalValueState<K, N, V>, CachedState {

    private final HotStateCacheManager<K> manager;
    private final CacheKeyBuilder<K> keyBuilder;
    private final InternalValueState<K, N, V> rocksDbState;
    private final int stateId;
    private final StateColumnFamily column;
    private final WholeKeyAccess access;
    private final CacheSwitch cacheSwitch;

    private TypeSerializer<N> namespaceSerializer;
    private boolean namespaceVariableSized;
    private TypeSerializer<V> valueSerializer;
    private V defaultValue;

    private N currentNamespace;
    private final ValueBuffer valueBuffer = new ValueBuffer(128);
    private final DataInputDeserializer valueIn = new DataInputDeserializer();
    private final DataOutputSerializer valueOut = new DataOutputSerializer(128);

    CachedValueState(
            HotStateCacheManager<K> manager,
            int stateId,
            InternalValueState<K, N, V> rocksDbState,
            StateColumnFamily column,
            V defaultValue,
            CacheSwitch cacheSwitch) {
        this.manager = manager;
        this.cacheSwitch = cacheSwitch;
        this.column = column;
        this.access = new WholeKeyAccess(manager, stateId, column);
        this.keyBuilder = manager.keyBuilder();
        this.stateId = stateId;
        this.rocksDbState = rocksDbState;
        refresh(defaultValue);
    }

    /** After a re-registration: the RocksDB state may have new serializers and default value. */
    void refresh(V defaultValue) {
        this.namespaceSerializer = rocksDbState.getNamespaceSerializer();
        this.namespaceVariableSized =
                CompositeKeySerializationUtils.isSerializerTypeVariableSized(namespaceSerializer);
        this.valueSerializer = rocksDbState.getValueSerializer();
        this.defaultValue = defaultValue;
    }

    @Override
    public int stateId() {
        return stateId;
    }

    @Override
    public InternalValueState<K, N, V> rocksDbState() {
        return rocksDbState;
    }

    @Override
    public boolean isMap() {
        return false;
    }

    @Override
    public void closeIterators() {}

    // -- ValueState ------------------------------------------------------------------------------

    @Override
    public V value() throws IOException {
        if (cacheSwitch.direct()) {
            return rocksDbState.value();
        }
        int keyLength =
                keyBuilder.build(currentNamespace, namespaceSerializer, namespaceVariableSized);
        int size = access.read(keyBuilder.buffer(), keyLength, valueBuffer);
        return size < 0 ? defaultValueCopy() : deserialize(size);
    }

    @Override
    public void update(V value) throws IOException {
        if (value == null) {
            clear();
            return;
        }
        if (cacheSwitch.direct()) {
            column.markFilterStale();
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
        access.put(key, keyLength, valueOut.getSharedBuffer(), valueOut.length());
    }

    @Override
    public void clear() {
        if (cacheSwitch.direct()) {
            rocksDbState.clear();
            return;
        }
        int keyLength =
                keyBuilder.build(currentNamespace, namespaceSerializer, namespaceVariableSized);
        access.remove(keyBuilder.buffer(), keyLength);
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

    // --- helpers ---

    private V deserialize(int size) {
        try {
            valueIn.setBuffer(valueBuffer.bytes(), 0, size);
            return valueSerializer.deserialize(valueIn);
        } catch (IOException e) {
            throw new FlinkRuntimeException("Error while deserializing a cached value.", e);
        }
    }

    private V defaultValueCopy() {
        return defaultValue == null ? null : valueSerializer.copy(defaultValue);
    }
}
