/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import io.falconstate.flink.nativeaccess.NativeLayout;

import javax.annotation.Nullable;

import java.util.Objects;
import java.util.function.IntFunction;

/**
 * What the {@link TuningAdvisor} decided for one column family: either a set of option changes
 * ({@link #tuned()}) or "leave as is" with the reason. Immutable.
 */
public final class TuningProfile {

    /** Memtable representation. */
    public enum Memtable {
        /** RocksDB's default; a profile never switches a column family to it, it keeps it. */
        SKIP_LIST,
        HASH_LINK_LIST
    }

    /** SST filter policy. */
    public enum Filter {
        /** Whatever Flink's resource container configured (possibly none). */
        KEEP,
        /** A full bloom filter, added when the table config has no filter yet. */
        BLOOM
    }

    private final boolean tuned;
    private final int reasonCode;
    private final String reason;
    private final Memtable memtable;
    private final long hashBucketCount;
    private final int prefixLength;
    private final double memtablePrefixBloomRatio;
    private final Filter filter;
    private final int bloomBitsPerKey;
    @Nullable private final Boolean wholeKeyFiltering;
    private final long arenaBlockSize;
    private final long fixedAllocationBytes;

    private TuningProfile(
            boolean tuned,
            int reasonCode,
            String reason,
            Memtable memtable,
            long hashBucketCount,
            int prefixLength,
            double memtablePrefixBloomRatio,
            Filter filter,
            int bloomBitsPerKey,
            @Nullable Boolean wholeKeyFiltering,
            long arenaBlockSize,
            long fixedAllocationBytes) {
        this.tuned = tuned;
        this.reasonCode = reasonCode;
        this.reason = reason;
        this.memtable = memtable;
        this.hashBucketCount = hashBucketCount;
        this.prefixLength = prefixLength;
        this.memtablePrefixBloomRatio = memtablePrefixBloomRatio;
        this.filter = filter;
        this.bloomBitsPerKey = bloomBitsPerKey;
        this.wholeKeyFiltering = wholeKeyFiltering;
        this.arenaBlockSize = arenaBlockSize;
        this.fixedAllocationBytes = fixedAllocationBytes;
    }

    /** "Leave as is", for {@code reason} (operator-facing text). */
    public static TuningProfile untuned(int reasonCode, String reason) {
        return new TuningProfile(
                false,
                reasonCode,
                reason,
                Memtable.SKIP_LIST,
                0,
                0,
                0.0,
                Filter.KEEP,
                0,
                null,
                0,
                0);
    }

    /** The same refusal with a more precise text (e.g. which serializer has no fixed length). */
    public TuningProfile withReason(String detailedReason) {
        return new TuningProfile(
                tuned,
                reasonCode,
                detailedReason,
                memtable,
                hashBucketCount,
                prefixLength,
                memtablePrefixBloomRatio,
                filter,
                bloomBitsPerKey,
                wholeKeyFiltering,
                arenaBlockSize,
                fixedAllocationBytes);
    }

    /** Decodes the native advisor's packed profile; {@code reasonText} resolves reason codes. */
    static TuningProfile fromPacked(long[] packed, IntFunction<String> reasonText) {
        if (packed == null || packed.length != NativeLayout.ADVICE_COUNT) {
            throw new IllegalStateException(
                    "falcon: native advisor returned a profile of unexpected shape");
        }
        int reasonCode = (int) packed[NativeLayout.ADVICE_REASON];
        if (packed[NativeLayout.ADVICE_TUNED] == 0) {
            return untuned(reasonCode, reasonText.apply(reasonCode));
        }
        long wholeKey = packed[NativeLayout.ADVICE_WHOLE_KEY_FILTERING];
        return new TuningProfile(
                true,
                reasonCode,
                "tuned",
                packed[NativeLayout.ADVICE_MEMTABLE] == NativeLayout.MEMTABLE_HASH_LINK_LIST
                        ? Memtable.HASH_LINK_LIST
                        : Memtable.SKIP_LIST,
                packed[NativeLayout.ADVICE_HASH_BUCKETS],
                (int) packed[NativeLayout.ADVICE_PREFIX_LENGTH],
                packed[NativeLayout.ADVICE_BLOOM_RATIO_MICROS] / 1e6,
                packed[NativeLayout.ADVICE_FILTER] == NativeLayout.FILTER_BLOOM
                        ? Filter.BLOOM
                        : Filter.KEEP,
                (int) packed[NativeLayout.ADVICE_BLOOM_BITS_PER_KEY],
                wholeKey < 0 ? null : wholeKey == 1,
                packed[NativeLayout.ADVICE_ARENA_BLOCK_SIZE],
                packed[NativeLayout.ADVICE_FIXED_ALLOCATION]);
    }

