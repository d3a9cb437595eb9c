/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.CompositeKeySerializationUtils;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;

import javax.annotation.Nullable;

import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * The byte layout of a keyed state's RocksDB keys, as Flink's {@code SerializedCompositeKeyBuilder}
 * writes them:
 *
 * <pre>
 * [key group: 1|2 bytes, big-endian][key][key length?][namespace][namespace length?]
 *                                                   (MapState only:) [user key]
 * </pre>
 *
 * <p>The two length suffixes exist only when both the key and the namespace serializer declare a
 * variable length ({@code getLength() < 0}); each is the byte count of the part before it, written
 * by {@code CompositeKeySerializationUtils.writeVariableIntBytes} (least significant byte first, as
 * many bytes as the value needs, at least one).
 *
 * <p>{@link #keyBytes()} and {@link #namespaceBytes()} are the fixed lengths of "key + its suffix"
 * and "namespace + its suffix" when every value has one length, else {@link
 * TuningAdvisor#UNKNOWN_LENGTH} with a reason. A serializer's length is known when:
 *
 * <ul>
 *   <li>it is {@link VoidNamespaceSerializer}: one byte (it declares 0 but writes one);
 *   <li>it is SQL's {@code RowDataSerializer} and every field is stored in BinaryRowData's fixed
 *       part (numbers, booleans, dates, times, compact decimals and timestamps): {@code 4 +
 *       BinaryRowData.calculateFixPartSizeInBytes(arity)}, although it declares a variable length;
 *   <li>it declares a fixed length {@code getLength() >= 0} and, when it can create an instance,
 *       serializing that instance writes exactly that many bytes (a mismatch means unknown).
 * </ul>
 *
 * Immutable and thread-safe; computing it serializes at most one sample value per serializer.
 */
public final class CompositeKeyLayout {

    private static final String ROW_DATA_SERIALIZER =
            "org.apache.flink.table.runtime.typeutils.RowDataSerializer";

    /** A serializer's fixed serialized length, or why there is none. */
    public static final class FixedLength {
        private final int bytes;
        @Nullable private final String unknownBecause;

        private FixedLength(int bytes, @Nullable String unknownBecause) {
            this.bytes = bytes;
            this.unknownBecause = unknownBecause;
        }

        static FixedLength of(int bytes) {
            return new FixedLength(bytes, null);
        }

        static FixedLength unknown(String because) {
            return new FixedLength(TuningAdvisor.UNKNOWN_LENGTH, because);
        }

        public boolean isKnown() {
            return unknownBecause == null;
        }

        /** The length, or {@link TuningAdvisor#UNKNOWN_LENGTH}. */
        public int bytes() {
            return bytes;
        }

        @Nullable
        public String unknownBecause() {
            return unknownBecause;
        }
    }

    private final int keyGroupPrefixBytes;
    private final boolean lengthSuffixes;
    private final FixedLength key;
    private final FixedLength namespace;

    private CompositeKeyLayout(
            int keyGroupPrefixBytes,
            boolean lengthSuffixes,
            FixedLength key,
            FixedLength namespace) {
        this.keyGroupPrefixBytes = keyGroupPrefixBytes;
        this.lengthSuffixes = lengthSuffixes;
        this.key = key;
        this.namespace = namespace;
    }

    /**
     * The layout of keys built from these serializers.
     *
     * @param keyGroupPrefixBytes 1 or 2, see {@link #keyGroupPrefixBytes(int)}
     */
    public static CompositeKeyLayout of(
            int keyGroupPrefixBytes,
            TypeSerializer<?> keySerializer,
            TypeSerializer<?> namespaceSerializer) {
        if (keyGroupPrefixBytes != 1 && keyGroupPrefixBytes != 2) {
            throw new IllegalArgumentException(
                    "key-group prefix must be 1 or 2 bytes, got " + keyGroupPrefixBytes);
        }
        boolean suffixes =
                CompositeKeySerializationUtils.isAmbiguousKeyPossible(
                        keySerializer, namespaceSerializer);
        FixedLength key = withSuffix(fixedSerializedLength(keySerializer), suffixes, "key");
        FixedLength namespace =
                withSuffix(fixedSerializedLength(namespaceSerializer), suffixes, "namespace");
        return new CompositeKeyLayout(keyGroupPrefixBytes, suffixes, key, namespace);
    }

    /** Flink's key-group prefix length for a maximum parallelism (number of key groups). */
    public static int keyGroupPrefixBytes(int numberOfKeyGroups) {
        return CompositeKeySerializationUtils.computeRequiredBytesInKeyGroupPrefix(
                numberOfKeyGroups);
    }

    public int keyGroupPrefixBytes() {
        return keyGroupPrefixBytes;
    }

    /** True when Flink appends length suffixes to key and namespace. */
    public boolean lengthSuffixes() {
        return lengthSuffixes;
    }

    /** Fixed length of key + suffix, or {@link TuningAdvisor#UNKNOWN_LENGTH}. */
    public int keyBytes() {
        return key.bytes();
    }

    /** Fixed length of namespace + suffix, or {@link TuningAdvisor#UNKNOWN_LENGTH}. */
    public int namespaceBytes() {
        return namespace.bytes();
    }

    @Nullable
    public String keyLengthUnknownBecause() {
        return key.unknownBecause();
    }

    @Nullable
    public String namespaceLengthUnknownBecause() {
        return namespace.unknownBecause();
    }

    /**
     * Length of key group + key + namespace (with suffixes): the length of every ValueState key,
     * and the prefix of every MapState key; {@link TuningAdvisor#UNKNOWN_LENGTH} when not fixed.
     */
    public int keyAndNamespaceBytes() {
        if (!key.isKnown() || !namespace.isKnown()) {
            return TuningAdvisor.UNKNOWN_LENGTH;
        }
        return keyGroupPrefixBytes + key.bytes() + namespace.bytes();
    }

    /** Bytes {@code CompositeKeySerializationUtils.writeVariableIntBytes(value)} writes. */
    static int variableIntBytes(int value) {
        int bytes = 0;
        do {
            bytes++;
            value >>>= 8;
        } while (value != 0);
        return bytes;
    }

    private static FixedLength withSuffix(FixedLength part, boolean suffix, String what) {
        if (!part.isKnown()) {
            return FixedLength.unknown(what + " " + part.unknownBecause());
        }
        return suffix ? FixedLength.of(part.bytes() + variableIntBytes(part.bytes())) : part;
    }

    /** The fixed serialized length of every value of {@code serializer}, or why there is none. */
    public static FixedLength fixedSerializedLength(TypeSerializer<?> serializer) {
        if (serializer instanceof VoidNamespaceSerializer) {
            return FixedLength.of(1); // declares 0, writes one byte
        }
        String name = serializer.getClass().getName();
        if (ROW_DATA_SERIALIZER.equals(name)) {
            return rowDataLength(serializer);
        }
        int declared = serializer.getLength();
        if (declared < 0) {
            return FixedLength.unknown(
                    "serializer " + serializer.getClass().getSimpleName() + " is variable-length");
        }
        Integer sampled = sampleLength(serializer);
        if (sampled != null && sampled != declared) {
            return FixedLength.unknown(
                    "serializer "
                            + serializer.getClass().getSimpleName()
                            + " declares "
                            + declared
                            + " bytes but writes "
                            + sampled);
        }
        return FixedLength.of(declared);
    }

    /** Serialized length of the serializer's own instance, or null when it cannot make one. */
    @Nullable
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Integer sampleLength(TypeSerializer<?> serializer) {
        try {
            TypeSerializer copy = serializer.duplicate();
            Object instance = copy.createInstance();
            if (instance == null) {
                return null;
            }
            DataOutputSerializer out = new DataOutputSerializer(32);
            copy.serialize(instance, out);
            return out.length();
        } catch (Exception | LinkageError e) {
            return null;
        }
    }

    /**
     * SQL's row serializer, inspected reflectively so that this class links without the table
     * runtime: its field types, and BinaryRowData's own rules for which types live in the fixed
     * part and how large that part is.
     */
    private static FixedLength rowDataLength(TypeSerializer<?> serializer) {
        try {
            ClassLoader loader = serializer.getClass().getClassLoader();
            Class<?> logicalType =
                    Class.forName(
                            "org.apache.flink.table.types.logical.LogicalType", false, loader);
            Class<?> binaryRow =
                    Class.forName(
                            "org.apache.flink.table.data.binary.BinaryRowData", false, loader);
            Method isInFixedLengthPart = binaryRow.getMethod("isInFixedLengthPart", logicalType);
            Method fixPartSize = binaryRow.getMethod("calculateFixPartSizeInBytes", int.class);
            Method summary = logicalType.getMethod("asSummaryString");

            Field typesField = serializer.getClass().getDeclaredField("types");
            typesField.setAccessible(true);
            Object[] types = (Object[]) typesField.get(serializer);
            for (Object type : types) {
                if (!(Boolean) isInFixedLengthPart.invoke(null, type)) {
                    return FixedLength.unknown(
                            "row has a variable-length field of type " + summary.invoke(type));
                }
            }
            // BinaryRowDataSerializer writes an int length, then the row; a row whose fields all
            // live in the fixed part has exactly the fixed part's size.
            return FixedLength.of(Integer.BYTES + (Integer) fixPartSize.invoke(null, types.length));
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            return FixedLength.unknown("row serializer could not be inspected: " + e);
        }
    }

    @Override
    public String toString() {
        return "CompositeKeyLayout{keyGroup="
                + keyGroupPrefixBytes
                + ", key="
                + (key.isKnown() ? key.bytes() : "?")
                + ", namespace="
                + (namespace.isKnown() ? namespace.bytes() : "?")
                + (lengthSuffixes ? ", with length suffixes" : "")
                + '}';
    }
}
