/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import io.falconstate.flink.nativeaccess.NativeHotStateCache;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.ListSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.CompositeKeySerializationUtils;
import org.apache.flink.runtime.state.internal.InternalListState;
import org.apache.flink.util.FlinkRuntimeException;
import org.apache.flink.util.Preconditions;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * A RocksDB {@code ListState} behind Falcon's write-back hot-state cache, a whole list at a time.
 *
 * <p>A list is one RocksDB value: its elements, serialized by the element serializer, joined by
 * {@link #DELIMITER} -- what Flink's {@code RocksDBListState} merges together, so the cache holds
 * and writes back exactly the bytes stock RocksDB would return for the key. A cached entry is the
 * complete list, or "known absent".
 *
 * <ul>
 *   <li>{@link #add}/{@link #addAll}: a cached list is appended to in the cache (dirty). A list the
 *       cache does not hold is merged into RocksDB, as stock does, without reading it -- unless
 *       RocksDB has never had the key (the written-key filter): the elements are then the whole
 *       list, and are cached. A list that would grow past {@code
 *       cache.list-state.max-bytes-per-list} or what the cache may hold leaves it (written back
 *       first) and the add is merged after it.
 *   <li>{@link #get}: a cached list is read from the cache; a miss reads RocksDB (the merged list)
 *       once and caches it.
 *   <li>{@link #update}/{@link #clear}: a put or a tombstone in the cache, as for a ValueState.
 * </ul>
 *
 * <p>Dirty lists reach RocksDB as one put (or delete) when they are evicted, before every snapshot
 * and before every whole-state scan ({@link HotStateCacheManager}), so a snapshot holds the same
 * lists as stock's and restores on stock.
 *
 * <p>A state whose cache does not pay goes straight to Flink's own RocksDB state for a while
 * ({@link CacheSwitch}).
 *
 * <p>Not thread-safe: the task thread uses it. Queryable states are never wrapped.
 */
public final class CachedListState<K, N, V> implements InternalListState<K, N, V>, CachedState {

    /** What RocksDB's list merge operator (and Flink's list serialization) joins elements with. */
    static final byte DELIMITER = ',';

    private final HotStateCacheManager<K> manager;
    private final NativeHotStateCache cache;
    private final CacheKeyBuilder<K> keyBuilder;
    private final InternalListState<K, N, V> rocksDbState;
    private final int stateId;
    private final StateColumnFamily column;
    private final WholeKeyAccess access;
    private final CacheSwitch cacheSwitch;
    private final int maxListBytes;

    private TypeSerializer<N> namespaceSerializer;
    private boolean namespaceVariableSized;
    private TypeSerializer<V> elementSerializer;

    private N currentNamespace;
    private final ValueBuffer valueBuffer = new ValueBuffer(256);
    private final DataInputDeserializer valueIn = new DataInputDeserializer();
    private final DataOutputSerializer valueOut = new DataOutputSerializer(128);

    CachedListState(
            HotStateCacheManager<K> manager,
            int stateId,
            InternalListState<K, N, V> rocksDbState,
            StateColumnFamily column,
            CacheSwitch cacheSwitch) {
        this.manager = manager;
        this.maxListBytes = manager.settings().maxBytesPerList();
        this.cacheSwitch = cacheSwitch;
        this.column = column;
        this.access = new WholeKeyAccess(manager, stateId, column);
        this.cache = manager.cache();
        this.keyBuilder = manager.keyBuilder();
        this.stateId = stateId;
        this.rocksDbState = rocksDbState;
        refresh();
    }

    /** After a re-registration: the RocksDB state may have new serializers. */
    void refresh() {
        this.namespaceSerializer = rocksDbState.getNamespaceSerializer();
        this.namespaceVariableSized =
                CompositeKeySerializationUtils.isSerializerTypeVariableSized(namespaceSerializer);
        this.elementSerializer =
                ((ListSerializer<V>) rocksDbState.getValueSerializer()).getElementSerializer();
    }

    @Override
    public int stateId() {
        return stateId;
    }

    @Override
    public InternalListState<K, N, V> rocksDbState() {
        return rocksDbState;
    }

    @Override
    public boolean isMap() {
        return false;
    }

    @Override
    public void closeIterators() {}

    // -- ListState -------------------------------------------------------------------------------

    @Override
    public Iterable<V> get() throws Exception {
        return getInternal();
    }

    @Override
    public List<V> getInternal() throws Exception {
        if (cacheSwitch.direct()) {
            return rocksDbState.getInternal();
        }
        int keyLength = buildKey();
        int size = access.read(keyBuilder.buffer(), keyLength, valueBuffer);
        return size < 0 ? null : deserializeList(size);
    }

    @Override
    public void add(V value) throws Exception {
        Preconditions.checkNotNull(value, "You cannot add null to a ListState.");
        if (cacheSwitch.direct()) {
            column.markFilterStale();
            rocksDbState.add(value);
            return;
        }
        int keyLength = buildKey();
        valueOut.clear();
        try {
            elementSerializer.serialize(value, valueOut);
        } catch (IOException e) {
            throw new FlinkRuntimeException("[FALCON] cannot serialize a list element", e);
        }
        append(keyBuilder.buffer(), keyLength, valueOut.getSharedBuffer(), valueOut.length());
    }

    @Override
    public void addAll(List<V> values) throws Exception {
        Preconditions.checkNotNull(values, "List of values to add cannot be null.");
        if (values.isEmpty()) {
            return;
        }
        if (cacheSwitch.direct()) {
            column.markFilterStale();
            rocksDbState.addAll(values);
            return;
        }
        serializeList(values);
        int keyLength = buildKey();
        append(keyBuilder.buffer(), keyLength, valueOut.getSharedBuffer(), valueOut.length());
    }

    @Override
    public void update(List<V> values) throws Exception {
        updateInternal(values);
    }

    @Override
    public void updateInternal(List<V> values) throws Exception {
        Preconditions.checkNotNull(values, "List of values to add cannot be null.");
        if (values.isEmpty()) {
            clear();
            return;
        }
        if (cacheSwitch.direct()) {
            column.markFilterStale();
            rocksDbState.updateInternal(values);
            return;
        }
        serializeList(values);
        int keyLength = buildKey();
        access.put(keyBuilder.buffer(), keyLength, valueOut.getSharedBuffer(), valueOut.length());
    }

    @Override
    public void clear() {
        if (cacheSwitch.direct()) {
            rocksDbState.clear();
            return;
        }
        int keyLength = buildKey();
        access.remove(keyBuilder.buffer(), keyLength);
    }

    /**
     * As stock: each source's list is appended to the target's and the source cleared; the current
     * namespace is left at the last source, as stock leaves it.
     */
    @Override
    public void mergeNamespaces(N target, Collection<N> sources) throws Exception {
        if (sources == null || sources.isEmpty()) {
            return;
        }
        if (cacheSwitch.direct()) {
            column.markFilterStale();
            rocksDbState.mergeNamespaces(target, sources);
            return;
        }
        setCurrentNamespace(target);
        int targetLength = buildKey(); // first: building may replace the buffer
        byte[] targetKey = Arrays.copyOf(keyBuilder.buffer(), targetLength);
        for (N source : sources) {
            if (source == null) {
                continue;
            }
            setCurrentNamespace(source);
            int keyLength = buildKey();
            byte[] sourceKey = keyBuilder.buffer();
            int size = access.read(sourceKey, keyLength, valueBuffer);
            if (size >= 0) {
                access.remove(sourceKey, keyLength);
                append(targetKey, targetKey.length, valueBuffer.bytes(), size);
            }
        }
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
    public TypeSerializer<List<V>> getValueSerializer() {
        return rocksDbState.getValueSerializer();
    }

    /**
     * Flink calls this from query-server threads for queryable states, which are never cached; for
     * a cached state only tests call it. It writes this state's dirty entries back, serialized
     * among such callers, and reads RocksDB through Flink's own state.
     */
    @Override
    public byte[] getSerializedValue(
            byte[] serializedKeyAndNamespace,
            TypeSerializer<K> safeKeySerializer,
            TypeSerializer<N> safeNamespaceSerializer,
            TypeSerializer<List<V>> safeValueSerializer)
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
    public StateIncrementalVisitor<K, N, List<V>> getStateIncrementalVisitor(
            int recommendedMaxNumberOfReturnedRecords) {
        return rocksDbState.getStateIncrementalVisitor(recommendedMaxNumberOfReturnedRecords);
    }

    // --- the cache and RocksDB ---

    private int buildKey() {
        return keyBuilder.build(currentNamespace, namespaceSerializer, namespaceVariableSized);
    }

    /** Appends serialized elements (joined by the delimiter) to the list of the key. */
    private void append(byte[] key, int keyLength, byte[] elements, int length) {
        int code = cache.append(stateId, key, keyLength, elements, length, DELIMITER, maxListBytes);
        // A list that just left the cache reaches RocksDB here, before the merge below.
        manager.afterWrite(code);
        if ((code & NativeHotStateCache.WRITE_NOT_CACHED) == 0) {
            return;
        }
        if (!column.neverWritten(key, keyLength)) {
            column.merge(key, keyLength, elements, length);
            return;
        }
        // Nowhere yet: the elements are the whole list.
        access.put(key, keyLength, elements, length);
    }

    /** Serializes {@code values} into {@link #valueOut}, joined by the delimiter, as stock does. */
    private void serializeList(List<V> values) {
        valueOut.clear();
        try {
            boolean first = true;
            for (V value : values) {
                Preconditions.checkNotNull(value, "You cannot add null to a value list.");
                if (!first) {
                    valueOut.write(DELIMITER);
                }
                first = false;
                elementSerializer.serialize(value, valueOut);
            }
        } catch (IOException e) {
            throw new FlinkRuntimeException("[FALCON] cannot serialize a list", e);
        }
    }

    private List<V> deserializeList(int size) {
        valueIn.setBuffer(valueBuffer.bytes(), 0, size);
        List<V> result = new ArrayList<>();
        try {
            while (valueIn.available() > 0) {
                result.add(elementSerializer.deserialize(valueIn));
                if (valueIn.available() > 0) {
                    valueIn.readByte();
                }
            }
        } catch (IOException e) {
            throw new FlinkRuntimeException("Error while deserializing a cached list.", e);
        }
        return result;
    }
}
