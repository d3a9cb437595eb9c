/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.jmh;

import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
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
 * ValueState put/get through Flink's state API over 1M Long keys (64-byte values, uniform access),
 * the skiplist memtable (stock RocksDB) against Falcon's HashLinkList memtable ({@code
 * state.backend.falcon.tuning.value-state.hash-memtable: true}); the hot-state cache is off in
 * both, to isolate the memtable. Two memory settings: {@code memtable} (unmanaged memory, 256 MB
 * write buffer: every key stays memtable-resident) and {@code default} (Flink's managed memory
 * defaults for a 1-slot TaskManager of the default size: 512 MB managed, 64 MB write buffers, so
 * most keys are flushed to SST).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class HashMemtableBenchmark {

    public static final int KEYS = 1_000_000;
    public static final int BATCH = 1024;

    @Param({"rocksdb", "falcon-hash"})
    public String backend;

    @Param({"memtable", "default"})
    public String memory;

    private KeyedBackends backends;
    private AbstractKeyedStateBackend<Long> keyed;
    private ValueState<byte[]> state;
    private Long[] keys;
    private int[] sequence;
    private int position;
    private byte[] value;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        Map<String, String> conf = new HashMap<>();
        if (memory.equals("memtable")) {
            conf.put("state.backend.rocksdb.memory.managed", "false");
            conf.put("state.backend.rocksdb.writebuffer.size", "256mb");
        }
        String kind = "rocksdb";
        if (backend.equals("falcon-hash")) {
            kind = "falcon";
            conf.put("state.backend.falcon.cache.enabled", "false");
            conf.put("state.backend.falcon.tuning.value-state.hash-memtable", "true");
        }
        backends = new KeyedBackends(kind, conf, 512L << 20);
        keyed = backends.backend;
        state =
                keyed.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        new ValueStateDescriptor<>("value", BytePrimitiveArraySerializer.INSTANCE));
        KeySequence seq = KeySequence.of("uniform", KEYS, 42);
        keys = seq.keys;
        sequence = seq.sequence;
        value = KeySequence.value(7);
        for (int i = 0; i < KEYS; i++) {
            keyed.setCurrentKey(keys[i]);
            state.update(value);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        backends.close();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void get(Blackhole bh) throws Exception {
        int p = position;
        for (int i = 0; i < BATCH; i++) {
            keyed.setCurrentKey(keys[sequence[p++ & KeySequence.MASK]]);
            bh.consume(state.value());
        }
        position = p;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void put() throws Exception {
        int p = position;
        for (int i = 0; i < BATCH; i++) {
            keyed.setCurrentKey(keys[sequence[p++ & KeySequence.MASK]]);
            state.update(value);
        }
        position = p;
    }
}
