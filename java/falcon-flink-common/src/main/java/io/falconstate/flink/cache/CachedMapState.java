/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import io.falconstate.flink.nativeaccess.NativeHotStateCache;
import io.falconstate.flink.nativeaccess.NativeMapCache;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.MapSerializer;
import org.apache.flink.contrib.streaming.state.RocksIteratorWrapper;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.CompositeKeySerializationUtils;
import org.apache.flink.runtime.state.internal.InternalMapState;
import org.apache.flink.util.FlinkRuntimeException;

import java.io.IOException;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * A RocksDB {@code MapState} behind Falcon's write-back hot-state cache, one user map (key group +
 * key + namespace) at a time.
 *
 * <p>A cached map is complete: {@link #get}, {@link #contains}, {@link #isEmpty} and iteration read
 * the native cache only; {@link #put}, {@link #remove}, {@link #clear}, {@code Entry.setValue} and
 * {@code Iterator.remove} change it only (dirty records, tombstones), and dirty records reach
 * RocksDB as the very bytes Flink's {@code RocksDBMapState} writes (null flag, serialized value,
 * TTL timestamp included) when the map is evicted, before every snapshot, and before every
 * whole-state scan ({@link HotStateCacheManager}). The first read of a map that is not cached scans
 * its prefix in RocksDB once and loads it; a map over the cap ({@code
 * cache.map-state.max-bytes-per-map}) is not cached: get, contains, put and remove on it read or
 * write RocksDB with the key bytes the cache lookup serialized, iteration reads RocksDB in chunks,
 * isEmpty and clear go to Flink's own state. A write to a map that is not cached goes to RocksDB
 * too.
 *
 * <p>Semantics are {@code RocksDBMapState}'s: iteration in the unsigned byte order of the
 * serialized user keys, in chunks (a write during iteration never throws; a chunk shows what the
 * map holds when it is read), every value handed out freshly deserialized (an entry keeps the value
 * it deserialized, as stock does), null values kept, {@code next()} past the end returns null as
 * stock's iterator does.
 *
 * <p>A map that was never written is loaded empty without a RocksDB seek when the state's {@link
 * WrittenKeyFilter} has not seen its prefix (a join probing the other side for keys it never had).
 *
 * <p>A state whose cache does not pay goes straight to Flink's own RocksDB state for a while
 * ({@link CacheSwitch}): then every call is one counter and a delegation.
 *
 * <p>Not thread-safe: the task thread. Queryable states are never wrapped.
 */
