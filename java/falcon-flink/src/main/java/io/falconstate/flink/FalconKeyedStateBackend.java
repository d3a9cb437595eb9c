/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import io.falconstate.flink.cache.CacheQuota;
import io.falconstate.flink.cache.HotStateCacheManager;
import io.falconstate.flink.tuning.ColumnFamilyTuner;
import io.falconstate.flink.tuning.HashColumnFamilyFlushHook;

import org.apache.flink.api.common.state.State;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.contrib.streaming.state.RocksDBKeyedStateBackend;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.SnapshotType;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.KeyGroupedInternalPriorityQueue;
import org.apache.flink.runtime.state.Keyed;
import org.apache.flink.runtime.state.KeyedStateFunction;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.PriorityComparable;
import org.apache.flink.runtime.state.SavepointResources;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.StateSnapshotTransformer.StateSnapshotTransformFactory;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueElement;
import org.apache.flink.runtime.state.internal.InternalValueState;
import org.apache.flink.util.FlinkRuntimeException;

import javax.annotation.Nonnull;
import javax.annotation.Nullable;

import java.io.IOException;
import java.util.concurrent.RunnableFuture;
import java.util.stream.Stream;

/**
 * Falcon's keyed state backend: Flink's {@link RocksDBKeyedStateBackend} behind a seam.
 *
 * <p>Built with {@link AbstractKeyedStateBackend}'s copy constructor from the inner backend, so
 * both share the key context, the state-by-name map, the key-selection listeners and the latency
 * and TTL settings; Flink sees an {@link AbstractKeyedStateBackend} (which heap timers, the
 * changelog backend and the State Processor API require). Everything is delegated; the seam
 * intercepts:
 *
 * <ul>
 *   <li>{@link #createOrUpdateInternalState}: records the state's kind and serializers in the
 *       {@link StateRegistry} (before RocksDB creates the column family, so the per-state options
 *       function can read it); a re-registration first calls {@link
 *       CacheFlushHook#flushAndDropState}. The inner state is returned as is in this version.
 *   <li>{@link #snapshot}, {@link #savepoint()}, {@link #numKeyValueStateEntries()}: {@link
 *       CacheFlushHook#flushAll()} first, on the calling task thread.
 *   <li>{@link #getKeys}, {@link #getKeysAndNamespaces}, {@link #applyToAllKeys}: {@link
 *       CacheFlushHook#flushState} first.
 *   <li>{@link #dispose()}: {@link CacheFlushHook#release()}, then the inner backend.
 * </ul>
 *
 * <p>Not thread-safe, like every keyed backend: the task thread drives it.
 */
public class FalconKeyedStateBackend<K> extends AbstractKeyedStateBackend<K> {

    private final RocksDBKeyedStateBackend<K> rocksDb;
    private final StateRegistry registry;
    private final CacheFlushHook flushHook;
    @Nullable private final HotStateCacheManager<K> cache;
    /** The column-family tuning (it comes with its flush hook); null when tuning is off. */
    @Nullable private final ColumnFamilyTuner tuner;

    FalconKeyedStateBackend(
            RocksDBKeyedStateBackend<K> rocksDb, StateRegistry registry, CacheFlushHook flushHook) {
        this(rocksDb, registry, flushHook, null);
    }

    /**
     * With {@code cache} non-null, non-queryable ValueStates are served through it; {@code
     * flushHook} must then flush it (it is the cache itself, or a hook that calls it first).
     */
    FalconKeyedStateBackend(
            RocksDBKeyedStateBackend<K> rocksDb,
            StateRegistry registry,
            CacheFlushHook flushHook,
            @Nullable HotStateCacheManager<K> cache) {
        super(rocksDb);
        this.rocksDb = rocksDb;
        this.registry = registry;
        this.flushHook = flushHook;
        this.cache = cache;
        this.tuner =
                flushHook instanceof HashColumnFamilyFlushHook
                        ? ((HashColumnFamilyFlushHook) flushHook).tuner()
                        : null;
    }

