/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import io.falconstate.flink.FalconKeyedStateBackend;
import io.falconstate.flink.FalconStateBackend;
import io.falconstate.flink.StateBackendCalls;
import io.falconstate.flink.cache.HotStateCacheManager;
import io.falconstate.flink.config.FalconOptions;
import io.falconstate.flink.nativeaccess.NativeLibrary;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.contrib.streaming.state.FalconColumnFamilyAccess;
import org.apache.flink.contrib.streaming.state.FalconRocksDBAccess;
import org.apache.flink.contrib.streaming.state.RocksDBKeyedStateBackend;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.StateSnapshotTransformer;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.internal.InternalValueState;
import org.apache.flink.runtime.state.memory.MemCheckpointStreamFactory;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.apache.flink.util.concurrent.FutureUtils;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksIterator;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.RunnableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Invariant 3 of the tuning, provoked on Flink's RocksDB backend: a key whose length breaks its
 * HashLinkList column family's fixed length fails loudly, naming the state, the required and the
 * actual length, on every path Falcon controls:
 *
 * <ul>
 *   <li>the cache's write-back ({@code WriteBackWriter}), checked per record;
 *   <li>the cache's direct write of an entry it does not keep ({@code WRITE_NOT_CACHED}), per
 *       record;
 *   <li>registration (new, again, or after a restore), for every path including Flink's own {@code
 *       RocksDBValueState}, which writes keys without a hook: the serializers a state registers
 *       with must build exactly the column family's length.
 * </ul>
 *
 * The serializers here lie on purpose (a fixed declared length that some values break, or a length
 * change declared "compatible as is"); Flink's own serializers never do.
 */
class KeyLengthInvariantTest {

    private static final int MAX_PARALLELISM = 128; // 1-byte key-group prefix

    /** Values from here on are written in 12 bytes by the lying serializer. */
    private static final long WIDE = 1_000_000L;

    @TempDir Path tmp;

    private MockEnvironment env;

    @BeforeAll
    static void nativeLibrary() {
        assertThat(NativeLibrary.load().isLoaded()).as(NativeLibrary.load().toString()).isTrue();
    }

    @BeforeEach
    void setUp() {
        env = MockEnvironment.builder().build();
    }

    @AfterEach
    void tearDown() throws Exception {
        env.close();
    }

    // -- backends --------------------------------------------------------------------------------

    private FalconStateBackend tunedBackend(boolean cache, MemorySize cacheSize) {
        EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend(true);
        rocksDb.setPriorityQueueStateType(
                EmbeddedRocksDBStateBackend.PriorityQueueStateType.ROCKSDB);
        rocksDb.setDbStoragePath(tmp.resolve("db-" + UUID.randomUUID()).toString());
        Configuration config = new Configuration();
        config.set(FalconOptions.TUNING_VALUE_STATE_HASH_MEMTABLE, "true");
        config.set(FalconOptions.TUNING_MAP_STATE_RANGE_FILTER, true);
        config.set(FalconOptions.CACHE_ENABLED, cache);
        config.set(FalconOptions.CACHE_SIZE_PER_SUBTASK, cacheSize);
        return new FalconStateBackend(rocksDb).configure(config, getClass().getClassLoader());
    }

    private <K> FalconKeyedStateBackend<K> keyedBackend(
            FalconStateBackend backend,
            TypeSerializer<K> keySerializer,
            Collection<KeyedStateHandle> restore)
            throws Exception {
        AbstractKeyedStateBackend<K> kb =
                StateBackendCalls.keyedBackend(
                        backend,
                        env,
                        new JobID(),
                        "key-length (1/1)#0",
                        keySerializer,
                        MAX_PARALLELISM,
                        new KeyGroupRange(0, MAX_PARALLELISM - 1),
                        env.getTaskKvStateRegistry(),
                        TtlTimeProvider.DEFAULT,
                        new UnregisteredMetricsGroup(),
                        restore,
                        new CloseableRegistry(),
                        1.0);
        assertThat(kb).isInstanceOf(FalconKeyedStateBackend.class);
        return (FalconKeyedStateBackend<K>) kb;
    }

