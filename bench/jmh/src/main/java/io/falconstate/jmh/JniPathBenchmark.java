/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.jmh;

import io.falconstate.flink.nativeaccess.NativeCacheOptions;
import io.falconstate.flink.nativeaccess.NativeHotStateCache;
import io.falconstate.flink.nativeaccess.NativeLibrary;

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
 * The Java/JNI path of the hot-state cache alone, without Flink: {@link NativeHotStateCache#get}
 * and {@link NativeHotStateCache#put} with the bytes {@link ValueStateBenchmark} produces (a
 * 10-byte composite key: 1-byte key group, 8-byte Long, 1-byte VoidNamespace; a 68-byte value: the
 * 4-byte length and 64 bytes of {@code BytePrimitiveArraySerializer}), 100k keys all cached,
 * uniform or Zipf 0.99 access. Subtracting the core's own cost ({@code
 * bench/hot_state_cache_bench}) from this leaves what the binding costs per call; subtracting this
 * from {@link ValueStateBenchmark}'s falcon-100 leaves Flink's part (setCurrentKey, key and value
 * serialization).
 *
 * <p>Only the public Java API is used, so the same class measures any version of the binding.
 * Reports the benchmark thread's CPU time per operation as well ({@link
 * ValueStateBenchmark.CpuTime}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class JniPathBenchmark {

    public static final int KEYS = 100_000;
    public static final int BATCH = 1024;

    @Param({"uniform", "zipf"})
    public String distribution;

    private NativeHotStateCache cache;
    private int[] sequence;
    private int position;
    private final byte[] key = new byte[10];
    private final byte[] value = new byte[68];
    private final byte[] valueOut = new byte[128];

    @Setup(Level.Trial)
    public void setUp() {
        if (!NativeLibrary.load().isLoaded()) {
            throw new IllegalStateException("native library: " + NativeLibrary.load());
        }
        cache = new NativeHotStateCache(NativeCacheOptions.fixedSize(256L << 20).maxEntries(KEYS));
        sequence = KeySequence.of(distribution, KEYS, 42).sequence;
        value[3] = 64;
        for (int i = 0; i < KEYS; i++) {
            int code = cache.put(0, keyOf(i), key.length, value, value.length);
            if (code != 0) {
                throw new IllegalStateException("setup put returned " + code);
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        cache.close();
    }

    /** Writes the composite key of {@code k} into the reused key array. */
    private byte[] keyOf(int k) {
        long v = k;
        key[0] = (byte) (k & 127);
        for (int i = 0; i < 8; i++) {
            key[1 + i] = (byte) (v >>> (56 - 8 * i));
        }
        key[9] = 0;
        return key;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void get(Blackhole bh, ValueStateBenchmark.CpuTime cpu) {
        int p = position;
        for (int i = 0; i < BATCH; i++) {
            bh.consume(cache.get(0, keyOf(sequence[p++ & KeySequence.MASK]), 10, valueOut));
        }
        position = p;
        cpu.ops += BATCH;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void put(Blackhole bh, ValueStateBenchmark.CpuTime cpu) {
        int p = position;
        for (int i = 0; i < BATCH; i++) {
            bh.consume(cache.put(0, keyOf(sequence[p++ & KeySequence.MASK]), 10, value, 68));
        }
        position = p;
        cpu.ops += BATCH;
    }
}
