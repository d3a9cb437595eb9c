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

import org.openjdk.jmh.annotations.AuxCounters;
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

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * ValueState get / update / get+update through Flink's state API, in the style of flink-benchmarks'
 * ValueStateBenchmark (a keyed backend built directly, setCurrentKey + one state call per
 * operation). 100k Long keys, 64-byte byte[] values, uniform or Zipf(0.99) access; stock RocksDB,
 * Falcon with its cache holding 10% or 100% of the keys, and the heap (HashMapStateBackend)
 * backend. Every key is written once in setup, so reads always hit a present key.
 *
 * <p>Besides ops/ms, every method reports {@code cpuNanos} and {@code ops} per iteration ({@link
 * CpuTime}): the benchmark thread's CPU time, so {@code cpuNanos / ops} is the CPU cost of one
 * operation, which a loaded machine distorts far less than wall-clock throughput (it still excludes
 * background threads such as RocksDB's flushes and compactions).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class ValueStateBenchmark {

    /**
     * 100k keys, as the issue specifies, or the number in the system property {@code
     * falcon.bench.keys} (pass it with {@code -jvmArgsAppend -Dfalcon.bench.keys=...}): with 1,000
     * keys every backend's data stays in the processor's caches, which leaves each backend's
     * instruction path (docs/benchmarks.md, "What a hit costs when nothing misses").
     */
    public static final int KEYS = Integer.getInteger("falcon.bench.keys", 100_000);

    public static final int BATCH = 1024;

    /**
     * Managed memory of the mock slot (RocksDB's block cache and write buffers): 128 MB, or the
     * bytes in the system property {@code falcon.bench.managed-memory} (pass it to the fork with
     * {@code -jvmArgsAppend -Dfalcon.bench.managed-memory=...}; docs/benchmarks.md, the miss-path
     * profile).
     */
    public static final long MANAGED_MEMORY =
            Long.getLong("falcon.bench.managed-memory", 128L << 20);

    /**
     * A checkpoint (both phases, on the benchmark thread, so its CPU time counts) after every this
     * many operations; 0 (the default) never checkpoints, as flink-benchmarks does not. System
     * property {@code falcon.bench.checkpoint-every}: a job flushes its memtables at every
     * checkpoint, which this shows (docs/benchmarks.md, in-place updates).
     */
    public static final long CHECKPOINT_EVERY = Long.getLong("falcon.bench.checkpoint-every", 0);

    /**
     * rocksdb, falcon-10 (cache = 10% of the keys), falcon-100, heap; falcon-10-skiplist (not run
     * by default) is falcon-10 with {@code state.backend.falcon.tuning.value-state.hash-memtable:
     * false}; falcon-10-4k and falcon-100-4k (not run by default) are falcon-10 and falcon-100 with
     * {@code state.backend.falcon.cache.huge-pages: false}.
     */
    @Param({"rocksdb", "falcon-10", "falcon-100", "heap"})
    public String backend;

    @Param({"uniform", "zipf"})
    public String distribution;

    private KeyedBackends backends;
    private AbstractKeyedStateBackend<Long> keyed;
    private ValueState<byte[]> state;
    private Long[] keys;
    private int[] sequence;
    private int position;
    private byte[] value;
    private long sinceCheckpoint;

    /** Falcon's configuration for a cache of {@code percent}% of the keys. */
    static Map<String, String> falconCache(int keys, int percent) {
        Map<String, String> conf = new HashMap<>();
        conf.put("state.backend.falcon.cache.enabled", "true");
        // A fixed per-subtask cache outside managed memory (RocksDB keeps all of it, as in the
        // stock run), bounded by entries: exactly percent% of the keys.
        conf.put("state.backend.falcon.cache.size-per-subtask", "256mb");
        conf.put(
                "state.backend.falcon.cache.entries-per-subtask",
                Long.toString((long) keys * percent / 100));
        return conf;
    }

    static KeyedBackends open(String backend, int keys) throws Exception {
        switch (backend) {
            case "rocksdb":
                return new KeyedBackends("rocksdb", new HashMap<>(), MANAGED_MEMORY);
            case "heap":
                return new KeyedBackends("heap", new HashMap<>(), MANAGED_MEMORY);
            case "falcon-10":
                return new KeyedBackends("falcon", falconCache(keys, 10), MANAGED_MEMORY);
            case "falcon-100":
                return new KeyedBackends("falcon", falconCache(keys, 100), MANAGED_MEMORY);
            case "falcon-10-4k":
            case "falcon-100-4k":
                {
                    Map<String, String> conf =
                            falconCache(keys, backend.startsWith("falcon-100") ? 100 : 10);
                    conf.put("state.backend.falcon.cache.huge-pages", "false");
                    return new KeyedBackends("falcon", conf, MANAGED_MEMORY);
                }
            case "falcon-10-skiplist":
                {
                    // falcon-10 with RocksDB's default skiplist memtable (the hash memtable,
                    // 'auto' by default, forced off).
                    Map<String, String> conf = falconCache(keys, 10);
                    conf.put("state.backend.falcon.tuning.value-state.hash-memtable", "false");
                    return new KeyedBackends("falcon", conf, MANAGED_MEMORY);
                }
            default:
                throw new IllegalArgumentException(backend);
        }
    }

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        backends = open(backend, KEYS);
        keyed = backends.backend;
        state =
                keyed.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        new ValueStateDescriptor<>("value", BytePrimitiveArraySerializer.INSTANCE));
        KeySequence seq = KeySequence.of(distribution, KEYS, 42);
        keys = seq.keys;
        sequence = seq.sequence;
        value = KeySequence.value(7);
        for (int i = 0; i < KEYS; i++) {
            keyed.setCurrentKey(keys[i]);
            state.update(KeySequence.value(i));
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        if (CHECKPOINT_EVERY > 0) {
            System.out.println(
                    "\n[checkpoints] "
                            + backend
                            + " "
                            + distribution
                            + ": "
                            + backends.checkpoints()
                            + " every "
                            + CHECKPOINT_EVERY
                            + " operations");
        }
        String counters = backends.cacheCounters();
        if (counters != null) {
            System.out.println(
                    "\n[falcon-cache] " + backend + " " + distribution + ": " + counters);
        }
        backends.close();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void get(Blackhole bh, CpuTime cpu) throws Exception {
        int p = position;
        for (int i = 0; i < BATCH; i++) {
            keyed.setCurrentKey(keys[sequence[p++ & KeySequence.MASK]]);
            bh.consume(state.value());
        }
        position = p;
        cpu.ops += BATCH;
        afterBatch();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void update(CpuTime cpu) throws Exception {
        int p = position;
        for (int i = 0; i < BATCH; i++) {
            keyed.setCurrentKey(keys[sequence[p++ & KeySequence.MASK]]);
            state.update(value);
        }
        position = p;
        cpu.ops += BATCH;
        afterBatch();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void getUpdate(CpuTime cpu) throws Exception {
        int p = position;
        for (int i = 0; i < BATCH; i++) {
            keyed.setCurrentKey(keys[sequence[p++ & KeySequence.MASK]]);
            byte[] v = state.value();
            state.update(v);
        }
        position = p;
        cpu.ops += BATCH;
        afterBatch();
    }

    private void afterBatch() throws Exception {
        if (CHECKPOINT_EVERY > 0 && (sinceCheckpoint += BATCH) >= CHECKPOINT_EVERY) {
            sinceCheckpoint = 0;
            backends.checkpoint();
        }
    }

    /**
     * CPU time of the benchmark thread over one iteration and the operations it ran, as JMH
     * secondary results ({@code cpuNanos}, {@code ops}); summarize.py divides them. Read once per
     * iteration, so it costs nothing per operation.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class CpuTime {
        private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

        public long cpuNanos;
        public long ops;
        private long start;

        @Setup(Level.Iteration)
        public void start() {
            cpuNanos = 0;
            ops = 0;
            start = THREADS.getCurrentThreadCpuTime();
        }

        @TearDown(Level.Iteration)
        public void stop() {
            cpuNanos = THREADS.getCurrentThreadCpuTime() - start;
        }
    }
}
