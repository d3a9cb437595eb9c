/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeinfo.BasicTypeInfo;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.typeutils.TupleTypeInfo;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.runtime.state.SerializedCompositeKeyBuilder;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.windowing.windows.GlobalWindow;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarCharType;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link CompositeKeyLayout} against the bytes Flink's own {@link SerializedCompositeKeyBuilder}
 * produces, for the serializers jobs and SQL use.
 */
class CompositeKeyLayoutTest {

    /** Builds real composite keys and returns their lengths (value-state keys). */
    private static <K, N> List<Integer> builtLengths(
            TypeSerializer<K> keySerializer,
            List<K> keys,
            TypeSerializer<N> namespaceSerializer,
            List<N> namespaces,
            int keyGroupBytes) {
        SerializedCompositeKeyBuilder<K> builder =
                new SerializedCompositeKeyBuilder<>(keySerializer, keyGroupBytes, 32);
        List<Integer> lengths = new ArrayList<>();
        int group = 0;
        for (K key : keys) {
            for (N namespace : namespaces) {
                builder.setKeyAndKeyGroup(key, group++ % (keyGroupBytes == 1 ? 128 : 32768));
                lengths.add(
                        builder.buildCompositeKeyNamespace(namespace, namespaceSerializer).length);
            }
        }
        return lengths;
    }

    private static <K, N> void assertFixedAndMatches(
            TypeSerializer<K> keySerializer,
            List<K> keys,
            TypeSerializer<N> namespaceSerializer,
            List<N> namespaces,
            int keyGroupBytes,
            int expectedLength) {
        CompositeKeyLayout layout =
                CompositeKeyLayout.of(keyGroupBytes, keySerializer, namespaceSerializer);
        assertThat(layout.keyAndNamespaceBytes()).as(layout.toString()).isEqualTo(expectedLength);
        assertThat(
                        builtLengths(
                                keySerializer,
                                keys,
                                namespaceSerializer,
                                namespaces,
                                keyGroupBytes))
                .as("lengths Flink's builder writes")
                .isNotEmpty()
                .allMatch(l -> l == expectedLength);
    }

    private static List<Long> longs() {
        List<Long> l = new ArrayList<>();
        for (long v : new long[] {0, 1, -1, Long.MAX_VALUE, Long.MIN_VALUE, 1L << 40}) {
            l.add(v);
        }
        return l;
    }

    @Test
    void longKeyVoidNamespace() {
        // VoidNamespaceSerializer declares 0 bytes but writes one.
        assertFixedAndMatches(
                LongSerializer.INSTANCE,
                longs(),
                VoidNamespaceSerializer.INSTANCE,
                java.util.Collections.singletonList(VoidNamespace.INSTANCE),
                1,
                10);
        assertFixedAndMatches(
                LongSerializer.INSTANCE,
                longs(),
                VoidNamespaceSerializer.INSTANCE,
                java.util.Collections.singletonList(VoidNamespace.INSTANCE),
                2,
                11);
    }

    @Test
    void intKeyTimeWindowAndGlobalWindowNamespaces() {
        List<Integer> ints = java.util.Arrays.asList(0, 7, -7, Integer.MAX_VALUE);
        assertFixedAndMatches(
                IntSerializer.INSTANCE,
                ints,
                new TimeWindow.Serializer(),
                java.util.Arrays.asList(new TimeWindow(0, 10), new TimeWindow(-5, Long.MAX_VALUE)),
                2,
                2 + 4 + 16);
        assertFixedAndMatches(
                IntSerializer.INSTANCE,
                ints,
                new GlobalWindow.Serializer(),
                java.util.Collections.singletonList(GlobalWindow.get()),
                1,
                1 + 4 + 1);
    }

    @Test
    void tupleOfFixedFieldsIsFixed() {
        @SuppressWarnings("unchecked")
        TypeSerializer<Tuple2<Long, Integer>> tuple =
                new TupleTypeInfo<Tuple2<Long, Integer>>(
                                BasicTypeInfo.LONG_TYPE_INFO, BasicTypeInfo.INT_TYPE_INFO)
                        .createSerializer(new ExecutionConfig());
        assertFixedAndMatches(
                tuple,
                java.util.Arrays.asList(Tuple2.of(1L, 2), Tuple2.of(-1L, Integer.MIN_VALUE)),
                VoidNamespaceSerializer.INSTANCE,
                java.util.Collections.singletonList(VoidNamespace.INSTANCE),
                1,
                1 + 12 + 1);
    }