public final class CachedMapState<K, N, UK, UV>
        implements InternalMapState<K, N, UK, UV>, CachedState {

    private final HotStateCacheManager<K> manager;

    private final NativeMapCache maps;
    private final CacheKeyBuilder<K> keyBuilder;
    private final InternalMapState<K, N, UK, UV> rocksDbState;
    private final int stateId;
    private final StateColumnFamily column;
    private final long maxMapBytes;
    private final CacheSwitch cacheSwitch;

    /** Where a stored key's map prefix ends: for the filter's scans of the column family. */
    private final MapKeyPrefix mapPrefix;

    /** Reads maps that miss from RocksDB into the cache. */
    private final MapStateLoader loader;

    private TypeSerializer<N> namespaceSerializer;
    private boolean namespaceVariableSized;
    private TypeSerializer<UK> userKeySerializer;
    private TypeSerializer<UV> userValueSerializer;

    private N currentNamespace;
    private final DataOutputSerializer keyOut = new DataOutputSerializer(64);
    private final DataOutputSerializer valueOut = new DataOutputSerializer(128);
    private final DataInputDeserializer valueIn = new DataInputDeserializer();
    private final ValueBuffer valueBuffer = new ValueBuffer(128);
    private byte[] rawKey = new byte[128];

    /** Shared by this state's iterators: a chunk is copied into entries as soon as it is read. */
    private final NativeMapCache.ScanChunk chunk = new NativeMapCache.ScanChunk(64 << 10);

    CachedMapState(
            HotStateCacheManager<K> manager,
            int stateId,
            InternalMapState<K, N, UK, UV> rocksDbState,
            StateColumnFamily column,
            MapKeyPrefix mapPrefix,
            long maxMapBytes,
            CacheSwitch cacheSwitch) {
        this.manager = manager;
        this.cacheSwitch = cacheSwitch;
        this.column = column;
        this.mapPrefix = mapPrefix;
        this.maps = manager.maps();
        this.keyBuilder = manager.keyBuilder();
        this.stateId = stateId;
        this.rocksDbState = rocksDbState;
        this.maxMapBytes = maxMapBytes;
        this.loader = new MapStateLoader(manager, stateId, maxMapBytes, column);
        refresh();
    }

    /**
     * After a re-registration: the RocksDB state may have new serializers, and its column family a
     * new handle (the reused load iterator is closed).
     */
    void refresh() {
        loader.closeIterator();
        this.namespaceSerializer = rocksDbState.getNamespaceSerializer();
        this.namespaceVariableSized =
                CompositeKeySerializationUtils.isSerializerTypeVariableSized(namespaceSerializer);
        mapPrefix.setNamespaceSerializer(namespaceSerializer);
        MapSerializer<UK, UV> mapSerializer =
                (MapSerializer<UK, UV>) rocksDbState.getValueSerializer();
        this.userKeySerializer = mapSerializer.getKeySerializer();
        this.userValueSerializer = mapSerializer.getValueSerializer();
    }

    @Override
    public int stateId() {
        return stateId;
    }

    @Override
    public InternalMapState<K, N, UK, UV> rocksDbState() {
        return rocksDbState;
    }

    @Override
    public boolean isMap() {
        return true;
    }

    // --- MapState ---

    @Override
    public UV get(UK userKey) throws Exception {
        if (cacheSwitch.direct()) {
            return rocksDbState.get(userKey);
        }
        int prefixLength = prefix();
        int keyLength = serializeUserKey(userKey);
        int result = lookUp(prefixLength, keyLength);
        if (result == NativeMapCache.ABSENT) {
            return null;
        }
        if (result < 0) {
            result = readThrough(prefixLength, keyLength, result);
        }
        return result >= 0 ? deserializeValue(valueBuffer.bytes(), 0, result) : null;
    }

    @Override
    public boolean contains(UK userKey) throws Exception {
        if (cacheSwitch.direct()) {
            return rocksDbState.contains(userKey);
        }
        int prefixLength = prefix();
        int keyLength = serializeUserKey(userKey);
        int result = lookUp(prefixLength, keyLength);
        if (result >= 0) {
            return true;
        }
        return result != NativeMapCache.ABSENT && readThrough(prefixLength, keyLength, result) >= 0;
    }

    @Override
    public void put(UK userKey, UV userValue) throws Exception {
        if (cacheSwitch.direct()) {
            column.markFilterStale();
            rocksDbState.put(userKey, userValue);
            return;
        }
        int prefixLength = prefix();
        int keyLength = serializeUserKey(userKey);
        int valueLength = serializeValue(userValue);
        int code = putCached(prefixLength, keyLength, valueLength);
        // A map that is not cached is written in RocksDB, not loaded first: a load (a seek and
        // a scan) costs more than the write it would save.
        if ((code & NativeHotStateCache.WRITE_NOT_CACHED) != 0) {
            writeThrough(prefixLength, keyLength, valueLength);
        }
    }

    /**
     * Reads the serialized user key of the current map, which is not cached, from RocksDB into
     * {@link #valueBuffer}: its length, or -1 when RocksDB has no such key. The key is the one the
     * cache lookup serialized: one serialization per operation, as stock. A map over the cap
     * ({@code lookup} {@link NativeMapCache#OVERSIZED}) keeps the answer in its partial body.
     */
    private int readThrough(int prefixLength, int keyLength, int lookup) {
        int length = rawKey(prefixLength, keyLength); // may replace rawKey: first
        int result = column.get(rawKey, length, valueBuffer);
        if (lookup == NativeMapCache.OVERSIZED) {
            manager.afterWrite(
                    maps.fill(
                            stateId,
                            keyBuilder.buffer(),
                            prefixLength,
                            keyOut.getSharedBuffer(),
                            keyLength,
                            result >= 0 ? valueBuffer.bytes() : null,
                            Math.max(result, 0),
                            maxMapBytes));
        }
        return result;
    }

    /** Copies the current map's prefix and the serialized user key into {@link #rawKey}. */
    private int rawKey(int prefixLength, int keyLength) {
        int length = prefixLength + keyLength;
        if (rawKey.length < length) {
            rawKey = new byte[Math.max(length, 2 * rawKey.length)];
        }
        System.arraycopy(keyBuilder.buffer(), 0, rawKey, 0, prefixLength);
        System.arraycopy(keyOut.getSharedBuffer(), 0, rawKey, prefixLength, keyLength);
        return length;
    }

    /**
     * Writes the serialized user key and value of the current map into RocksDB, or deletes the key
     * ({@code valueLength < 0}): the bytes {@code RocksDBMapState} would write, serialized once.
     */
    private void writeThrough(int prefixLength, int keyLength, int valueLength) {
        int length = rawKey(prefixLength, keyLength);
        if (valueLength < 0) {
            column.delete(rawKey, length);
        } else {
            column.put(rawKey, length, prefixLength, valueOut.getSharedBuffer(), valueLength);
        }
    }

    /** Puts the serialized key and value into the current map if cached; returns the bits. */
    private int putCached(int prefixLength, int keyLength, int valueLength) {
        int code =
                maps.put(
                        stateId,
                        keyBuilder.buffer(),
                        prefixLength,
                        keyOut.getSharedBuffer(),
                        keyLength,
                        valueOut.getSharedBuffer(),
                        valueLength,
                        maxMapBytes);
        manager.afterWrite(code);
        return code;
    }

    @Override
    public void putAll(Map<UK, UV> map) throws Exception {
        if (map == null) {
            return;
        }
        for (Map.Entry<UK, UV> entry : map.entrySet()) {
            put(entry.getKey(), entry.getValue());
        }
    }

    @Override
    public void remove(UK userKey) throws Exception {
        if (cacheSwitch.direct()) {
            rocksDbState.remove(userKey);
            return;
        }
        int prefixLength = prefix();
        int keyLength = serializeUserKey(userKey);
        int code = removeCached(prefixLength, keyLength);
        if ((code & NativeHotStateCache.WRITE_NOT_CACHED) != 0) {
            writeThrough(prefixLength, keyLength, -1);
        }
    }

    private int removeCached(int prefixLength, int keyLength) {
        int code =
                maps.remove(
                        stateId,
                        keyBuilder.buffer(),
                        prefixLength,
                        keyOut.getSharedBuffer(),
                        keyLength);
        manager.afterWrite(code);
        return code;
    }

    @Override
    public boolean isEmpty() throws Exception {
        if (cacheSwitch.direct()) {
            return rocksDbState.isEmpty();
        }
        int prefixLength = prefix();
        int result = maps.isEmpty(stateId, keyBuilder.buffer(), prefixLength);
        if (result == NativeMapCache.MISS && load(keyBuilder.buffer(), prefixLength)) {
            result = maps.isEmpty(stateId, keyBuilder.buffer(), prefixLength);
        }
        if (result == NativeMapCache.OVERSIZED) {
            writeBackPartial(keyBuilder.buffer(), prefixLength);
        }
        return result >= 0 ? result == 1 : rocksDbState.isEmpty();
    }

    @Override
    public void clear() {
        if (cacheSwitch.direct()) {
            rocksDbState.clear();
            return;
        }
        int prefixLength = prefix();
        byte[] prefix = Arrays.copyOf(keyBuilder.buffer(), prefixLength);
        int code = maps.clear(stateId, prefix, prefixLength);
        manager.afterWrite(code);
        if ((code & NativeHotStateCache.WRITE_NOT_CACHED) != 0) {
            rocksDbState.clear();
            // Known empty from here: cache it so the next read skips RocksDB.
            loader.cacheEmpty(prefix);
        }
    }

    @Override
    public Iterable<Map.Entry<UK, UV>> entries() {
        return this::iterator;
    }

    @Override
    public Iterable<UK> keys() {
        return () ->
                cacheSwitch.direct()
                        ? fromRocksDb(rocksDbState::keys)
                        : new CachedMapIterator<>(this, copyPrefix(), Map.Entry::getKey);
    }

    @Override
    public Iterable<UV> values() {
        return () ->
                cacheSwitch.direct()
                        ? fromRocksDb(rocksDbState::values)
                        : new CachedMapIterator<>(this, copyPrefix(), Map.Entry::getValue);
    }

    @Override
    public Iterator<Map.Entry<UK, UV>> iterator() {
        return cacheSwitch.direct()
                ? fromRocksDb(rocksDbState::entries)
                : new CachedMapIterator<>(this, copyPrefix(), entry -> entry);
    }

    /** Flink's own iteration of the current map (the state is switched to RocksDB). */
    private static <T> Iterator<T> fromRocksDb(Callable<Iterable<T>> iterable) {
        try {
            return iterable.call().iterator();
        } catch (Exception e) {
            throw new FlinkRuntimeException("Error while iterating a map in RocksDB.", e);
        }
    }

    // --- what the iterators use ---

    /** The chunk of packed records of the last scan; shared by this state's iterators. */
    NativeMapCache.ScanChunk chunk() {
        return chunk;
    }

    /** The next chunk of a cached map after {@code after} (or from its start), or a code. */
    int scan(byte[] prefix, byte[] after, int afterLength, boolean first) {
        return maps.scan(stateId, prefix, prefix.length, after, afterLength, first, chunk);
    }

    /**
     * A map over the cap, about to be read in RocksDB: its partial body's dirty records go there
     * first, so RocksDB holds the whole map.
     */
    void writeBackPartial(byte[] prefix, int prefixLength) {
        manager.afterWrite(maps.writeBackPartial(stateId, prefix, prefixLength));
    }

    /** A RocksDB iterator with Flink's read options over this state's column family. */
    RocksIteratorWrapper rocksIterator() {
        return column.newIteratorWrapper();
    }

    // --- InternalKvState ---

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
    public TypeSerializer<Map<UK, UV>> getValueSerializer() {
        return rocksDbState.getValueSerializer();
    }

    /** As {@link CachedValueState#getSerializedValue}: this state's dirty records first. */
    @Override
    public byte[] getSerializedValue(
            byte[] serializedKeyAndNamespace,
            TypeSerializer<K> safeKeySerializer,
            TypeSerializer<N> safeNamespaceSerializer,
            TypeSerializer<Map<UK, UV>> safeValueSerializer)
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
    public StateIncrementalVisitor<K, N, Map<UK, UV>> getStateIncrementalVisitor(
            int recommendedMaxNumberOfReturnedRecords) {
        return rocksDbState.getStateIncrementalVisitor(recommendedMaxNumberOfReturnedRecords);
    }

    // --- the cache ---

    /** The current map's prefix in the key builder's buffer; returns its length. */
    private int prefix() {
        return keyBuilder.build(currentNamespace, namespaceSerializer, namespaceVariableSized);
    }

    private byte[] copyPrefix() {
        int length = prefix();
        return Arrays.copyOf(keyBuilder.buffer(), length);
    }

    /**
     * The value of the serialized user key in the current map: its length (bytes in {@link
     * #valueBuffer}), {@link NativeMapCache#ABSENT}, or another code (RocksDB answers). A miss
     * loads the map and answers from it in the same native call.
     */
    private int lookUp(int prefixLength, int keyLength) {
        byte[] prefix = keyBuilder.buffer();
        byte[] key = keyOut.getSharedBuffer();
        int result = maps.get(stateId, prefix, prefixLength, key, keyLength, valueBuffer.bytes());
        if (result == NativeMapCache.MISS && !cacheSwitch.isDirect()) {
            result = loader.loadAndGet(prefix, prefixLength, key, keyLength, valueBuffer);
        }
        if (result <= NativeMapCache.NEED_BUFFER) {
            valueBuffer.grow(NativeMapCache.NEED_BUFFER - result);
            result = maps.get(stateId, prefix, prefixLength, key, keyLength, valueBuffer.bytes());
        }
        return result;
    }

    /**
     * Reads the whole map under {@code prefix} from RocksDB and caches it. Stops reading once the
     * map is over the cap (the cache then keeps a partial body). True when it is cached.
     */
    boolean load(byte[] prefixBuffer, int prefixLength) {
        if (cacheSwitch.isDirect()) {
            return false; // an iterator from before the switch: RocksDB holds the truth
        }
        return loader.load(prefixBuffer, prefixLength);
    }

    /** Closes the reused load iterator, if any (idempotent): at every flush point and release. */
    @Override
    public void closeIterators() {
        loader.closeIterator();
    }

    private int serializeUserKey(UK userKey) {
        try {
            keyOut.clear();
            userKeySerializer.serialize(userKey, keyOut);
            return keyOut.length();
        } catch (IOException e) {
            throw new FlinkRuntimeException("[FALCON] cannot serialize the user key", e);
        }
    }

    /** As this minor's {@code RocksDBMapState}: a null flag, then the serialized value. */
    private int serializeValue(UV value) {
        try {
            valueOut.clear();
            valueOut.writeBoolean(value == null);
            if (value != null || StockMapValueFormat.SERIALIZES_NULL_VALUES) {
                userValueSerializer.serialize(value, valueOut);
            }
            return valueOut.length();
        } catch (IOException e) {
            throw new FlinkRuntimeException("[FALCON] cannot serialize the user value", e);
        }
    }

    UV deserializeValue(byte[] bytes, int offset, int length) {
        try {
            valueIn.setBuffer(bytes, offset, length);
            return valueIn.readBoolean() ? null : userValueSerializer.deserialize(valueIn);
        } catch (IOException e) {
            throw new FlinkRuntimeException("Error while deserializing the user value.", e);
        }
    }

    UK deserializeKey(byte[] bytes, int offset, int length) {
        try {
            DataInputDeserializer in = new DataInputDeserializer(bytes, offset, length);
            return userKeySerializer.deserialize(in);
        } catch (IOException e) {
            throw new FlinkRuntimeException("Error while deserializing the user key.", e);
        }
    }

    // --- writes of one entry of a given map (iterators) ---

    void putRaw(byte[] prefix, byte[] userKey, UV value) throws Exception {
        int valueLength = serializeValue(value);
        int code =
                cacheSwitch.direct()
                        ? NativeHotStateCache.WRITE_NOT_CACHED
                        : maps.put(
                                stateId,
                                prefix,
                                prefix.length,
                                userKey,
                                userKey.length,
                                valueOut.getSharedBuffer(),
                                valueLength,
                                maxMapBytes);
        manager.afterWrite(code);
        if ((code & NativeHotStateCache.WRITE_NOT_CACHED) != 0) {
            byte[] key = MapRecordBytes.concat(prefix, userKey);
            column.put(key, key.length, prefix.length, valueOut.getSharedBuffer(), valueLength);
        }
    }

    void removeRaw(byte[] prefix, byte[] userKey) throws Exception {
        int code =
                cacheSwitch.direct()
                        ? NativeHotStateCache.WRITE_NOT_CACHED
                        : maps.remove(stateId, prefix, prefix.length, userKey, userKey.length);
        manager.afterWrite(code);
        if ((code & NativeHotStateCache.WRITE_NOT_CACHED) != 0) {
            byte[] key = MapRecordBytes.concat(prefix, userKey);
            column.delete(key, key.length);
        }
    }
}
