/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.nativeaccess;

/** A cache's quota at one moment: bytes, and entries (0: no entry cap). Immutable. */
public final class CacheQuota {

    /** A released cache's quota. */
    public static final CacheQuota NONE = new CacheQuota(0, 0);

    private final long bytes;
    private final long entries;

    CacheQuota(long bytes, long entries) {
        this.bytes = bytes;
        this.entries = entries;
    }

    /** Read from a {@code long[]} laid out as {@link NativeLayout}'s {@code QUOTA_*}. */
    static CacheQuota of(long[] values) {
        return new CacheQuota(values[NativeLayout.QUOTA_BYTES], values[NativeLayout.QUOTA_ENTRIES]);
    }

    public long bytes() {
        return bytes;
    }

    /** 0: no entry cap. */
    public long entries() {
        return entries;
    }

    @Override
    public String toString() {
        return "CacheQuota{bytes=" + bytes + ", entries=" + entries + "}";
    }
}
