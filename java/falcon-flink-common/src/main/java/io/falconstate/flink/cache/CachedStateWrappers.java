/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import io.falconstate.flink.cache.HotStateCacheManager.Registration;

import org.apache.flink.contrib.streaming.state.FalconRocksDBAccess;
import org.apache.flink.contrib.streaming.state.RocksDBKeyedStateBackend;
import org.apache.flink.runtime.state.internal.InternalListState;
import org.apache.flink.runtime.state.internal.InternalMapState;
import org.apache.flink.runtime.state.internal.InternalValueState;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;

import javax.annotation.Nullable;

import java.util.function.Supplier;

/**
 * Builds the cached wrapper of each kind of state for one {@link HotStateCacheManager}: its {@link
 * StateColumnFamily} (with the written-key filter the kind uses), its {@link CacheSwitch} (with the
 * kind's rule), and the wrapper itself, registered with the manager. A re-registration of the same
 * RocksDB state refreshes the existing wrapper instead.
 *
 * <p>Not thread-safe: the task thread registers states.
 */
final class CachedStateWrappers<K> {

    private final HotStateCacheManager<K> manager;
    private final RocksDBKeyedStateBackend<K> rocksDb;
    private final RocksDB db;
    private final CacheSettings settings;

    CachedStateWrappers(
            HotStateCacheManager<K> manager,
            RocksDBKeyedStateBackend<K> rocksDb,
            RocksDB db,
            CacheSettings settings) {
        this.manager = manager;
        this.rocksDb = rocksDb;
        this.db = db;
        this.settings = settings;
    }

    /**
     * Wraps RocksDB's ValueState {@code stateName}. Called after RocksDB registered (or
     * re-registered) it; returns the same wrapper for the same name, refreshed.
     */
    @SuppressWarnings("unchecked")
    <N, V> InternalValueState<K, N, V> wrapValue(
            String stateName, InternalValueState<K, N, V> rocksDbState, V defaultValue) {
        Registration existing = manager.registration(stateName);
        if (isFor(existing, rocksDbState)) {
            existing.column.setHandle(columnFamily(stateName));
            CachedValueState<K, N, V> state = (CachedValueState<K, N, V>) existing.state;
            state.refresh(defaultValue);
            return state;
        }
        return newWholeKeyState(
                stateName,
                existing,
                "VALUE",
                (stateId, column, cacheSwitch) ->
                        new CachedValueState<>(
                                manager, stateId, rocksDbState, column, defaultValue, cacheSwitch));
    }

    /**
     * Wraps RocksDB's ListState {@code stateName}: whole lists are cached. Called after RocksDB
     * registered (or re-registered) it; returns the same wrapper for the same name, refreshed.
     */
    @SuppressWarnings("unchecked")
    <N, V> InternalListState<K, N, V> wrapList(
            String stateName, InternalListState<K, N, V> rocksDbState) {
        Registration existing = manager.registration(stateName);
        if (isFor(existing, rocksDbState)) {
            existing.column.setHandle(columnFamily(stateName));
            CachedListState<K, N, V> state = (CachedListState<K, N, V>) existing.state;
            state.refresh();
            return state;
        }
        return newWholeKeyState(
                stateName,
                existing,
                "LIST",
                (stateId, column, cacheSwitch) ->
                        new CachedListState<>(manager, stateId, rocksDbState, column, cacheSwitch));
    }

    /** Builds a cached state whose entries are whole RocksDB values of its column family. */
    private interface WholeKeyStateFactory<S extends CachedState> {
        S create(int stateId, StateColumnFamily column, CacheSwitch cacheSwitch);
    }

    /**
     * A new wrapper of a state cached by whole key (value, list), with the written-key filter over
     * whole keys and the ValueState switch rule (a ListState's also counts its merged adds).
     */
    private <S extends CachedState> S newWholeKeyState(
            String stateName,
            @Nullable Registration existing,
            String kind,
            WholeKeyStateFactory<S> factory) {
        int stateId = existing != null ? existing.stateId : manager.newStateId();
        StateColumnFamily column =
                newColumn(
                        stateName, settings.writtenKeyFilterMaxKeys(), WrittenKeyFilter.WHOLE_KEY);
        WrittenKeyFilter writtenKeys = column.writtenKeys();
        boolean list = kind.equals("LIST");
        // A list state switched to RocksDB drops its filter: a trial would rebuild it by scanning
        // the column family, which merges every list RocksDB holds.
        CacheSwitch cacheSwitch =
                newSwitch(
                        stateName + ", " + kind,
                        settings.bypassHitRatio(),
                        stateId,
                        list ? column::dropFilter : () -> {},
                        () ->
                                list
                                        ? CacheSwitch.Window.ofListState(
                                                manager.cache().stats(stateId),
                                                writtenKeys,
                                                column.merges())
                                        : CacheSwitch.Window.ofValueState(
                                                manager.cache().stats(stateId), writtenKeys));
        S state = factory.create(stateId, column, cacheSwitch);
        manager.register(
                stateName, existing, new Registration(stateId, column, cacheSwitch, state));
        return state;
    }