    /** The hot-state cache of this backend; null when the cache is off. */
    @Nullable
    public HotStateCacheManager<K> getHotStateCache() {
        return cache;
    }

    /** The RocksDB keyed backend this one fronts. */
    public RocksDBKeyedStateBackend<K> getRocksDBKeyedStateBackend() {
        return rocksDb;
    }

    /** The states registered through this backend. */
    public StateRegistry getStateRegistry() {
        return registry;
    }

    public CacheFlushHook getFlushHook() {
        return flushHook;
    }

    // -- state creation -----------------------------------------------------------------------

    @Nonnull
    @Override
    public <N, SV, SEV, S extends State, IS extends S> IS createOrUpdateInternalState(
            @Nonnull TypeSerializer<N> namespaceSerializer,
            @Nonnull StateDescriptor<S, SV> stateDesc,
            @Nonnull StateSnapshotTransformFactory<SEV> snapshotTransformFactory)
            throws Exception {
        return createOrUpdateInternalState(
                namespaceSerializer, stateDesc, snapshotTransformFactory, false);
    }

    @Nonnull
    @Override
    public <N, SV, SEV, S extends State, IS extends S> IS createOrUpdateInternalState(
            @Nonnull TypeSerializer<N> namespaceSerializer,
            @Nonnull StateDescriptor<S, SV> stateDesc,
            @Nonnull StateSnapshotTransformFactory<SEV> snapshotTransformFactory,
            boolean allowFutureMetadataUpdates)
            throws Exception {
        String name = stateDesc.getName();
        if (registry.contains(name)) {
            // Re-registration may migrate every stored value: RocksDB must hold them all.
            flushHook.flushAndDropState(name);
        }
        StateRegistry.RegisteredState previous = registry.record(namespaceSerializer, stateDesc);
        try {
            IS state =
                    rocksDb.createOrUpdateInternalState(
                            namespaceSerializer,
                            stateDesc,
                            snapshotTransformFactory,
                            allowFutureMetadataUpdates);
            // A hash column family takes keys of one length only: the serializers must build
            // exactly that (throws naming the state otherwise). Once per registration.
            int requiredKeyLength =
                    tuner == null
                            ? -1
                            : tuner.checkRegistration(
                                    name, rocksDb.getKeySerializer(), namespaceSerializer);
            return maybeCached(stateDesc, state, requiredKeyLength);
        } catch (Exception | Error e) {
            registry.restore(name, previous);
            throw e;
        }
    }

