/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

/**
 * Sizes the cache's dirty-byte cap from a target pause, so that a barrier nobody foresaw (the first
 * one, an irregular interval, a savepoint) writes back no longer than the target
 * (docs/decisions/0026-dirty-cap-from-a-target-pause.md).
 *
 * <p>Each large write-back (at a barrier, or the pacer's last one before it) is a measurement of
 * how fast this subtask writes back: bytes per nanosecond, smoothed over measurements. The cap is
 * then that rate times the target pause, at least {@link #MIN_CAP_BYTES} (smaller caps would write
 * hot entries back again and again for little gain) and at most the configured ceiling (the fixed
 * {@code max-dirty-bytes}, which is also the cap until the first measurement). With no target the
 * cap is the ceiling, as configured.
 *
 * <p>Pure arithmetic. Not thread-safe: the task thread owns it.
 */
final class DirtyCapController {

    /** The smallest cap the target pause may set. */
    static final long MIN_CAP_BYTES = 1L << 20;

    /** Write-backs smaller than this say more about fixed costs than about the rate: ignored. */
    static final long MIN_MEASURED_BYTES = 1L << 20;

    /** Weight of a new measurement in the smoothed rate. */
    static final double SMOOTHING = 0.5;

    private final long targetNanos;
    private final long ceilingBytes;

    /** Bytes per nanosecond, smoothed; 0 before the first measurement. */
    private double bytesPerNano;

    private long capBytes;

    /**
     * @param targetNanos the pause a barrier's write-back should fit in; 0: no target (the cap
     *     stays the ceiling)
     * @param ceilingBytes the configured cap, the upper bound and the cap until measured; 0: no
     *     ceiling, and no cap before the first measurement
     */
    DirtyCapController(long targetNanos, long ceilingBytes) {
        if (targetNanos < 0 || ceilingBytes < 0) {
            throw new IllegalArgumentException(
                    "negative target pause or ceiling: " + targetNanos + ", " + ceilingBytes);
        }
        this.targetNanos = targetNanos;
        this.ceilingBytes = ceilingBytes;
        this.capBytes = ceilingBytes;
    }

    /**
     * A write-back of {@code bytes} took {@code nanos}. Returns true when the cap changed (the
     * caller hands {@link #capBytes()} to the cache).
     */
    boolean onWriteBack(long bytes, long nanos) {
        if (targetNanos == 0 || bytes < MIN_MEASURED_BYTES || nanos <= 0) {
            return false;
        }
        double rate = (double) bytes / nanos;
        bytesPerNano = bytesPerNano == 0 ? rate : (1 - SMOOTHING) * bytesPerNano + SMOOTHING * rate;
        double target = bytesPerNano * targetNanos;
        long cap = (long) Math.max(MIN_CAP_BYTES, Math.min(target, Long.MAX_VALUE / 2.0));
        if (ceilingBytes > 0) {
            cap = Math.min(cap, ceilingBytes);
        }
        if (cap == capBytes) {
            return false;
        }
        capBytes = cap;
        return true;
    }

    /** The dirty-byte cap now; 0: none. */
    long capBytes() {
        return capBytes;
    }

    /** What a write over the cap leaves dirty: half the cap. */
    long lowWaterBytes() {
        return capBytes / 2;
    }

    /** The smoothed write-back rate in bytes per millisecond; 0 before the first measurement. */
    double bytesPerMilli() {
        return bytesPerNano * 1e6;
    }
}
