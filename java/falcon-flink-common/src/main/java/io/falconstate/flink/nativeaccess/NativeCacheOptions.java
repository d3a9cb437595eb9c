/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.nativeaccess;

/**
 * What a {@link NativeHotStateCache} is made with: its eviction policy, its bounds (fixed, or a
 * budget lease's quota), its dirty-byte cap and whether it may use huge pages. Each setter returns
 * this object; start from {@link #fixedSize}.
 *
 * <p>Not thread-safe; a value to build a cache from, read once by its constructor.
 */
public final class NativeCacheOptions {

    private int policy = NativeHotStateCache.POLICY_W_TINY_LFU;
    private final long maxBytes;
    private long maxEntries;
    private long leaseHandle;
    private long dirtyCapBytes;
    private long dirtyLowWaterBytes;
    private boolean hugePages = true;

    private NativeCacheOptions(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /**
     * A W-TinyLFU cache bounded by {@code maxBytes} (key + value + per-entry overhead), no entry
     * cap, no lease, no dirty-byte cap, huge pages allowed.
     */
    public static NativeCacheOptions fixedSize(long maxBytes) {
        return new NativeCacheOptions(maxBytes);
    }

    /** {@link NativeHotStateCache#POLICY_W_TINY_LFU} or {@link NativeHotStateCache#POLICY_LRU}. */
    public NativeCacheOptions policy(int policy) {
        this.policy = policy;
        return this;
    }

    /** An entry cap besides the byte bound; 0: none. */
    public NativeCacheOptions maxEntries(long maxEntries) {
        this.maxEntries = maxEntries;
        return this;
    }

    /**
     * 0, or a lease from {@link NativeMemoryBudget#register}: the cache takes ownership of it even
     * when creation fails, and its quota replaces the fixed bounds.
     */
    public NativeCacheOptions lease(long leaseHandle) {
        this.leaseHandle = leaseHandle;
        return this;
    }

    /**
     * A dirty-byte cap ({@code capBytes > 0}; 0: none): after a write that leaves more dirty bytes
     * than the cap, the coldest dirty entries are written back until {@code lowWaterBytes} stay
     * dirty (reported as {@link NativeHotStateCache#WRITE_PENDING}).
     */
    public NativeCacheOptions dirtyBytes(long capBytes, long lowWaterBytes) {
        this.dirtyCapBytes = capBytes;
        this.dirtyLowWaterBytes = lowWaterBytes;
        return this;
    }

    /**
     * Whether the entry blocks of a cache of 64 MiB or more, and an index of 2 MiB or more, may ask
     * the kernel for transparent huge pages.
     */
    public NativeCacheOptions hugePages(boolean hugePages) {
        this.hugePages = hugePages;
        return this;
    }

    int policy() {
        return policy;
    }

    long maxBytes() {
        return maxBytes;
    }

    long maxEntries() {
        return maxEntries;
    }

    long leaseHandle() {
        return leaseHandle;
    }

    long dirtyCapBytes() {
        return dirtyCapBytes;
    }

    long dirtyLowWaterBytes() {
        return dirtyLowWaterBytes;
    }

    boolean hugePages() {
        return hugePages;
    }
}
