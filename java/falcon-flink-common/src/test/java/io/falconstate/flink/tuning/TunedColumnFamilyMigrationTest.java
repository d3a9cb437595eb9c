/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import io.falconstate.flink.FalconStateBackend;
import io.falconstate.flink.tuning.TunedBackends.SnapshotKind;
import io.falconstate.flink.tuning.TunedBackends.Tuning;

import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.testutils.statemigration.TestType;
import org.apache.flink.testutils.junit.extensions.parameterized.Parameter;
import org.apache.flink.testutils.junit.extensions.parameterized.ParameterizedTestExtension;
import org.apache.flink.testutils.junit.extensions.parameterized.Parameters;
import org.apache.flink.util.IOUtils;
import org.apache.flink.util.StateMigrationException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestTemplate;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * State migrations on column families Falcon really tuned, under every tuning combination and both
 * checkpoint modes. (Flink's own migration suite, {@link TunedStateMigrationTest}, registers its
 * states with {@code CustomVoidNamespaceSerializer}, which declares a length of 0 bytes and writes
 * 1, so Falcon rightly leaves those column families untuned.) The tests use {@code Long} keys and
 * {@code VoidNamespace}, assert that the column family is tuned before they migrate, and hold data
 * both in SST files and in memtables (or the cache) when the snapshot is taken. A full restore
 * (canonical savepoint) writes the restored entries into memtables: Falcon flushes hash memtables
 * after the restore, so there a migration reads hash column families from SST files and MapState
 * column families from their memtables. Flink migrates only on restore: a state registered in the
 * running backend refuses a new serializer. A tuned ValueState beside a migrating MapState matters
 * too: a DB-wide RocksDB setting of one column family (as {@code inplace_update_support} was)
 * breaks Flink's migration of every other.
 */
@ExtendWith(ParameterizedTestExtension.class)
public class TunedColumnFamilyMigrationTest {

    private static final int KEYS = 200;

    private static final String VALUES = "values";
    private static final String COUNTER = "counter";
    private static final String MAP = "map";

    @Parameter(0)
    public Tuning tuning;

    @Parameter(1)
    public boolean incremental;

    @TempDir Path tempFolder;

    @Parameters(name = "{0}, incremental={1}")
    public static Collection<Object[]> parameters() {
        List<Object[]> parameters = new ArrayList<>();
        for (Tuning tuning : Tuning.values()) {
            parameters.add(new Object[] {tuning, true});
            parameters.add(new Object[] {tuning, false});
        }
        return parameters;
    }

    private MockEnvironment env;
    private TunedBackends.Snapshots snapshots;

    @BeforeEach
    void createEnvironment() {
        env = MockEnvironment.builder().build();
        snapshots = new TunedBackends.Snapshots();
    }

    @AfterEach
    void closeEnvironment() {
        IOUtils.closeQuietly(env);
    }

    private FalconStateBackend getStateBackend() throws Exception {
        return TunedBackends.falcon(tuning, incremental, dir());
    }

    private Path dir() throws Exception {
        return Files.createTempDirectory(tempFolder, "db");
    }

    // -- ValueState on a hash column family -------------------------------------------------------

    @TestTemplate
    void valueStateMigratesOnHashColumnFamilyAfterEveryKindOfRestore() throws Exception {
        for (SnapshotKind kind : SnapshotKind.values()) {
            KeyedStateHandle snapshot = writeValues(getStateBackend(), kind, true);
            migrateValuesAndCheck(snapshot, kind);
        }
    }

    @TestTemplate
    void valueStateFromStockSavepointMigratesOnHashColumnFamily() throws Exception {
        KeyedStateHandle snapshot =
                writeValues(
                        TunedBackends.stock(incremental, dir()),
                        SnapshotKind.CANONICAL_SAVEPOINT,
                        false);
        migrateValuesAndCheck(snapshot, SnapshotKind.CANONICAL_SAVEPOINT);
    }