    @Test
    void variableLengthKeyIsUnknownWithReason() {
        CompositeKeyLayout layout =
                CompositeKeyLayout.of(
                        1, StringSerializer.INSTANCE, VoidNamespaceSerializer.INSTANCE);
        assertThat(layout.keyBytes()).isEqualTo(TuningAdvisor.UNKNOWN_LENGTH);
        assertThat(layout.namespaceBytes()).isEqualTo(1);
        assertThat(layout.keyAndNamespaceBytes()).isEqualTo(TuningAdvisor.UNKNOWN_LENGTH);
        assertThat(layout.keyLengthUnknownBecause())
                .isEqualTo("key serializer StringSerializer is variable-length");
        assertThat(layout.lengthSuffixes()).isFalse();
        // And indeed Flink writes different lengths.
        assertThat(
                        builtLengths(
                                StringSerializer.INSTANCE,
                                java.util.Arrays.asList("a", "abc"),
                                VoidNamespaceSerializer.INSTANCE,
                                java.util.Collections.singletonList(VoidNamespace.INSTANCE),
                                1))
                .containsExactly(4, 6); // [key group][length varint][chars][namespace]
    }

    @Test
    void variableLengthNamespaceIsUnknown() {
        CompositeKeyLayout layout =
                CompositeKeyLayout.of(1, LongSerializer.INSTANCE, StringSerializer.INSTANCE);
        assertThat(layout.keyBytes()).isEqualTo(8);
        assertThat(layout.namespaceBytes()).isEqualTo(TuningAdvisor.UNKNOWN_LENGTH);
        assertThat(layout.namespaceLengthUnknownBecause())
                .isEqualTo("namespace serializer StringSerializer is variable-length");
    }

    // -- SQL row keys --------------------------------------------------------------------------

    private static RowDataSerializer rows(LogicalType... types) {
        return new RowDataSerializer(types);
    }

    @Test
    void sqlRowKeyOfFixedWidthFieldsIsFixedAlthoughDeclaredVariable() {
        RowDataSerializer key = rows(new BigIntType(), new IntType(), new BooleanType());
        assertThat(key.getLength()).isEqualTo(-1);
        List<RowData> keys = new ArrayList<>();
        keys.add(GenericRowData.of(1L, 2, true));
        keys.add(GenericRowData.of(null, null, null));
        keys.add(key.toBinaryRow(GenericRowData.of(Long.MIN_VALUE, -1, false)).copy());
        // 4 (length int) + 8 (header and null bits) + 3 * 8.
        assertFixedAndMatches(
                key,
                keys,
                VoidNamespaceSerializer.INSTANCE,
                java.util.Collections.singletonList(VoidNamespace.INSTANCE),
                1,
                1 + 36 + 1);
    }

    @Test
    void sqlKeyFromInternalTypeInfoIsRecognised() {
        // What SQL operators get from BinaryRowDataKeySelector.getProducedType().
        TypeSerializer<RowData> key =
                InternalTypeInfo.of(RowType.of(new BigIntType()))
                        .createSerializer(new ExecutionConfig());
        assertThat(CompositeKeyLayout.fixedSerializedLength(key).bytes()).isEqualTo(4 + 16);
    }

    @Test
    void compactDecimalAndMillisecondTimestampAreFixedWidthOthersAreNot() {
        RowDataSerializer compact =
                rows(new DecimalType(18, 2), new TimestampType(3), new BigIntType());
        List<RowData> keys = new ArrayList<>();
        keys.add(
                GenericRowData.of(
                        DecimalData.fromBigDecimal(new BigDecimal("12.34"), 18, 2),
                        TimestampData.fromEpochMillis(123),
                        5L));
        keys.add(GenericRowData.of(null, TimestampData.fromEpochMillis(-1), 0L));
        assertFixedAndMatches(
                compact,
                keys,
                VoidNamespaceSerializer.INSTANCE,
                java.util.Collections.singletonList(VoidNamespace.INSTANCE),
                1,
                1 + 4 + 8 + 24 + 1);

        for (LogicalType variable :
                new LogicalType[] {
                    new DecimalType(20, 2), new TimestampType(6), new VarCharType(10)
                }) {
            CompositeKeyLayout.FixedLength length =
                    CompositeKeyLayout.fixedSerializedLength(rows(new BigIntType(), variable));
            assertThat(length.isKnown()).as(variable.toString()).isFalse();
            assertThat(length.unknownBecause()).contains("variable-length field");
        }
        // And a STRING field does give different lengths.
        assertThat(
                        builtLengths(
                                rows(new VarCharType(10)),
                                java.util.Arrays.<RowData>asList(
                                        GenericRowData.of(StringData.fromString("a")),
                                        GenericRowData.of(StringData.fromString("abcdefghij"))),
                                VoidNamespaceSerializer.INSTANCE,
                                java.util.Collections.singletonList(VoidNamespace.INSTANCE),
                                1))
                .doesNotHaveDuplicates();
    }