    /**
     * Puts a ValueState behind the hot-state cache. Queryable states stay uncached: query-server
     * threads read them concurrently with the task thread.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private <S extends State, SV, IS extends S> IS maybeCached(
            StateDescriptor<S, SV> stateDesc, IS state, int requiredKeyLength) {
        if (cache == null
                || stateDesc.getType() != StateDescriptor.Type.VALUE
                || stateDesc.isQueryable()
                || !(state instanceof InternalValueState)) {
            return state;
        }
        boolean firstTime = !cache.isCached(stateDesc.getName());
        IS cached =
                (IS)
                        cache.wrap(
                                stateDesc.getName(),
                                (InternalValueState) state,
                                stateDesc.getDefaultValue());
        cache.requireKeyLength(stateDesc.getName(), requiredKeyLength);
        if (firstTime) {
            CacheQuota quota = cache.quota();
            FalconLog.logCachedState(stateDesc.getName(), quota.bytes(), quota.entries());
        }
        return cached;
    }

    // -- snapshots ---------------------------------------------------------------------------

    @Nonnull
    @Override
    public RunnableFuture<SnapshotResult<KeyedStateHandle>> snapshot(
            long checkpointId,
            long timestamp,
            @Nonnull CheckpointStreamFactory streamFactory,
            @Nonnull CheckpointOptions checkpointOptions)
            throws Exception {
        flushHook.flushAll();
        return rocksDb.snapshot(checkpointId, timestamp, streamFactory, checkpointOptions);
    }

    @Nonnull
    @Override
    public SavepointResources<K> savepoint() throws Exception {
        flushHook.flushAll();
        return rocksDb.savepoint();
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        rocksDb.notifyCheckpointComplete(checkpointId);
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) throws Exception {
        rocksDb.notifyCheckpointAborted(checkpointId);
    }

    @Override
    public void notifyCheckpointSubsumed(long checkpointId) throws Exception {
        rocksDb.notifyCheckpointSubsumed(checkpointId);
    }

    @Override
    public boolean requiresLegacySynchronousTimerSnapshots(SnapshotType checkpointType) {
        return rocksDb.requiresLegacySynchronousTimerSnapshots(checkpointType);
    }

    // -- whole-state access -------------------------------------------------------------------

    @Override
    public <N> Stream<K> getKeys(String state, N namespace) {
        flushState(state);
        return rocksDb.getKeys(state, namespace);
    }

    @Override
    public <N> Stream<Tuple2<K, N>> getKeysAndNamespaces(String state) {
        flushState(state);
        return rocksDb.getKeysAndNamespaces(state);
    }

    @Override
    public <N, S extends State, T> void applyToAllKeys(
            N namespace,
            TypeSerializer<N> namespaceSerializer,
            StateDescriptor<S, T> stateDescriptor,
            KeyedStateFunction<K, S> function,
            PartitionStateFactory partitionStateFactory)
            throws Exception {
        // Keys come from getKeys (flushed there too); states come from this backend.
        flushHook.flushState(stateDescriptor.getName());
        super.applyToAllKeys(
                namespace, namespaceSerializer, stateDescriptor, function, partitionStateFactory);
    }

    @Override
    public int numKeyValueStateEntries() {
        try {
            flushHook.flushAll();
        } catch (Exception e) {
            throw new FlinkRuntimeException("[FALCON] flushing the cache failed", e);
        }
        return rocksDb.numKeyValueStateEntries();
    }

    private void flushState(String state) {
        try {
            flushHook.flushState(state);
        } catch (Exception e) {
            throw new FlinkRuntimeException("[FALCON] flushing state " + state + " failed", e);
        }
    }

    // -- keys, timers, capabilities: unchanged -------------------------------------------------

    @Override
    public void setCurrentKey(K newKey) {
        // The inner backend notifies the shared listeners, sets the shared key context and
        // updates its own key builder.
        rocksDb.setCurrentKey(newKey);
    }

    @Override
    public void setCurrentKeyGroupIndex(int currentKeyGroupIndex) {
        rocksDb.setCurrentKeyGroupIndex(currentKeyGroupIndex);
    }

    @Nonnull
    @Override
    public <T extends HeapPriorityQueueElement & PriorityComparable<? super T> & Keyed<?>>
            KeyGroupedInternalPriorityQueue<T> create(
                    @Nonnull String stateName,
                    @Nonnull TypeSerializer<T> byteOrderedElementSerializer) {
        return rocksDb.create(stateName, byteOrderedElementSerializer);
    }

    @Override
    public <T extends HeapPriorityQueueElement & PriorityComparable<? super T> & Keyed<?>>
            KeyGroupedInternalPriorityQueue<T> create(
                    @Nonnull String stateName,
                    @Nonnull TypeSerializer<T> byteOrderedElementSerializer,
                    boolean allowFutureMetadataUpdates) {
        return rocksDb.create(stateName, byteOrderedElementSerializer, allowFutureMetadataUpdates);
    }

    @Override
    public boolean isSafeToReuseKVState() {
        return rocksDb.isSafeToReuseKVState();
    }

    @Override
    public boolean isStateImmutableInStateBackend(
            org.apache.flink.runtime.checkpoint.CheckpointType checkpointType) {
        return rocksDb.isStateImmutableInStateBackend(checkpointType);
    }

    // -- lifecycle -----------------------------------------------------------------------------

    @Override
    public void dispose() {
        flushHook.release();
        // The inner backend also clears the shared state map and unregisters queryable states.
        rocksDb.dispose();
    }

    @Override
    public void close() throws IOException {
        rocksDb.close();
    }

    @Override
    public String toString() {
        return "FalconKeyedStateBackend{" + rocksDb + '}';
    }
}