    @TestTemplate
    void valueStateReconfiguresOnHashColumnFamily() throws Exception {
        KeyedStateHandle snapshot = writeValues(getStateBackend(), SnapshotKind.CHECKPOINT, true);
        AbstractKeyedStateBackend<Long> restored =
                TunedBackends.keyed(getStateBackend(), env, TunedBackends.from(snapshot));
        try {
            assertThat(TunedBackends.hasHashMemtable(restored, VALUES)).isTrue();
            ValueState<TestType> values =
                    valueState(restored, new TestType.ReconfigurationRequiringTestTypeSerializer());
            checkValues(restored, values, "v");
        } finally {
            restored.dispose();
        }
    }

    @TestTemplate
    void incompatibleValueSerializerIsRefusedOnHashColumnFamily() throws Exception {
        KeyedStateHandle snapshot = writeValues(getStateBackend(), SnapshotKind.CHECKPOINT, true);
        AbstractKeyedStateBackend<Long> restored =
                TunedBackends.keyed(getStateBackend(), env, TunedBackends.from(snapshot));
        try {
            assertThat(TunedBackends.hasHashMemtable(restored, VALUES)).isTrue();
            assertThatThrownBy(
                            () ->
                                    valueState(
                                            restored,
                                            new TestType.IncompatibleTestTypeSerializer()))
                    .satisfiesAnyOf(
                            e -> assertThat(e).isInstanceOf(StateMigrationException.class),
                            e -> assertThat(e).hasCauseInstanceOf(StateMigrationException.class));
        } finally {
            restored.dispose();
        }
    }

    // --- MapState beside tuned ValueStates ---

    @TestTemplate
    void mapStateUserValuesMigrateBesideHashColumnFamilies() throws Exception {
        for (SnapshotKind kind : SnapshotKind.values()) {
            KeyedStateHandle snapshot = writeMaps(getStateBackend(), kind);
            AbstractKeyedStateBackend<Long> restored =
                    TunedBackends.keyed(getStateBackend(), env, TunedBackends.from(snapshot));
            KeyedStateHandle again;
            try {
                assertTunedMapBackend(restored);
                MapState<Long, TestType> map =
                        mapState(restored, new TestType.V2TestTypeSerializer());
                checkMaps(restored, map, "m");
                checkCounters(restored, counter(restored), 1);
                for (long k = 0; k < KEYS; k += 3) {
                    restored.setCurrentKey(k);
                    map.put(100L, new TestType("after", (int) k));
                }
                again = snapshots.take(restored, SnapshotKind.CHECKPOINT);
            } finally {
                restored.dispose();
            }
            assertThat(readMapsAfterRestore(getStateBackend(), again))
                    .as("%s: the migrated state's next checkpoint, on Falcon and on stock", kind)
                    .isEqualTo(
                            readMapsAfterRestore(TunedBackends.stock(incremental, dir()), again));
        }
    }

    /** As {@link #readValuesAfterRestore}, for the maps. */
    private List<String> readMapsAfterRestore(StateBackend backend, KeyedStateHandle snapshot)
            throws Exception {
        AbstractKeyedStateBackend<Long> kb =
                TunedBackends.keyed(backend, env, TunedBackends.from(snapshot));
        try {
            MapState<Long, TestType> map = mapState(kb, new TestType.V2TestTypeSerializer());
            List<String> read = new ArrayList<>();
            for (long k = 0; k < KEYS; k++) {
                kb.setCurrentKey(k);
                Map<Long, TestType> entries = new TreeMap<>();
                for (Map.Entry<Long, TestType> e : map.entries()) {
                    entries.put(e.getKey(), e.getValue());
                }
                read.add(k + "=" + entries);
            }
            return read;
        } finally {
            kb.dispose();
        }
    }

    // --- helpers ---