    private static final ValueStateDescriptor<String> ACC =
            new ValueStateDescriptor<>("acc", StringSerializer.INSTANCE);

    private static <K> ValueState<String> acc(AbstractKeyedStateBackend<K> kb) throws Exception {
        return kb.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, ACC);
    }

    private static String violation(int required, int actual) {
        return KeyLengthInvariant.keyLengthViolation("acc", required, actual);
    }

    /** Lengths of every key in the state's column family (memtable flushed first). */
    private static List<Integer> keyLengthsInRocksDb(FalconKeyedStateBackend<?> kb, String state)
            throws Exception {
        RocksDBKeyedStateBackend<?> rocksDb = kb.getRocksDBKeyedStateBackend();
        FalconColumnFamilyAccess.flushColumnFamily(rocksDb, state);
        ColumnFamilyHandle cf = FalconRocksDBAccess.columnFamily(rocksDb, state);
        List<Integer> lengths = new ArrayList<>();
        try (ReadOptions total = new ReadOptions().setTotalOrderSeek(true);
                RocksIterator it = FalconRocksDBAccess.db(rocksDb).newIterator(cf, total)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                lengths.add(it.key().length);
            }
        }
        return lengths;
    }

    // --- the cache's paths ---

    /**
     * The lying key serializer passes registration (its sample value is 8 bytes), so the column
     * family gets a HashLinkList memtable over 1 + 8 + 1 = 10-byte keys; a 12-byte key reaches the
     * cache, and the write-back refuses it before RocksDB sees it.
     */
    @Test
    void writeBackOfAWrongLengthKeyFailsNamingTheState() throws Exception {
        FalconKeyedStateBackend<Long> kb =
                keyedBackend(
                        tunedBackend(true, MemorySize.parse("1mb")),
                        WidthLongSerializer.lying(),
                        Collections.emptyList());
        try {
            ValueState<String> acc = acc(kb);
            TuningProfile profile = kb.getColumnFamilyTuner().profileOf("acc");
            assertThat(profile.isHashMemtable()).isTrue();
            assertThat(profile.prefixLength()).isEqualTo(10);
            for (long k = 0; k < 5; k++) {
                kb.setCurrentKey(k);
                acc.update("v" + k);
            }
            kb.setCurrentKey(WIDE + 7);
            acc.update("wide"); // cached: nothing written yet
            assertThat(acc.value()).isEqualTo("wide");

            assertThatThrownBy(() -> kb.getKeys("acc", VoidNamespace.INSTANCE))
                    .hasRootCauseInstanceOf(IllegalStateException.class)
                    .hasRootCauseMessage(violation(10, 14));
            assertThat(keyLengthsInRocksDb(kb, "acc")).allMatch(length -> length == 10);
        } finally {
            kb.dispose();
        }
    }

    /**
     * An entry larger than the cache's quota is not cached: the cache writes it into RocksDB
     * itself, at once. A right-length key goes through; a wrong-length one throws there.
     */
    @Test
    void notCachedWriteOfAWrongLengthKeyFailsAtOnce() throws Exception {
        FalconKeyedStateBackend<Long> kb =
                keyedBackend(
                        tunedBackend(true, MemorySize.parse("64kb")),
                        WidthLongSerializer.lying(),
                        Collections.emptyList());
        try {
            ValueState<String> acc = acc(kb);
            String huge = new String(new char[100_000]).replace('\0', 'x');
            kb.setCurrentKey(3L);
            acc.update(huge);
            HotStateCacheManager<Long> cache = kb.getHotStateCache();
            assertThat(cache).isNotNull();
            assertThat(cache.stats("acc").notCached())
                    .as("the huge value bypassed the cache")
                    .isPositive();
            assertThat(keyLengthsInRocksDb(kb, "acc")).containsExactly(10);

            kb.setCurrentKey(WIDE + 3);
            assertThatThrownBy(() -> acc.update(huge))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage(violation(10, 14));
            assertThat(keyLengthsInRocksDb(kb, "acc")).containsExactly(10);
        } finally {
            kb.dispose();
        }
    }

    // --- registration: every path, Flink's own RocksDBValueState included ---

    /**
     * With the cache off, Flink's {@code RocksDBValueState} builds and writes the keys; Falcon
     * cannot see them. What it checks is the registration: the namespace serializer changes to one
     * of another fixed length but claims to be compatible as is, Flink accepts it, and the state
     * would write 9-byte keys into a column family of 13-byte keys. Falcon refuses.
     */
    @Test
    void reRegistrationWithSerializersOfAnotherLengthFails() throws Exception {
        FalconKeyedStateBackend<Integer> kb =
                keyedBackend(
                        tunedBackend(false, MemorySize.ZERO),
                        IntSerializer.INSTANCE,
                        Collections.emptyList());
        try {
            // Registered as Flink registers states whose serializers may change later.
            InternalValueState<Integer, Long, String> acc =
                    kb.createOrUpdateInternalState(
                            WidthLongSerializer.fixed(8),
                            ACC,
                            StateSnapshotTransformer.StateSnapshotTransformFactory.noTransform(),
                            true);
            kb.setCurrentKey(1);
            acc.setCurrentNamespace(5L);
            acc.update("one");
            // 1 key-group byte + 4 (int key) + 8 (namespace)
            assertThat(keyLengthsInRocksDb(kb, "acc")).containsExactly(13);

            // The same serializers register again without complaint.
            kb.createOrUpdateInternalState(
                    WidthLongSerializer.fixed(8),
                    ACC,
                    StateSnapshotTransformer.StateSnapshotTransformFactory.noTransform(),
                    true);

            assertThatThrownBy(
                            () ->
                                    kb.createOrUpdateInternalState(
                                            WidthLongSerializer.fixed(4),
                                            ACC,
                                            StateSnapshotTransformer.StateSnapshotTransformFactory
                                                    .noTransform(),
                                            true))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith(
                            "[FALCON] state acc has a HashLinkList memtable over 13-byte keys, "
                                    + "but the serializers it registers with write 9-byte keys");
            assertThat(keyLengthsInRocksDb(kb, "acc")).containsExactly(13);
        } finally {
            kb.dispose();
        }
    }

    /**
     * A restore creates the column family before the state registers, from the snapshot's
     * serializers (which wrote the restored keys: 1 + 8 + 1 = 10 bytes). The job's new key
     * serializer writes 4 bytes but claims to be compatible as is; Flink accepts it, and Falcon
     * refuses the registration instead of mixing 6-byte keys into the restored hash column family.
     */
    @Test
    void restoreWithAKeySerializerOfAnotherLengthFailsAtRegistration() throws Exception {
        FalconKeyedStateBackend<Long> kb =
                keyedBackend(
                        tunedBackend(false, MemorySize.ZERO),
                        WidthLongSerializer.fixed(8),
                        Collections.emptyList());
        KeyedStateHandle checkpoint;
        try {
            ValueState<String> acc = acc(kb);
            for (long k = 0; k < 20; k++) {
                kb.setCurrentKey(k);
                acc.update("v" + k);
            }
            RunnableFuture<SnapshotResult<KeyedStateHandle>> future =
                    kb.snapshot(
                            1L,
                            1L,
                            new MemCheckpointStreamFactory(16 << 20),
                            CheckpointOptions.forCheckpointWithDefaultLocation());
            checkpoint = FutureUtils.runIfNotDoneAndGet(future).getJobManagerOwnedSnapshot();
        } finally {
            kb.dispose();
        }

        // The same serializer restores and reads everything back.
        FalconKeyedStateBackend<Long> same =
                keyedBackend(
                        tunedBackend(false, MemorySize.ZERO),
                        WidthLongSerializer.fixed(8),
                        Collections.singletonList(checkpoint));
        try {
            ValueState<String> acc = acc(same);
            same.setCurrentKey(11L);
            assertThat(acc.value()).isEqualTo("v11");
        } finally {
            same.dispose();
        }

        FalconKeyedStateBackend<Long> narrower =
                keyedBackend(
                        tunedBackend(false, MemorySize.ZERO),
                        WidthLongSerializer.fixed(4),
                        Collections.singletonList(checkpoint));
        try {
            TuningProfile restored = narrower.getColumnFamilyTuner().profileOf("acc");
            assertThat(restored.isHashMemtable()).isTrue();
            assertThat(restored.prefixLength())
                    .as("from the snapshot's key serializer")
                    .isEqualTo(10);
            assertThatThrownBy(() -> acc(narrower))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith(
                            "[FALCON] state acc has a HashLinkList memtable over 10-byte keys, "
                                    + "but the serializers it registers with write 6-byte keys");
        } finally {
            narrower.dispose();
        }
    }

    // --- a serializer that breaks the rules on purpose ---

    /**
     * Longs in {@code width} bytes (8 or 4), or, when lying, declared as 8 bytes but written in 12
     * from {@link #WIDE} on. Its snapshot says "compatible as is" to any other width: the broken
     * upgrade Falcon must catch.
     */
    public static final class WidthLongSerializer extends TypeSerializer<Long> {
        private static final long serialVersionUID = 1L;

        private final int width;
        private final boolean lying;

        private WidthLongSerializer(int width, boolean lying) {
            this.width = width;
            this.lying = lying;
        }

        static WidthLongSerializer fixed(int width) {
            return new WidthLongSerializer(width, false);
        }

        static WidthLongSerializer lying() {
            return new WidthLongSerializer(8, true);
        }

        @Override
        public boolean isImmutableType() {
            return true;
        }

        @Override
        public TypeSerializer<Long> duplicate() {
            return this;
        }

        @Override
        public Long createInstance() {
            return 0L;
        }

        @Override
        public Long copy(Long from) {
            return from;
        }

        @Override
        public Long copy(Long from, Long reuse) {
            return from;
        }

        @Override
        public int getLength() {
            return width;
        }

        @Override
        public void serialize(Long record, DataOutputView target) throws IOException {
            if (width == 4) {
                target.writeInt(record.intValue());
                return;
            }
            target.writeLong(record);
            if (lying && record >= WIDE) {
                target.writeInt(0);
            }
        }

        @Override
        public Long deserialize(DataInputView source) throws IOException {
            if (width == 4) {
                return (long) source.readInt();
            }
            long value = source.readLong();
            if (lying && value >= WIDE) {
                source.readInt();
            }
            return value;
        }

        @Override
        public Long deserialize(Long reuse, DataInputView source) throws IOException {
            return deserialize(source);
        }

        @Override
        public void copy(DataInputView source, DataOutputView target) throws IOException {
            serialize(deserialize(source), target);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof WidthLongSerializer
                    && ((WidthLongSerializer) o).width == width
                    && ((WidthLongSerializer) o).lying == lying;
        }

        @Override
        public int hashCode() {
            return width * 31 + (lying ? 1 : 0);
        }

        @Override
        public TypeSerializerSnapshot<Long> snapshotConfiguration() {
            return new Snapshot(width, lying);
        }

        /** Restores the width it was taken with; accepts every width as is (the lie). */
        public static final class Snapshot implements TypeSerializerSnapshot<Long> {
            private int width;
            private boolean lying;

            public Snapshot() {}

            Snapshot(int width, boolean lying) {
                this.width = width;
                this.lying = lying;
            }

            @Override
            public int getCurrentVersion() {
                return 1;
            }

            @Override
            public void writeSnapshot(DataOutputView out) throws IOException {
                out.writeInt(width);
                out.writeBoolean(lying);
            }

            @Override
            public void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader)
                    throws IOException {
                width = in.readInt();
                lying = in.readBoolean();
            }

            @Override
            public TypeSerializer<Long> restoreSerializer() {
                return new WidthLongSerializer(width, lying);
            }

            @Override
            public TypeSerializerSchemaCompatibility<Long> resolveSchemaCompatibility(
                    TypeSerializer<Long> newSerializer) {
                return newSerializer instanceof WidthLongSerializer
                        ? TypeSerializerSchemaCompatibility.compatibleAsIs()
                        : TypeSerializerSchemaCompatibility.incompatible();
            }
        }
    }
}
