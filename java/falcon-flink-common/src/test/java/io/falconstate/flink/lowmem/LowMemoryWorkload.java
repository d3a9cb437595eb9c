/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.lowmem;

import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.time.Time;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;

import java.util.Iterator;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The state traffic of a keyed operator with several MapStates and ValueStates, as a job with
 * little managed memory per slot sees it: maps of a few hundred to 1,500 entries per key, point
 * reads of user keys and keys nobody wrote, iteration with removes, TTL states (read and write
 * update the timestamp, so TTL reads rewrite), and a checkpoint every so many operations.
 *
 * <p>State {@code i} of {@code n} is a MapState unless {@code i % 3 == 2} (a ValueState); every
 * fourth state has a TTL. Keys are {@code Long}s (fixed length, so Falcon's tunings apply), drawn
 * from {@link #PRESENT_KEYS} keys with a skew (a few hot keys, a long tail), and about one
 * operation in twelve reads a key nobody wrote. The stream is a pure function of the seed, the
 * state count and the operation count, so every backend sees the same commands.
 *
 * <p>Not thread-safe: one instance per backend, driven by one thread.
 */
public final class LowMemoryWorkload {

    /** Keys that get written; reads of absent keys use keys above this range. */
    public static final int PRESENT_KEYS = 2_000;

    /** Largest map a key grows (its user keys are below its own bound of 200 to 1,500). */
    public static final int MAX_MAP_ENTRIES = 1_500;

    private static final long ABSENT_KEY_BASE = 1L << 40;
    private static final long ABSENT_USER_KEY_BASE = 1L << 40;

    private final int stateCount;
    private final SplittableRandom random;
    private final Long[] hotOrder;
    private final byte[][] values;
    private final MapState<Long, byte[]>[] maps;
    private final ValueState<byte[]>[] valueStates;
    private final AbstractKeyedStateBackend<Long> backend;
    private long absentKey = ABSENT_KEY_BASE;
    private long checksum;

    /**
     * Registers the {@code stateCount} states in {@code backend}.
     *
     * @param stateCount 1 or more
     * @param seed decides every command
     */
    @SuppressWarnings("unchecked")
    public LowMemoryWorkload(AbstractKeyedStateBackend<Long> backend, int stateCount, long seed)
            throws Exception {
        if (stateCount < 1) {
            throw new IllegalArgumentException("stateCount must be >= 1, got " + stateCount);
        }
        this.backend = backend;
        this.stateCount = stateCount;
        this.random = new SplittableRandom(seed);
        this.hotOrder = new Long[PRESENT_KEYS];
        for (int i = 0; i < PRESENT_KEYS; i++) {
            hotOrder[i] = (long) i;
        }
        for (int i = PRESENT_KEYS - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            Long t = hotOrder[i];
            hotOrder[i] = hotOrder[j];
            hotOrder[j] = t;
        }
        // Value bytes of 24 to 88 bytes, made once: the workload measures the backend, not us.
        values = new byte[64][];
        for (int i = 0; i < values.length; i++) {
            values[i] = new byte[24 + i];
            for (int b = 0; b < values[i].length; b++) {
                values[i][b] = (byte) random.nextInt(256);
            }
        }
        maps = new MapState[stateCount];
        valueStates = new ValueState[stateCount];
        for (int i = 0; i < stateCount; i++) {
            boolean ttl = i % 4 == 3;
            if (isValueState(i)) {
                ValueStateDescriptor<byte[]> descriptor =
                        new ValueStateDescriptor<>(
                                stateName(i), BytePrimitiveArraySerializer.INSTANCE);
                if (ttl) {
                    descriptor.enableTimeToLive(ttlConfig());
                }
                valueStates[i] =
                        backend.getPartitionedState(
                                VoidNamespace.INSTANCE,
                                VoidNamespaceSerializer.INSTANCE,
                                descriptor);
            } else {
                MapStateDescriptor<Long, byte[]> descriptor =
                        new MapStateDescriptor<>(
                                stateName(i),
                                LongSerializer.INSTANCE,
                                BytePrimitiveArraySerializer.INSTANCE);
                if (ttl) {
                    descriptor.enableTimeToLive(ttlConfig());
                }
                maps[i] =
                        backend.getPartitionedState(
                                VoidNamespace.INSTANCE,
                                VoidNamespaceSerializer.INSTANCE,
                                descriptor);
            }
        }
    }

    /** The name of state {@code i} (its RocksDB column family). */
    public static String stateName(int i) {
        return (isValueState(i) ? "value-" : "map-") + i;
    }

    /** Whether state {@code i} is a ValueState (else a MapState). */
    public static boolean isValueState(int i) {
        return i % 3 == 2;
    }

    private static StateTtlConfig ttlConfig() {
        return StateTtlConfig.newBuilder(Time.days(1))
                .setUpdateType(StateTtlConfig.UpdateType.OnReadAndWrite)
                .setStateVisibility(StateTtlConfig.StateVisibility.NeverReturnExpired)
                .build();
    }

    /**
     * Runs {@code operations} commands, calling {@code checkpoint} after every {@code operations /
     * checkpoints} of them (never after the last).
     */
    public void run(long operations, int checkpoints, Checkpointer checkpoint) throws Exception {
        long interval =
                checkpoints > 0 ? Math.max(1, operations / (checkpoints + 1)) : Long.MAX_VALUE;
        for (long op = 1; op <= operations; op++) {
            step();
            if (op % interval == 0 && op < operations) {
                checkpoint.checkpoint();
            }
        }
    }

    /** A checkpoint of the backend (both phases); the workload calls it between commands. */
    public interface Checkpointer {
        void checkpoint() throws Exception;
    }

    /** A sum over everything read, so no read can be optimized away and runs can be compared. */
    public long checksum() {
        return checksum;
    }

    private void step() throws Exception {
        int state = random.nextInt(stateCount);
        boolean absent = random.nextInt(12) == 0;
        Long key = absent ? Long.valueOf(absentKey++) : hotKey();
        backend.setCurrentKey(key);
        int roll = random.nextInt(100);
        if (valueStates[state] != null) {
            valueStep(valueStates[state], absent, roll);
        } else {
            mapStep(maps[state], key, absent, roll);
        }
    }

    /** A skewed pick: the square of a uniform number favours the first keys of the permutation. */
    private Long hotKey() {
        double u = random.nextDouble();
        return hotOrder[(int) (u * u * u * PRESENT_KEYS)];
    }

    private void valueStep(ValueState<byte[]> state, boolean absent, int roll) throws Exception {
        if (absent || roll < 45) {
            byte[] value = state.value();
            checksum += value == null ? 1 : value.length;
        } else if (roll < 95) {
            state.update(values[random.nextInt(values.length)]);
        } else {
            state.clear();
        }
    }

    private void mapStep(MapState<Long, byte[]> map, Long key, boolean absent, int roll)
            throws Exception {
        int bound = absent ? 1 : mapBound(key);
        if (absent) {
            // Reads of a key nobody wrote: a point read and an emptiness check.
            checksum += map.get(Long.valueOf(random.nextInt(MAX_MAP_ENTRIES))) == null ? 1 : 2;
            checksum += map.isEmpty() ? 1 : 2;
        } else if (roll < 45) {
            map.put(Long.valueOf(random.nextInt(bound)), values[random.nextInt(values.length)]);
        } else if (roll < 65) {
            // A user key no map has: what a join's probe of a row it never stored reads.
            checksum += map.get(ABSENT_USER_KEY_BASE + random.nextInt(1 << 20)) == null ? 1 : 2;
        } else if (roll < 80) {
            byte[] value = map.get(Long.valueOf(random.nextInt(bound)));
            checksum += value == null ? 1 : value.length;
        } else if (roll < 88) {
            checksum += map.contains(Long.valueOf(random.nextInt(bound))) ? 2 : 1;
        } else if (roll < 91) {
            iterateWithRemoves(map);
        } else if (roll < 94) {
            for (Map.Entry<Long, byte[]> entry : map.entries()) {
                checksum += entry.getValue().length;
            }
        } else {
            map.remove(Long.valueOf(random.nextInt(bound)));
        }
    }

    /** Walks the whole map and removes about one entry in sixteen, as a cleanup pass does. */
    private void iterateWithRemoves(MapState<Long, byte[]> map) throws Exception {
        int salt = random.nextInt(16);
        Iterator<Map.Entry<Long, byte[]>> it = map.iterator();
        while (it.hasNext()) {
            Map.Entry<Long, byte[]> entry = it.next();
            if (((entry.getKey() + salt) & 15) == 0) {
                it.remove();
            } else {
                checksum += entry.getValue().length;
            }
        }
    }

    /** Each key's own bound on its user keys: 200 to {@link #MAX_MAP_ENTRIES}. */
    private static int mapBound(Long key) {
        return 200 + (int) ((key * 7919L) % (MAX_MAP_ENTRIES - 199));
    }
}
