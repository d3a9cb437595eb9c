/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.jmh;

import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
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

import java.util.concurrent.TimeUnit;

/**
 * ListState through Flink's state API, as a window join or a window with a {@code
 * ProcessWindowFunction} uses it: per key of a uniform or Zipf(0.99) sequence over 100k keys,
 * {@code window}: {@value #ADDS} adds (one per record), then the firing's {@code get} and {@code
 * clear} -- one operation is the window's whole life; {@code add}: one add to a list that lives on
 * (lists grow over the run). Elements are Longs. Backends: stock RocksDB, Falcon with its cache
 * holding 10% or all of the keys' lists, the heap backend.
 *
 * <p>CPU time per operation as in {@link ValueStateBenchmark} ({@code cpuNanos / ops}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class ListStateBenchmark {

    public static final int KEYS = Integer.getInteger("falcon.bench.keys", 100_000);
    public static final int ADDS = 4;
    public static final int BATCH = 1024;

    @Param({"rocksdb", "falcon-10", "falcon-100", "heap"})
    public String backend;

    @Param({"zipf"})
    public String distribution;

    private KeyedBackends backends;
    private AbstractKeyedStateBackend<Long> keyed;
    private ListState<Long> state;
    private Long[] keys;
    private int[] sequence;
    private int position;
    private final Long[] elements = new Long[ADDS];

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        backends = open(backend);
        keyed = backends.backend;
        state =
                keyed.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        new ListStateDescriptor<>("list", LongSerializer.INSTANCE));
        KeySequence seq = KeySequence.of(distribution, KEYS, 42);
        keys = seq.keys;
        sequence = seq.sequence;
        for (int i = 0; i < ADDS; i++) {
            elements[i] = 1_000_000L + i;
        }
    }

    /** As {@link MapStateBenchmark#open}, with the list cache on for Falcon. */
    private static KeyedBackends open(String backend) throws Exception {
        if (!backend.startsWith("falcon-")) {
            return MapStateBenchmark.open(backend);
        }
        java.util.Map<String, String> conf =
                ValueStateBenchmark.falconCache(KEYS, backend.equals("falcon-10") ? 10 : 100);
        conf.put("state.backend.falcon.cache.list-state.enabled", "true");
        return new KeyedBackends("falcon", conf, ValueStateBenchmark.MANAGED_MEMORY);
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
    public void window(Blackhole bh, ValueStateBenchmark.CpuTime cpu) throws Exception {
        int p = position;
        for (int i = 0; i < BATCH; i++, p++) {
            next(p);
            for (int a = 0; a < ADDS; a++) {
                state.add(elements[a]);
            }
            for (Long element : state.get()) {
                bh.consume(element);
            }
            state.clear();
        }
        position = p;
        cpu.ops += BATCH;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void add(ValueStateBenchmark.CpuTime cpu) throws Exception {
        int p = position;
        for (int i = 0; i < BATCH; i++, p++) {
            next(p);
            state.add(elements[p & (ADDS - 1)]);
        }
        position = p;
        cpu.ops += BATCH;
    }
}
