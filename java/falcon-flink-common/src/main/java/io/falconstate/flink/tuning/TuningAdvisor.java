/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import io.falconstate.flink.nativeaccess.NativeLayout;
import io.falconstate.flink.nativeaccess.NativeLibrary;

import org.apache.flink.api.common.state.StateDescriptor;

import javax.annotation.Nullable;

import java.util.function.BooleanSupplier;

/**
 * Java face of the native {@code falcon::Advise} (include/falcon/tuning_advisor.h): from the kind
 * of a column family and the fixed lengths of its key parts it returns a {@link TuningProfile}. The
 * rules live in C++ only; this class passes primitives in and decodes the packed result.
 *
 * <p>When {@code libfalcon_jni.so} is not loaded every column family is left as is with the reason
 * "native library not loaded". Stateless and thread-safe; called once per column family, never per
 * record.
 */
public final class TuningAdvisor {

    /** Kinds of column families, with the native {@code StateKind} numbers. */
    public enum StateKind {
        VALUE(NativeLayout.STATE_KIND_VALUE),
        LIST(NativeLayout.STATE_KIND_LIST),
        MAP(NativeLayout.STATE_KIND_MAP),
        REDUCING(NativeLayout.STATE_KIND_REDUCING),
        AGGREGATING(NativeLayout.STATE_KIND_AGGREGATING),
        /** {@code _timer_state/...} column families of the RocksDB timer service. */
        TIMER(NativeLayout.STATE_KIND_TIMER),
        /** RocksDB's {@code default} column family. */
        DEFAULT(NativeLayout.STATE_KIND_DEFAULT),
        UNKNOWN(NativeLayout.STATE_KIND_UNKNOWN);

        final int code;

        StateKind(int code) {
            this.code = code;
        }

        /** The kind of a Flink keyed state type; null or unknown types map to UNKNOWN. */
        public static StateKind of(@Nullable StateDescriptor.Type type) {
            if (type == null) {
                return UNKNOWN;
            }
            switch (type) {
                case VALUE:
                    return VALUE;
                case LIST:
                    return LIST;
                case MAP:
                    return MAP;
                case REDUCING:
                    return REDUCING;
                case AGGREGATING:
                    return AGGREGATING;
                default:
                    return UNKNOWN;
            }
        }
    }

    /** Length argument meaning "not one fixed length". */
    public static final int UNKNOWN_LENGTH = -1;

    private TuningAdvisor() {}

    /**
     * The profile for one column family whose memtables are bounded by their write buffer alone (no
     * write-buffer manager).
     *
     * @see #advise(StateKind, int, int, int, long, long, long, boolean, boolean)
     */
    public static TuningProfile advise(
            StateKind kind,
            int keyGroupPrefixBytes,
            int keyBytes,
            int namespaceBytes,
            long writeBufferSize,
            boolean hashMemtableEnabled,
            boolean rangeFilterEnabled) {
        return advise(
                kind,
                keyGroupPrefixBytes,
                keyBytes,
                namespaceBytes,
                writeBufferSize,
                0,
                0,
                hashMemtableEnabled,
                rangeFilterEnabled);
    }

    /**
     * The profile for one column family.
     *
     * @param kind what the column family holds
     * @param keyGroupPrefixBytes 1 or 2 (Flink's key-group prefix)
     * @param keyBytes fixed length of key plus Flink's length suffix, or {@link #UNKNOWN_LENGTH}
     * @param namespaceBytes fixed length of namespace plus its suffix, or {@link #UNKNOWN_LENGTH}
     * @param writeBufferSize the column family's write buffer size in bytes, > 0
     * @param writeBufferManagerCapacity capacity of the slot's write-buffer manager, 0 for none
     * @param fixedAllocationsReserved per-memtable fixed bytes the slot's tuned column families
     *     hold already ({@link SlotWriteBuffers#reserved()})
     * @throws IllegalArgumentException for inputs no Flink state can have
     */
    public static TuningProfile advise(
            StateKind kind,
            int keyGroupPrefixBytes,
            int keyBytes,
            int namespaceBytes,
            long writeBufferSize,
            long writeBufferManagerCapacity,
            long fixedAllocationsReserved,
            boolean hashMemtableEnabled,
            boolean rangeFilterEnabled) {
        return advise(
                NativeLibrary::isLoaded,
                kind,
                keyGroupPrefixBytes,
                keyBytes,
                namespaceBytes,
                writeBufferSize,
                writeBufferManagerCapacity,
                fixedAllocationsReserved,
                hashMemtableEnabled,
                rangeFilterEnabled);
    }

    /** {@link #advise} with the library check explicit, so tests can take both branches. */
    static TuningProfile advise(
            BooleanSupplier nativeLoaded,
            StateKind kind,
            int keyGroupPrefixBytes,
            int keyBytes,
            int namespaceBytes,
            long writeBufferSize,
            long writeBufferManagerCapacity,
            long fixedAllocationsReserved,
            boolean hashMemtableEnabled,
            boolean rangeFilterEnabled) {
        if (!nativeLoaded.getAsBoolean()) {
            return TuningProfile.untuned(
                    NativeLayout.REASON_NATIVE_LIBRARY_NOT_LOADED, "native library not loaded");
        }
        long[] packed =
                nativeAdvise(
                        kind.code,
                        keyGroupPrefixBytes,
                        keyBytes,
                        namespaceBytes,
                        writeBufferSize,
                        writeBufferManagerCapacity,
                        fixedAllocationsReserved,
                        hashMemtableEnabled,
                        rangeFilterEnabled);
        return TuningProfile.fromPacked(packed, TuningAdvisor::nativeReasonText);
    }

    private static native long[] nativeAdvise(
            int kind,
            int keyGroupPrefixBytes,
            int keyBytes,
            int namespaceBytes,
            long writeBufferSize,
            long writeBufferManagerCapacity,
            long fixedAllocationsReserved,
            boolean hashMemtableEnabled,
            boolean rangeFilterEnabled);

    private static native String nativeReasonText(int reason);
}
