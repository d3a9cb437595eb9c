/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import io.falconstate.flink.nativeaccess.NativeLayout;

import java.util.Arrays;

/**
 * Byte helpers of the map cache: the packed record format of {@code MapCache} loads and scans
 * ({@code u16 user key length | u32 value length | user key | value}, native byte order) and
 * RocksDB keys (a map's prefix followed by a user key). Stateless.
 */
final class MapRecordBytes {
    private MapRecordBytes() {}

    /** Writes one packed record (native byte order) at {@code at}; returns the end. */
    static int writePacked(
            byte[] out,
            int at,
            byte[] key,
            int keyOffset,
            int keyLength,
            byte[] value,
            int valueOffset,
            int valueLength) {
        java.nio.ByteBuffer b =
                java.nio.ByteBuffer.wrap(out).order(java.nio.ByteOrder.nativeOrder());
        b.putShort(at, (short) keyLength);
        b.putInt(at + 2, valueLength);
        int pos = at + NativeLayout.PACKED_HEADER_BYTES;
        System.arraycopy(key, keyOffset, out, pos, keyLength);
        pos += keyLength;
        System.arraycopy(value, valueOffset, out, pos, valueLength);
        return pos + valueLength;
    }

    static boolean startsWith(byte[] key, byte[] prefix) {
        if (key.length < prefix.length) {
            return false;
        }
        for (int i = prefix.length - 1; i >= 0; i--) {
            if (key[i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