    /**
     * Writes {@code KEYS} values with the V1 serializer, half of them pushed into SST files before
     * the other half is written, and takes a snapshot of {@code kind}.
     */
    private KeyedStateHandle writeValues(
            StateBackend backend, SnapshotKind kind, boolean expectTuned) throws Exception {
        AbstractKeyedStateBackend<Long> kb =
                TunedBackends.keyed(backend, env, Collections.emptyList());
        try {
            ValueState<TestType> values = valueState(kb, new TestType.V1TestTypeSerializer());
            ValueState<Long> counter = counter(kb);
            assertThat(TunedBackends.hasHashMemtable(kb, VALUES)).isEqualTo(expectTuned);
            writeValueRange(kb, values, counter, 0, KEYS / 2, "v");
            TunedBackends.pushToSst(kb, VALUES, COUNTER);
            writeValueRange(kb, values, counter, KEYS / 2, KEYS, "v");
            return snapshots.take(kb, kind);
        } finally {
            kb.dispose();
        }
    }

    /**
     * Restores {@code snapshot} into a tuned Falcon backend, registers the V2 serializer (Flink
     * migrates every value), checks the values, updates a third of them, and checks them again
     * after a checkpoint of the migrated state and a second restore.
     */
    private void migrateValuesAndCheck(KeyedStateHandle snapshot, SnapshotKind kind)
            throws Exception {
        AbstractKeyedStateBackend<Long> restored =
                TunedBackends.keyed(getStateBackend(), env, TunedBackends.from(snapshot));
        KeyedStateHandle again;
        try {
            assertThat(TunedBackends.hasHashMemtable(restored, VALUES))
                    .as("restored %s column family tuned", VALUES)
                    .isTrue();
            ValueState<TestType> values = valueState(restored, new TestType.V2TestTypeSerializer());
            checkValues(restored, values, "v");
            ValueState<Long> counter = counter(restored);
            checkCounters(restored, counter, 1);
            for (long k = 0; k < KEYS; k += 3) {
                restored.setCurrentKey(k);
                values.update(new TestType("w" + k, (int) k));
            }
            again = snapshots.take(restored, SnapshotKind.CHECKPOINT);
        } finally {
            restored.dispose();
        }
        assertThat(readValuesAfterRestore(getStateBackend(), again))
                .as(
                        "%s: the migrated state's next checkpoint, restored on Falcon and on stock",
                        kind)
                .isEqualTo(readValuesAfterRestore(TunedBackends.stock(incremental, dir()), again));
    }

    /**
     * Every key's value after restoring {@code snapshot} and registering the V2 serializer, as
     * text. A checkpoint taken after a migration records the previous serializer's snapshot in
     * Flink 1.16 (stock does the same), so a second restore migrates again; the test asks only that
     * Falcon reads exactly what the stock backend reads.
     */
    private List<String> readValuesAfterRestore(StateBackend backend, KeyedStateHandle snapshot)
            throws Exception {
        AbstractKeyedStateBackend<Long> kb =
                TunedBackends.keyed(backend, env, TunedBackends.from(snapshot));
        try {
            ValueState<TestType> values = valueState(kb, new TestType.V2TestTypeSerializer());
            ValueState<Long> counter = counter(kb);
            List<String> read = new ArrayList<>();
            for (long k = 0; k < KEYS; k++) {
                kb.setCurrentKey(k);
                read.add(k + "=" + values.value() + "/" + counter.value());
            }
            return read;
        } finally {
            kb.dispose();
        }
    }

    private static void writeValueRange(
            AbstractKeyedStateBackend<Long> kb,
            ValueState<TestType> values,
            ValueState<Long> counter,
            int from,
            int to,
            String prefix)
            throws Exception {
        for (long k = from; k < to; k++) {
            kb.setCurrentKey(k);
            values.update(new TestType(prefix + k, (int) k));
            counter.update(k + 1);
        }
    }

    private static void checkValues(
            AbstractKeyedStateBackend<Long> kb, ValueState<TestType> values, String prefix)
            throws Exception {
        for (long k = 0; k < KEYS + 10; k++) {
            kb.setCurrentKey(k);
            assertThat(values.value())
                    .as("value of key %s", k)
                    .isEqualTo(k < KEYS ? new TestType(prefix + k, (int) k) : null);
        }
    }

