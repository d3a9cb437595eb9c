/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import io.falconstate.flink.budget.CacheBudgets;
import io.falconstate.flink.cache.HotStateCacheManager;
import io.falconstate.flink.log.FalconLog;
import io.falconstate.flink.nativeaccess.CacheQuota;
import io.falconstate.flink.timers.TimerQueues;
import io.falconstate.flink.tuning.ColumnFamilyTuner;
import io.falconstate.flink.tuning.KeyLengthInvariant;

import org.apache.flink.api.common.state.State;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.contrib.streaming.state.FalconColumnFamilyAccess;
import org.apache.flink.contrib.streaming.state.FalconKeysOfStates;
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
import org.apache.flink.runtime.state.internal.InternalListState;
import org.apache.flink.runtime.state.internal.InternalMapState;
import org.apache.flink.runtime.state.internal.InternalValueState;
import org.apache.flink.util.FlinkRuntimeException;

import org.rocksdb.RocksDBException;

import javax.annotation.Nonnull;
import javax.annotation.Nullable;

import java.io.IOException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
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
 *       function can read it); a re-registration first flushes the state and drops its cached
 *       entries; a ValueState comes back behind the hot-state cache (not a queryable one).
 *   <li>{@link #snapshot}, {@link #savepoint()}, {@link #numKeyValueStateEntries()}: every dirty
 *       cache entry into RocksDB, then every held timer change ({@link TimerQueues}), then every
 *       hash memtable flushed, on the calling task thread.
 *   <li>{@link #create}: timer queues in RocksDB with Falcon's timer layers ({@link TimerQueues}).
 *   <li>{@link #getKeys}, {@link #getKeysAndNamespaces}, {@link #applyToAllKeys}: the same for the
 *       one state.
 *   <li>{@link #dispose()}: releases what it owns, in order.
 * </ul>
 *
 * <p>It owns the inner RocksDB backend, the cache (null when off), the timer queues' write batches
 * and the column-family tuner (null when no tuning is on). {@link #dispose()} releases the timer
 * queues' batches and the cache (discarding dirty entries: a disposed backend is never read again),
 * then RocksDB, then the tuner's filters, which RocksDB's table factories reference until the DB is
 * closed. Not thread-safe, like every keyed backend: the task thread drives it.
 */
public class FalconKeyedStateBackend<K> extends AbstractKeyedStateBackend<K> {

    private final RocksDBKeyedStateBackend<K> rocksDb;
    private final StateRegistry registry;
    @Nullable private final HotStateCacheManager<K> cache;
    @Nullable private final ColumnFamilyTuner tuner;

    /**
     * True when {@link #snapshot} makes a native RocksDB checkpoint (incremental checkpoints): its
     * {@code createCheckpoint} flushes every memtable and waits, so Falcon does not flush the hash
     * memtables first.
     */
    private final boolean nativeCheckpoints;

    /** The timer queues in RocksDB, with Falcon's layers; its counters feed metric gauges. */
    private final TimerQueues timers;

    private boolean disposed;

    FalconKeyedStateBackend(
            RocksDBKeyedStateBackend<K> rocksDb,
            StateRegistry registry,
            @Nullable HotStateCacheManager<K> cache,
            @Nullable ColumnFamilyTuner tuner,
            boolean nativeCheckpoints,
            int timerDedupCapacity,
            int timerHeldCapacity) {
        super(rocksDb);
        this.rocksDb = rocksDb;
        this.registry = registry;
        this.cache = cache;
        this.tuner = tuner;
        this.nativeCheckpoints = nativeCheckpoints;
        this.timers = new TimerQueues(rocksDb, timerDedupCapacity, timerHeldCapacity);
        if (cache != null) {
            cache.setAheadOfBarrier(this::aheadOfBarrier);
        }
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

    /** The column-family tuner of this backend; null when no tuning is on. */
    @Nullable
    public ColumnFamilyTuner getColumnFamilyTuner() {
        return tuner;
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
            flushAndDropState(name);
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
                            : KeyLengthInvariant.checkRegistration(
                                    tuner, name, rocksDb.getKeySerializer(), namespaceSerializer);
            return maybeCached(stateDesc, state, requiredKeyLength);
        } catch (Exception | Error e) {
            registry.restore(name, previous);
            throw e;
        }
    }

    /**
     * Puts a ValueState, ListState or MapState behind the hot-state cache. Queryable states stay
     * uncached: query-server threads read them concurrently with the task thread.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private <S extends State, SV, IS extends S> IS maybeCached(
            StateDescriptor<S, SV> stateDesc, IS state, int requiredKeyLength) {
        if (cache == null || stateDesc.isQueryable()) {
            return state;
        }
        if (stateDesc.getType() == StateDescriptor.Type.MAP
                && state instanceof InternalMapState
                && cache.settings().mapStateEnabled()) {
            boolean firstTime = !cache.isCached(stateDesc.getName());
            IS cached =
                    (IS)
                            cache.wrapMap(
                                    stateDesc.getName(),
                                    (InternalMapState) state,
                                    cache.settings().maxBytesPerMap());
            if (firstTime) {
                CacheQuota quota = cache.quota();
                FalconLog.logCachedMapState(
                        stateDesc.getName(),
                        quota.bytes(),
                        CacheBudgets.estimateMaps(quota.bytes(), quota.entries()));
            }
            return cached;
        }
        if (stateDesc.getType() == StateDescriptor.Type.LIST
                && state instanceof InternalListState
                && cache.settings().listStateEnabled()) {
            boolean firstTime = !cache.isCached(stateDesc.getName());
            IS cached = (IS) cache.wrapList(stateDesc.getName(), (InternalListState) state);
            if (firstTime) {
                CacheQuota quota = cache.quota();
                FalconLog.logCachedListState(
                        stateDesc.getName(),
                        quota.bytes(),
                        CacheBudgets.estimateLists(quota.bytes(), quota.entries()));
            }
            return cached;
        }
        if (stateDesc.getType() != StateDescriptor.Type.VALUE
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
            FalconLog.logCachedState(
                    stateDesc.getName(),
                    quota.bytes(),
                    CacheBudgets.estimateStates(quota.bytes(), quota.entries()));
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
        // Three phases, each timed (falcon.cache checkpoint* metrics): the cache's write-back, the
        // hash memtables' flush (only where RocksDB's own snapshot would not flush them), and
        // RocksDB's synchronous part.
        long start = System.nanoTime();
        if (cache != null) {
            cache.onBarrier(start, FalconColumnFamilyAccess.flushesRunning(rocksDb) > 0);
            cache.flushAll();
        }
        timers.writeBack();
        long written = System.nanoTime();
        if (!nativeCheckpoints) {
            flushHashMemtables();
        }
        long flushed = System.nanoTime();
        RunnableFuture<SnapshotResult<KeyedStateHandle>> result =
                rocksDb.snapshot(checkpointId, timestamp, streamFactory, checkpointOptions);
        if (cache != null) {
            cache.recordCheckpointPhases(
                    written - start, flushed - written, System.nanoTime() - flushed);
        }
        return result;
    }

    @Nonnull
    @Override
    public SavepointResources<K> savepoint() throws Exception {
        flushAll();
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

    /**
     * Flink 1.20's {@code KeyedStateBackend#getKeys(List, Object)}: the keys in any of {@code
     * states}, each state flushed first as for {@link #getKeys(String, Object)}. Earlier minors do
     * not have (or call) it.
     */
    public <N> Stream<K> getKeys(List<String> states, N namespace) {
        for (String state : states) {
            flushState(state);
        }
        return FalconKeysOfStates.getKeys(rocksDb, states, namespace);
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
        flushState(stateDescriptor.getName());
        super.applyToAllKeys(
                namespace, namespaceSerializer, stateDescriptor, function, partitionStateFactory);
    }

    @Override
    public int numKeyValueStateEntries() {
        try {
            flushAll();
        } catch (Exception e) {
            throw new FlinkRuntimeException("[FALCON] flushing the cache failed", e);
        }
        return rocksDb.numKeyValueStateEntries();
    }

    // --- flush points ---

    /**
     * Before a canonical savepoint or a whole-backend count: every dirty cache entry into RocksDB,
     * then every hash memtable flushed (invariant 1: whole-column-family scans do not see them).
     */
    public void flushAll() throws Exception {
        if (cache != null) {
            cache.flushAll();
        }
        timers.writeBack();
        flushHashMemtables();
    }

    /** Every hash memtable flushed; also once right after a restore, which may have filled them. */
    void flushHashMemtables() throws Exception {
        if (tuner != null) {
            for (String state : tuner.hashColumnFamilies()) {
                FalconColumnFamilyAccess.flushColumnFamily(rocksDb, state);
            }
        }
    }

    /**
     * Ahead of a barrier (the cache's pacer, after its last slice): starts the flush of the cached
     * states' memtables and of every hash memtable without waiting, so that RocksDB sorts and
     * writes them in the background instead of inside the barrier's {@code createCheckpoint}
     * (decision 0025). When a barrier is expected, first writes the held timers' changes and
     * flushes their memtables too (decision 0030); a provisional round is a guess, and writing them
     * at each would spend the puts and deletes that holding them saves.
     */
    private void aheadOfBarrier(boolean barrierExpected) {
        Set<String> states = new LinkedHashSet<>(cache.cachedStateNames());
        if (tuner != null) {
            states.addAll(tuner.hashColumnFamilies());
        }
        if (barrierExpected) {
            timers.writeBack();
            states.addAll(timers.heldStateNames());
        }
        try {
            for (String state : states) {
                FalconColumnFamilyAccess.startFlush(rocksDb, state);
            }
        } catch (RocksDBException e) {
            throw new FlinkRuntimeException("[FALCON] starting a memtable flush failed", e);
        }
    }

    private void flushState(String state) {
        try {
            if (cache != null) {
                cache.flushState(state);
            }
            flushMemtableBeforeScan(state);
        } catch (Exception e) {
            throw new FlinkRuntimeException("[FALCON] flushing state " + state + " failed", e);
        }
    }

    private void flushAndDropState(String state) throws Exception {
        if (cache != null) {
            cache.flushAndDropState(state);
        }
        flushMemtableBeforeScan(state);
    }

    private void flushMemtableBeforeScan(String state) throws Exception {
        if (tuner != null && tuner.needsFlushBeforeScan(state)) {
            FalconColumnFamilyAccess.flushColumnFamily(rocksDb, state);
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
        return create(stateName, byteOrderedElementSerializer, false);
    }

    @Override
    public <T extends HeapPriorityQueueElement & PriorityComparable<? super T> & Keyed<?>>
            KeyGroupedInternalPriorityQueue<T> create(
                    @Nonnull String stateName,
                    @Nonnull TypeSerializer<T> byteOrderedElementSerializer,
                    boolean allowFutureMetadataUpdates) {
        return timers.create(stateName, byteOrderedElementSerializer, allowFutureMetadataUpdates);
    }

    /** This backend's timer queues (their counters). */
    public TimerQueues timerQueues() {
        return timers;
    }

    /**
     * False with Flink's heap timers: they keep the key object that was current when the timer was
     * registered, and an operator told that reuse is safe (window TVF aggregations) hands over one
     * key object it overwrites for every key, so pending timers would change key (wrong results
     * from stock Flink's RocksDB backend with heap timers, FLINK-39589). With timers in RocksDB
     * every state serializes the key, as stock.
     */
    @Override
    public boolean isSafeToReuseKVState() {
        return FalconColumnFamilyAccess.timersInRocksDb(rocksDb) && rocksDb.isSafeToReuseKVState();
    }

    @Override
    public boolean isStateImmutableInStateBackend(
            org.apache.flink.runtime.checkpoint.CheckpointType checkpointType) {
        return rocksDb.isStateImmutableInStateBackend(checkpointType);
    }

    // -- lifecycle -----------------------------------------------------------------------------

    @Override
    public void dispose() {
        if (disposed) {
            return;
        }
        disposed = true;
        try {
            timers.dispose();
            if (cache != null) {
                cache.release();
            }
        } finally {
            try {
                // Also clears the shared state map and unregisters queryable states.
                rocksDb.dispose();
            } finally {
                if (tuner != null) {
                    tuner.close();
                }
            }
        }
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