    /**
     * Wraps RocksDB's MapState {@code stateName}: maps of up to {@code maxMapBytes} are cached
     * whole. Called after RocksDB registered (or re-registered) it; returns the same wrapper for
     * the same name, refreshed.
     */
    @SuppressWarnings("unchecked")
    <N, UK, UV> InternalMapState<K, N, UK, UV> wrapMap(
            String stateName, InternalMapState<K, N, UK, UV> rocksDbState, long maxMapBytes) {
        Registration existing = manager.registration(stateName);
        if (isFor(existing, rocksDbState)) {
            existing.column.setHandle(columnFamily(stateName));
            CachedMapState<K, N, UK, UV> state = (CachedMapState<K, N, UK, UV>) existing.state;
            state.refresh();
            return state;
        }
        int stateId = existing != null ? existing.stateId : manager.newStateId();
        MapKeyPrefix mapPrefix =
                new MapKeyPrefix(rocksDb.getKeySerializer(), rocksDb.getKeyGroupPrefixBytes());
        StateColumnFamily column =
                newColumn(stateName, settings.writtenKeyFilterMaxMaps(), mapPrefix);
        WrittenKeyFilter writtenMaps = column.writtenKeys();
        CacheSwitch cacheSwitch =
                newSwitch(
                        stateName + ", MAP",
                        settings.mapBypassHitRatio(),
                        stateId,
                        () -> {},
                        () ->
                                CacheSwitch.Window.ofMapState(
                                        manager.cache().stats(stateId),
                                        manager.maps().stats(stateId),
                                        writtenMaps));
        CachedMapState<K, N, UK, UV> state =
                new CachedMapState<>(
                        manager,
                        stateId,
                        rocksDbState,
                        column,
                        mapPrefix,
                        maxMapBytes,
                        cacheSwitch);
        manager.register(
                stateName, existing, new Registration(stateId, column, cacheSwitch, state));
        return state;
    }

    /** True when {@code existing} wraps exactly {@code rocksDbState}: a refresh, not a new one. */
    private static boolean isFor(@Nullable Registration existing, Object rocksDbState) {
        return existing != null && existing.state.rocksDbState() == rocksDbState;
    }

    private ColumnFamilyHandle columnFamily(String stateName) {
        ColumnFamilyHandle columnFamily = FalconRocksDBAccess.columnFamily(rocksDb, stateName);
        if (columnFamily == null) {
            throw new IllegalStateException("[FALCON] no column family for state " + stateName);
        }
        return columnFamily;
    }

    /**
     * The RocksDB side of a newly wrapped state, with a new (unbuilt) written-key filter of up to
     * {@code filterMaxKeys} keys (none for 0) over {@code filteredPrefix} of its keys.
     */
    private StateColumnFamily newColumn(
            String stateName, int filterMaxKeys, WrittenKeyFilter.KeyPrefix filteredPrefix) {
        return new StateColumnFamily(
                db,
                rocksDb.getReadOptions(),
                rocksDb.getWriteOptions(),
                stateName,
                columnFamily(stateName),
                filterMaxKeys > 0 ? new WrittenKeyFilter(filterMaxKeys) : null,
                filteredPrefix);
    }

    /**
     * A state's switch between the cache and RocksDB (docs/cache.md, "Self-switching"); {@code
     * onSwitchOff} runs after the state's entries were written back and dropped.
     */
    private CacheSwitch newSwitch(
            String description,
            double threshold,
            int stateId,
            Runnable onSwitchOff,
            Supplier<CacheSwitch.Window> counters) {
        return new CacheSwitch(
                description,
                threshold,
                settings.switchWindow(),
                settings.switchRetryOperations(),
                counters,
                () -> {
                    manager.flushAndDropStateId(stateId);
                    onSwitchOff.run();
                });
    }
}