    private static void checkCounters(
            AbstractKeyedStateBackend<Long> kb, ValueState<Long> counter, long offset)
            throws Exception {
        for (long k = 0; k < KEYS; k++) {
            kb.setCurrentKey(k);
            assertThat(counter.value()).as("counter of key %s", k).isEqualTo(k + offset);
        }
    }

    private KeyedStateHandle writeMaps(StateBackend backend, SnapshotKind kind) throws Exception {
        AbstractKeyedStateBackend<Long> kb =
                TunedBackends.keyed(backend, env, Collections.emptyList());
        try {
            MapState<Long, TestType> map = mapState(kb, new TestType.V1TestTypeSerializer());
            ValueState<Long> counter = counter(kb);
            assertTunedMapBackend(kb);
            writeMapRange(kb, map, counter, 0, KEYS / 2);
            TunedBackends.pushToSst(kb, MAP, COUNTER);
            writeMapRange(kb, map, counter, KEYS / 2, KEYS);
            return snapshots.take(kb, kind);
        } finally {
            kb.dispose();
        }
    }

    /** Key k holds a map of k % 4 + 1 entries (user key i → ("m" + k, i)). */
    private static void writeMapRange(
            AbstractKeyedStateBackend<Long> kb,
            MapState<Long, TestType> map,
            ValueState<Long> counter,
            int from,
            int to)
            throws Exception {
        for (long k = from; k < to; k++) {
            kb.setCurrentKey(k);
            for (long i = 0; i <= k % 4; i++) {
                map.put(i, new TestType("m" + k, (int) i));
            }
            counter.update(k + 1);
        }
    }

    private static void checkMaps(
            AbstractKeyedStateBackend<Long> kb, MapState<Long, TestType> map, String prefix)
            throws Exception {
        for (long k = 0; k < KEYS + 10; k++) {
            kb.setCurrentKey(k);
            Map<Long, TestType> expected = new TreeMap<>();
            for (long i = 0; k < KEYS && i <= k % 4; i++) {
                expected.put(i, new TestType(prefix + k, (int) i));
            }
            Map<Long, TestType> actual = new TreeMap<>();
            for (Map.Entry<Long, TestType> e : map.entries()) {
                actual.put(e.getKey(), e.getValue());
            }
            assertThat(actual).as("map of key %s", k).isEqualTo(expected);
            assertThat(map.get(7L)).isNull();
        }
    }

    /**
     * The ValueState {@code counter} is tuned; {@code map} is tuned where the range filter is on.
     */
    private void assertTunedMapBackend(AbstractKeyedStateBackend<Long> kb) {
        assertThat(TunedBackends.hasHashMemtable(kb, COUNTER)).as(COUNTER).isTrue();
        assertThat(TunedBackends.hasRangeFilter(kb, MAP)).as(MAP).isEqualTo(tuning.rangeFilter());
    }

    private static ValueState<TestType> valueState(
            AbstractKeyedStateBackend<Long> kb, TypeSerializer<TestType> serializer)
            throws Exception {
        return kb.getPartitionedState(
                VoidNamespace.INSTANCE,
                VoidNamespaceSerializer.INSTANCE,
                new ValueStateDescriptor<>(VALUES, serializer));
    }

    private static ValueState<Long> counter(AbstractKeyedStateBackend<Long> kb) throws Exception {
        return kb.getPartitionedState(
                VoidNamespace.INSTANCE,
                VoidNamespaceSerializer.INSTANCE,
                new ValueStateDescriptor<>(COUNTER, LongSerializer.INSTANCE));
    }

    private static MapState<Long, TestType> mapState(
            AbstractKeyedStateBackend<Long> kb, TypeSerializer<TestType> serializer)
            throws Exception {
        return kb.getPartitionedState(
                VoidNamespace.INSTANCE,
                VoidNamespaceSerializer.INSTANCE,
                new MapStateDescriptor<>(MAP, LongSerializer.INSTANCE, serializer));
    }
}