    /**
     * Both serializers declare a variable length, so Flink appends a length suffix to each; with
     * SQL rows of fixed-width fields on both sides every key still has one length, suffixes
     * included.
     */
    @Test
    void lengthSuffixesAreCountedWhenBothSerializersDeclareVariableLength() {
        RowDataSerializer key = rows(new BigIntType());
        RowDataSerializer namespace = rows(new IntType(), new IntType());
        CompositeKeyLayout layout = CompositeKeyLayout.of(2, key, namespace);
        assertThat(layout.lengthSuffixes()).isTrue();
        int keyRow = 4 + 16;
        int namespaceRow = 4 + 8 + 16;
        assertThat(layout.keyBytes()).isEqualTo(keyRow + 1);
        assertThat(layout.namespaceBytes()).isEqualTo(namespaceRow + 1);
        assertFixedAndMatches(
                key,
                java.util.Arrays.<RowData>asList(GenericRowData.of(1L), GenericRowData.of(-9L)),
                namespace,
                java.util.Arrays.<RowData>asList(
                        GenericRowData.of(1, 2), GenericRowData.of(null, Integer.MAX_VALUE)),
                2,
                2 + keyRow + 1 + namespaceRow + 1);
    }

    @Test
    void variableIntBytesMatchesFlinksWriter() throws IOException {
        for (int v : new int[] {0, 1, 255, 256, 65535, 65536, 1 << 24, Integer.MAX_VALUE, -1}) {
            org.apache.flink.core.memory.DataOutputSerializer out =
                    new org.apache.flink.core.memory.DataOutputSerializer(8);
            org.apache.flink.runtime.state.CompositeKeySerializationUtils.writeVariableIntBytes(
                    v, out);
            assertThat(CompositeKeyLayout.variableIntBytes(v))
                    .as("value %s", v)
                    .isEqualTo(out.length());
        }
    }

    /** A serializer whose declared length is not what it writes is not trusted. */
    @Test
    void serializerThatMisdeclaresItsLengthIsUnknown() {
        CompositeKeyLayout.FixedLength length =
                CompositeKeyLayout.fixedSerializedLength(new MisdeclaringSerializer());
        assertThat(length.isKnown()).isFalse();
        assertThat(length.unknownBecause())
                .isEqualTo("serializer MisdeclaringSerializer declares 4 bytes but writes 8");
    }

    @Test
    void keyGroupPrefixBytesFollowsMaxParallelism() {
        assertThat(CompositeKeyLayout.keyGroupPrefixBytes(128)).isEqualTo(1);
        assertThat(CompositeKeyLayout.keyGroupPrefixBytes(129)).isEqualTo(2);
        assertThat(CompositeKeyLayout.keyGroupPrefixBytes(32768)).isEqualTo(2);
        assertThatThrownBy(
                        () ->
                                CompositeKeyLayout.of(
                                        3, LongSerializer.INSTANCE, LongSerializer.INSTANCE))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** Declares 4 bytes, writes a long. */
    static final class MisdeclaringSerializer extends TypeSerializerSingleton<Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public boolean isImmutableType() {
            return true;
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
            return 4;
        }

        @Override
        public void serialize(Long record, DataOutputView target) throws IOException {
            target.writeLong(record);
        }

        @Override
        public Long deserialize(DataInputView source) throws IOException {
            return source.readLong();
        }

        @Override
        public Long deserialize(Long reuse, DataInputView source) throws IOException {
            return source.readLong();
        }

        @Override
        public void copy(DataInputView source, DataOutputView target) throws IOException {
            target.writeLong(source.readLong());
        }

        @Override
        public TypeSerializerSnapshot<Long> snapshotConfiguration() {
            return new SimpleTypeSerializerSnapshot<Long>(MisdeclaringSerializer::new) {};
        }
    }
}
