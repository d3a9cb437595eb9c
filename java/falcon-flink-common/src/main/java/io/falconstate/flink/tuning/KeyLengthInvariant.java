/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import io.falconstate.flink.config.FalconOptions;

import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Invariant 3 of the column-family tuning ({@code docs/architecture.md}): every key of a hash
 * column family has its one length n, or Falcon fails loudly. Proven once per state registration
 * from the serializers ({@link #checkRegistration}), and per key on the paths that write keys
 * Falcon builds itself ({@link #checkKeyLength}; the cache applies the rule in {@code
 * StateColumnFamily}). Stateless.
 */
public final class KeyLengthInvariant {

    private KeyLengthInvariant() {}

    /**
     * Invariant 3 at registration, where it costs nothing per record: a state registering (for the
     * first time, after a restore, or again with new serializers) into a hash column family must
     * build keys of exactly the column family's length n from the serializers it registers with.
     * Flink's RocksDB ValueState writes keys without any hook Falcon could check, so this proof is
     * what keeps them at n there; the cache's write-back checks each record as well.
     *
     * @param keySerializer the keyed backend's key serializer now (after restore)
     * @param namespaceSerializer the namespace serializer the state registers with
     * @return the required key length n, or -1 when the column family is not a hash column family
     * @throws IllegalStateException naming the state, n and what the serializers write instead
     */
    public static int checkRegistration(
            ColumnFamilyTuner tuner,
            String columnFamilyName,
            TypeSerializer<?> keySerializer,
            TypeSerializer<?> namespaceSerializer) {
        int required = tuner.requiredKeyLength(columnFamilyName);
        if (required < 0) {
            return -1;
        }
        CompositeKeyLayout layout =
                CompositeKeyLayout.of(
                        tuner.keyGroupPrefixBytes(), keySerializer, namespaceSerializer);
        int actual = layout.keyAndNamespaceBytes();
        if (actual != required) {
            String writes =
                    actual == TuningAdvisor.UNKNOWN_LENGTH
                            ? "keys of no fixed length ("
                                    + (layout.keyLengthUnknownBecause() != null
                                            ? layout.keyLengthUnknownBecause()
                                            : layout.namespaceLengthUnknownBecause())
                                    + ")"
                            : actual + "-byte keys";
            throw new IllegalStateException(
                    "[FALCON] state "
                            + columnFamilyName
                            + " has a HashLinkList memtable over "
                            + required
                            + "-byte keys, but the serializers it registers with write "
                            + writes
                            + " ("
                            + layout
                            + "); a changed key or namespace serializer must keep the key "
                            + "length. Set "
                            + FalconOptions.TUNING_VALUE_STATE_HASH_MEMTABLE.key()
                            + ": false for this job.");
        }
        return required;
    }

    /**
     * Invariant 3 per key, for paths that write keys Falcon builds itself: throws {@link
     * IllegalStateException} naming the state when {@code keyLength} breaks a hash column family's
     * fixed length. One map lookup: for per-record use, take {@link
     * ColumnFamilyTuner#requiredKeyLength} once and compare lengths (as the cache's write-back
     * does).
     */
    public static void checkKeyLength(
            ColumnFamilyTuner tuner, String columnFamilyName, int keyLength) {
        int required = tuner.requiredKeyLength(columnFamilyName);
        if (required >= 0 && keyLength != required) {
            throw new IllegalStateException(
                    keyLengthViolation(columnFamilyName, required, keyLength));
        }
    }

    /** The message of a key-length violation: state, required and actual length, the way out. */
    public static String keyLengthViolation(String state, int requiredLength, int keyLength) {
        return "[FALCON] state "
                + state
                + " uses a HashLinkList memtable over "
                + requiredLength
                + "-byte keys, but a "
                + keyLength
                + "-byte key was written; its serializers do not produce one fixed length. "
                + "Set "
                + FalconOptions.TUNING_VALUE_STATE_HASH_MEMTABLE.key()
                + ": false for this job.";
    }
}
