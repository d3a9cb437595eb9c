/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.jmh;

import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * MapState lookups that find nothing, with the data in SST files (flushed and compacted) or still
 * in the memtable ({@code where}). {@code KEYS} Long keys (even numbers 0, 2, ...) with {@code
 * USER_KEYS} Long user keys each (even numbers), 64-byte values. {@code getAbsent}/{@code
 * containsAbsent}: a present key, an absent (odd) user key. {@code iterateAbsent}: {@code
 * iterator().hasNext()} of a key that has no map (odd key), i.e. a prefix seek that finds nothing.
 * Backends: stock RocksDB defaults (no bloom filter), stock with {@code
 * state.backend.rocksdb.use-bloom-filter: true} (whole-key bloom in SST), stock with a whole-key
 * bloom in the memtable ({@link MemtableBloomOptionsFactory}), Falcon with {@code
 * state.backend.falcon.tuning.map-state.range-filter: true} (prefix bloom in memtable and SST;
 * cache off: these lookups are the ones that reach RocksDB).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class MapStateRangeFilterBenchmark {

    public static final int KEYS = 100_000;
    public static final int USER_KEYS = 4;
    public static final int BATCH = 1024;

    @Param({"rocksdb", "rocksdb-bloom", "rocksdb-memtable-bloom", "falcon-range"})
    public String backend;

    /** Where the entries are when the lookups run: {@code sst} (compacted) or {@code memtable}. */
    @Param({"sst"})
    public String where;

    private KeyedBackends backends;
    private AbstractKeyedStateBackend<Long> keyed;
    private MapState<Long, byte[]> state;
    private Long[] presentKeys;
    private Long[] absentKeys;
    private Long[] absentUserKeys;
    private int[] sequence;
    private int position;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        Map<String, String> conf = new HashMap<>();
        String kind = "rocksdb";
        if (backend.equals("rocksdb-bloom")) {
            conf.put("state.backend.rocksdb.use-bloom-filter", "true");
        } else if (backend.equals("rocksdb-memtable-bloom")) {
            conf.put(
                    "state.backend.rocksdb.options-factory",
                    MemtableBloomOptionsFactory.class.getName());
        } else if (backend.equals("falcon-range")) {
            kind = "falcon";
            conf.put("state.backend.falcon.cache.enabled", "false");
            conf.put("state.backend.falcon.tuning.map-state.range-filter", "true");
        }
        backends = new KeyedBackends(kind, conf, 512L << 20);
        keyed = backends.backend;
        MapStateDescriptor<Long, byte[]> descriptor =
                new MapStateDescriptor<>(
                        "map", LongSerializer.INSTANCE, BytePrimitiveArraySerializer.INSTANCE);
        state =
                keyed.getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
        presentKeys = new Long[KEYS];
        absentKeys = new Long[KEYS];
        for (int i = 0; i < KEYS; i++) {
            presentKeys[i] = 2L * i;
            absentKeys[i] = 2L * i + 1;
        }
        absentUserKeys = new Long[USER_KEYS];
        Long[] userKeys = new Long[USER_KEYS];
        for (int u = 0; u < USER_KEYS; u++) {
            userKeys[u] = 2L * u;
            absentUserKeys[u] = 2L * u + 1;
        }
        byte[] value = KeySequence.value(3);
        for (int i = 0; i < KEYS; i++) {
            keyed.setCurrentKey(presentKeys[i]);
            for (int u = 0; u < USER_KEYS; u++) {
                state.put(userKeys[u], value);
            }
        }
        if (where.equals("sst")) {
            // Flush the memtable and compact: every entry is in SST files.
            backends.rocksDb().compactState(descriptor);
        } else if (!where.equals("memtable")) {
            throw new IllegalArgumentException("where: sst or memtable, not " + where);
        }
        sequence = KeySequence.of("uniform", KEYS, 42).sequence;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        backends.close();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void getAbsent(Blackhole bh) throws Exception {
        int p = position;
        for (int i = 0; i < BATCH; i++) {
            keyed.setCurrentKey(presentKeys[sequence[p & KeySequence.MASK]]);
            bh.consume(state.get(absentUserKeys[p & (USER_KEYS - 1)]));
            p++;
        }
        position = p;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void containsAbsent(Blackhole bh) throws Exception {
        int p = position;
        for (int i = 0; i < BATCH; i++) {
            keyed.setCurrentKey(presentKeys[sequence[p & KeySequence.MASK]]);
            bh.consume(state.contains(absentUserKeys[p & (USER_KEYS - 1)]));
            p++;
        }
        position = p;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void iterateAbsent(Blackhole bh) throws Exception {
        int p = position;
        for (int i = 0; i < BATCH; i++) {
            keyed.setCurrentKey(absentKeys[sequence[p++ & KeySequence.MASK]]);
            bh.consume(state.iterator().hasNext());
        }
        position = p;
    }
}
