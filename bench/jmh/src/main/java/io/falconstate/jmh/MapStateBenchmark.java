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
 * MapState through Flink's state API, as a streaming join uses it: 100k keys (the join keys), each
 * with a small map of {@value #ENTRIES} entries (user key Long, 32-byte value); the key of each
 * operation follows a uniform or Zipf(0.99) sequence, the user key cycles. Stock RocksDB, Falcon
 * with its cache holding 10% of the maps ({@code falcon-10}: one map is one cache entry), and the
 * heap backend ({@code falcon-100}, every map cached, is not run by default). Operations: {@code
 * getPresent}, {@code getAbsent} (a user key the map does not hold: the join's lookup before an
 * insert), {@code put} (overwrite), {@code contains}, {@code iterate} (every entry of the map, keys
 * and values read), {@code removeThenPut} (remove a present entry and put it back: one operation is
 * the pair, so the map stays the same).
 *
 * <p>CPU time per operation as in {@link ValueStateBenchmark} ({@code cpuNanos / ops}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class MapStateBenchmark {

    public static final int KEYS = Integer.getInteger("falcon.bench.keys", 100_000);
    public static final int ENTRIES = 4;
    public static final int BATCH = 1024;
    static final boolean WARM_UP =
            Boolean.parseBoolean(System.getProperty("falcon.bench.map-warm-up", "true"));

    @Param({"rocksdb", "falcon-10", "heap"})
    public String backend;

    @Param({"zipf"})
    public String distribution;

    private KeyedBackends backends;
    private AbstractKeyedStateBackend<Long> keyed;
    private MapState<Long, byte[]> state;
    private Long[] keys;
    private int[] sequence;
    private int position;
    private final Long[] userKeys = new Long[ENTRIES];
    private final Long absentKey = 1_000L;
    private byte[] value;

    static KeyedBackends open(String backend) throws Exception {
        switch (backend) {
            case "rocksdb":
                return new KeyedBackends(
                        "rocksdb", new HashMap<>(), ValueStateBenchmark.MANAGED_MEMORY);
            case "heap":
                return new KeyedBackends(
                        "heap", new HashMap<>(), ValueStateBenchmark.MANAGED_MEMORY);
            case "falcon-10":
            case "falcon-100":
                {
                    Map<String, String> conf =
                            ValueStateBenchmark.falconCache(
                                    KEYS, backend.equals("falcon-10") ? 10 : 100);
                    return new KeyedBackends("falcon", conf, ValueStateBenchmark.MANAGED_MEMORY);
                }
            default:
                throw new IllegalArgumentException(backend);
        }
    }

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        backends = open(backend);
        keyed = backends.backend;
        state =
                keyed.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        new MapStateDescriptor<>(
                                "map",
                                LongSerializer.INSTANCE,
                                BytePrimitiveArraySerializer.INSTANCE));
        KeySequence seq = KeySequence.of(distribution, KEYS, 42);
        keys = seq.keys;
        sequence = seq.sequence;
        value = new byte[32];
        for (int u = 0; u < ENTRIES; u++) {
            userKeys[u] = (long) u;
        }
        for (int i = 0; i < KEYS; i++) {
            keyed.setCurrentKey(keys[i]);
            for (int u = 0; u < ENTRIES; u++) {
                byte[] v = new byte[32];
                v[0] = (byte) i;
                v[1] = (byte) u;
                state.put(userKeys[u], v);
            }
        }
        // One read of every map in the access sequence, the same for every backend: the hot
        // maps are then where a job's reads would have put them (Falcon's cache, RocksDB's block
        // cache). Without it the write-only benchmarks would run against an empty map cache,
        // since a put does not load a map (-Dfalcon.bench.map-warm-up=false measures that case).
        if (WARM_UP) {
            for (int p = 0; p < sequence.length; p++) {
                next(p);
                state.contains(userKeys[0]);
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        String counters = backends.cacheCounters();
        if (counters != null) {
            System.out.println(
                    "\n[falcon-cache] " + backend + " " + distribution + ": " + counters);
        }
        backends.close();
    }

    private void next(int p) {
        keyed.setCurrentKey(keys[sequence[p & KeySequence.MASK]]);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void getPresent(Blackhole bh, ValueStateBenchmark.CpuTime cpu) throws Exception {
        int p = position;
        for (int i = 0; i < BATCH; i++, p++) {
            next(p);
            bh.consume(state.get(userKeys[p & (ENTRIES - 1)]));
        }
        position = p;
        cpu.ops += BATCH;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void getAbsent(Blackhole bh, ValueStateBenchmark.CpuTime cpu) throws Exception {
        int p = position;
        for (int i = 0; i < BATCH; i++, p++) {
            next(p);
            bh.consume(state.get(absentKey));
        }
        position = p;
        cpu.ops += BATCH;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void contains(Blackhole bh, ValueStateBenchmark.CpuTime cpu) throws Exception {
        int p = position;
        for (int i = 0; i < BATCH; i++, p++) {
            next(p);
            bh.consume(state.contains(userKeys[p & (ENTRIES - 1)]));
        }
        position = p;
        cpu.ops += BATCH;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void put(ValueStateBenchmark.CpuTime cpu) throws Exception {
        int p = position;
        for (int i = 0; i < BATCH; i++, p++) {
            next(p);
            state.put(userKeys[p & (ENTRIES - 1)], value);
        }
        position = p;
        cpu.ops += BATCH;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void iterate(Blackhole bh, ValueStateBenchmark.CpuTime cpu) throws Exception {
        int p = position;
        for (int i = 0; i < BATCH; i++, p++) {
            next(p);
            for (Map.Entry<Long, byte[]> e : state.entries()) {
                bh.consume(e.getKey());
                bh.consume(e.getValue());
            }
        }
        position = p;
        cpu.ops += BATCH;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void removeThenPut(ValueStateBenchmark.CpuTime cpu) throws Exception {
        int p = position;
        for (int i = 0; i < BATCH; i++, p++) {
            next(p);
            Long u = userKeys[p & (ENTRIES - 1)];
            state.remove(u);
            state.put(u, value);
        }
        position = p;
        cpu.ops += BATCH;
    }
}