    public boolean tuned() {
        return tuned;
    }

    /** The advisor's reason code ({@link NativeLayout#REASON_NONE} when tuned). */
    public int reasonCode() {
        return reasonCode;
    }

    /** Why the column family is left as is ("tuned" when it is not). */
    public String reason() {
        return reason;
    }

    public Memtable memtable() {
        return memtable;
    }

    /** True for a HashLinkList memtable over a fixed-length prefix of the whole key. */
    public boolean isHashMemtable() {
        return memtable == Memtable.HASH_LINK_LIST;
    }

    /** Bucket count of the hash memtable; 0 for a skiplist. */
    public long hashBucketCount() {
        return hashBucketCount;
    }

    /** Length of the fixed-length prefix extractor; 0 when none is set. */
    public int prefixLength() {
        return prefixLength;
    }

    /** {@code memtable_prefix_bloom_size_ratio}; 0 leaves RocksDB's default. */
    public double memtablePrefixBloomRatio() {
        return memtablePrefixBloomRatio;
    }

    public Filter filter() {
        return filter;
    }

    public int bloomBitsPerKey() {
        return bloomBitsPerKey;
    }

    /** {@code whole_key_filtering} to set, or null to keep what Flink configured. */
    @Nullable
    public Boolean wholeKeyFiltering() {
        return wholeKeyFiltering;
    }

    /**
     * {@code arena_block_size} to set, 0 to keep RocksDB's: small enough that the bucket array or
     * bloom a new memtable allocates first does not take a whole (8 MB) arena block, charged to the
     * slot's write buffer manager even while the memtable is empty.
     */
    public long arenaBlockSize() {
        return arenaBlockSize;
    }

    /**
     * Bytes each memtable of the column family allocates when it is created (the hash bucket array
     * or the memtable bloom), charged to the slot's write-buffer manager; 0 when none.
     */
    public long fixedAllocationBytes() {
        return fixedAllocationBytes;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof TuningProfile)) {
            return false;
        }
        TuningProfile that = (TuningProfile) o;
        return tuned == that.tuned
                && reasonCode == that.reasonCode
                && hashBucketCount == that.hashBucketCount
                && prefixLength == that.prefixLength
                && Double.compare(memtablePrefixBloomRatio, that.memtablePrefixBloomRatio) == 0
                && bloomBitsPerKey == that.bloomBitsPerKey
                && arenaBlockSize == that.arenaBlockSize
                && fixedAllocationBytes == that.fixedAllocationBytes
                && reason.equals(that.reason)
                && memtable == that.memtable
                && filter == that.filter
                && Objects.equals(wholeKeyFiltering, that.wholeKeyFiltering);
    }

    @Override
    public int hashCode() {
        return Objects.hash(tuned, reasonCode, reason, memtable, prefixLength, filter);
    }

    @Override
    public String toString() {
        if (!tuned) {
            return "TuningProfile{untuned: " + reason + '}';
        }
        return "TuningProfile{memtable="
                + memtable
                + (isHashMemtable() ? " (" + hashBucketCount + " buckets)" : "")
                + ", prefix="
                + prefixLength
                + ", memtablePrefixBloomRatio="
                + memtablePrefixBloomRatio
                + ", filter="
                + filter
                + (filter == Filter.BLOOM ? " (" + bloomBitsPerKey + " bits/key)" : "")
                + ", wholeKeyFiltering="
                + (wholeKeyFiltering == null ? "keep" : wholeKeyFiltering)
                + ", arenaBlockSize="
                + arenaBlockSize
                + '}';
    }
}
