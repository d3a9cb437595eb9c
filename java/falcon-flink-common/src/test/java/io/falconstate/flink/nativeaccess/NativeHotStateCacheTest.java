/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.nativeaccess;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static io.falconstate.flink.nativeaccess.NativeHotStateCache.ABSENT;
import static io.falconstate.flink.nativeaccess.NativeHotStateCache.MISS;
import static io.falconstate.flink.nativeaccess.NativeHotStateCache.NEED_BUFFER;
import static io.falconstate.flink.nativeaccess.NativeHotStateCache.WRITE_NOT_CACHED;
import static io.falconstate.flink.nativeaccess.NativeHotStateCache.WRITE_PENDING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The JNI binding of the hot-state cache against the real native library. */
class NativeHotStateCacheTest {

    private NativeHotStateCache cache;
    private final byte[] valueOut = new byte[64];

    @BeforeAll
    static void loadLibrary() {
        assertThat(NativeLibrary.load().isLoaded()).as(NativeLibrary.load().toString()).isTrue();
    }

    @BeforeEach
    void createCache() {
        cache = new NativeHotStateCache(NativeCacheOptions.fixedSize(1 << 20));
    }

    @AfterEach
    void closeCache() {
        cache.close();
    }

    @Test
    void putThenGetReturnsTheValueInTheCallersBuffer() {
        byte[] key = bytes("key-1 and some trailing garbage");
        byte[] value = bytes("value-1");
        assertThat(cache.get(3, key, 5, valueOut)).isEqualTo(MISS);
        assertThat(cache.put(3, key, 5, value, value.length) & WRITE_NOT_CACHED).isZero();
        int n = cache.get(3, key, 5, valueOut);
        assertThat(n).isEqualTo(value.length);
        assertThat(new String(valueOut, 0, n, StandardCharsets.UTF_8)).isEqualTo("value-1");
        // Only the first keyLength bytes are the key.
        assertThat(cache.get(3, bytes("key-1"), 5, valueOut)).isEqualTo(value.length);
        // Same bytes, other state: a different entry.
        assertThat(cache.get(4, key, 5, valueOut)).isEqualTo(MISS);
    }

    @Test
    void aShortValueBufferIsToldTheSizeItNeeds() {
        byte[] key = bytes("k");
        byte[] big = new byte[1000];
        big[999] = 42;
        cache.put(0, key, 1, big, big.length);
        int r = cache.get(0, key, 1, valueOut);
        assertThat(r).isLessThanOrEqualTo(NEED_BUFFER);
        int size = NEED_BUFFER - r;
        assertThat(size).isEqualTo(1000);
        byte[] larger = new byte[size];
        assertThat(cache.get(0, key, 1, larger)).isEqualTo(1000);
        assertThat(larger[999]).isEqualTo((byte) 42);
    }

    @Test
    void keysAndValuesLargerThanTheIoBufferRoundTripIntact() {
        // Larger than NativeHotStateCache.INITIAL_IO_BYTES together: the io buffer grows.
        byte[] key = new byte[3000];
        byte[] value = new byte[9000];
        for (int i = 0; i < key.length; i++) {
            key[i] = (byte) (i * 7);
        }
        for (int i = 0; i < value.length; i++) {
            value[i] = (byte) (i * 13 + 1);
        }
        assertThat(cache.put(6, key, key.length, value, value.length) & WRITE_NOT_CACHED).isZero();
        byte[] out = new byte[value.length];
        assertThat(cache.get(6, key, key.length, out)).isEqualTo(value.length);
        assertThat(out).isEqualTo(value);
        // A key differing in its last byte is another entry.
        key[key.length - 1]++;
        assertThat(cache.get(6, key, key.length, out)).isEqualTo(MISS);
        // Small keys keep working after the buffer grew, and a hit overwrites no other entry.
        cache.put(6, bytes("s"), 1, bytes("tiny"), 4);
        assertThat(cache.get(6, bytes("s"), 1, valueOut)).isEqualTo(4);
        assertThat(new String(valueOut, 0, 4, StandardCharsets.UTF_8)).isEqualTo("tiny");
        key[key.length - 1]--;
        assertThat(cache.get(6, key, key.length, out)).isEqualTo(value.length);
        assertThat(out).isEqualTo(value);
    }

    @Test
    void removeCachesATombstoneThatFlushesAsADelete() {
        byte[] key = bytes("gone");
        cache.put(1, key, key.length, bytes("v"), 1);
        cache.remove(1, key, key.length);
        assertThat(cache.get(1, key, key.length, valueOut)).isEqualTo(ABSENT);

        int code = cache.flush(-1);
        assertThat(code & WRITE_PENDING).isEqualTo(WRITE_PENDING);
        List<String> records = drainAll();
        assertThat(records).containsExactly("1:gone:DELETE");
        // Flushed tombstones stay as clean "known absent" entries.
        assertThat(cache.get(1, key, key.length, valueOut)).isEqualTo(ABSENT);
        assertThat(cache.flush(-1) & WRITE_PENDING).isZero();
    }

    @Test
    void fillIsCleanAndFillOfNullCachesAbsence() {
        byte[] present = bytes("present");
        byte[] missing = bytes("missing");
        cache.fill(2, present, present.length, bytes("from-rocksdb"), 12);
        cache.fill(2, missing, missing.length, null, 0);
        assertThat(cache.get(2, present, present.length, valueOut)).isEqualTo(12);
        assertThat(cache.get(2, missing, missing.length, valueOut)).isEqualTo(ABSENT);
        assertThat(cache.flush(-1) & WRITE_PENDING).as("clean entries are not written").isZero();
    }

    @Test
    void flushEmitsEveryDirtyEntrySortedByKeyWithinEachState() {
        for (String k : new String[] {"c", "a", "b"}) {
            cache.put(7, bytes(k), 1, bytes("v" + k), 2);
            cache.put(5, bytes(k), 1, bytes("w" + k), 2);
        }
        assertThat(cache.flush(7) & WRITE_PENDING).isEqualTo(WRITE_PENDING);
        assertThat(drainAll()).containsExactly("7:a:va", "7:b:vb", "7:c:vc");
        cache.flush(-1);
        assertThat(drainAll()).containsExactly("5:a:wa", "5:b:wb", "5:c:wc");
    }

    @Test
    void evictionUnderPressureWritesDirtyVictimsBack() {
        long perEntry = NativeHotStateCache.chargeFor(8, 32);
        // key + value + the documented overhead, plus at most 15 bytes of allocator rounding.
        assertThat(perEntry).isGreaterThan(40).isLessThanOrEqualTo(40 + 48 + 15);
        recreateCache(perEntry * 10);
        int pendingSeen = 0;
        List<String> written = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            byte[] key = bytes(String.format("key%05d", i));
            int code = cache.put(0, key, 8, new byte[32], 32);
            if ((code & WRITE_PENDING) != 0) {
                pendingSeen++;
                written.addAll(drainAll());
            }
        }
        CacheStats stats = cache.stats(0);
        assertThat(stats.entries()).isLessThanOrEqualTo(10);
        assertThat(stats.bytes()).isLessThanOrEqualTo(perEntry * 10);
        assertThat(pendingSeen).isGreaterThan(0);
        // Every key is either still cached (dirty) or was written back exactly once.
        cache.flush(-1);
        written.addAll(drainAll());
        assertThat(written).hasSize(100).doesNotHaveDuplicates();
        assertThat(stats.puts()).isEqualTo(100);
    }

    @Test
    void drainReportsTheSizeARecordNeeds() {
        cache.put(0, bytes("k"), 1, new byte[5000], 5000);
        cache.flush(-1);
        ByteBuffer small = ByteBuffer.allocateDirect(64);
        int r = cache.drain(small);
        assertThat(r).isEqualTo(-(NativeLayout.RECORD_HEADER_BYTES + 1 + 5000));
        ByteBuffer big = ByteBuffer.allocateDirect(-r);
        assertThat(cache.drain(big)).isEqualTo(-r);
        assertThat(cache.drain(big)).isZero();
    }

    @Test
    void statsCountHitsMissesAndBytes() {
        byte[] key = bytes("s");
        cache.get(9, key, 1, valueOut);
        cache.put(9, key, 1, bytes("1234"), 4);
        cache.get(9, key, 1, valueOut);
        cache.get(9, key, 1, valueOut);
        CacheStats stats = cache.stats(9);
        assertThat(stats.hits()).isEqualTo(2);
        assertThat(stats.misses()).isEqualTo(1);
        assertThat(stats.entries()).isEqualTo(1);
        assertThat(stats.dirtyEntries()).isEqualTo(1);
        // The cache charges what malloc really handed out (malloc_usable_size), so the byte
        // budget holds in RSS. chargeFor assumes an exact-fit chunk; glibc may hand out a free
        // chunk 16 bytes larger rather than split off a remainder too small to be a chunk
        // (which it does depends on the heap this JVM's other threads left behind).
        long charge = NativeHotStateCache.chargeFor(1, 4);
        assertThat(stats.bytes()).isBetween(charge, charge + 16);
        // The whole cache's bounds come with every state's statistics.
        assertThat(stats.capacityBytes()).isEqualTo(1 << 20);
        assertThat(stats.capacityEntries()).isZero();
        cache.dropState(9);
        assertThat(cache.stats(9).entries()).isZero();
        assertThat(cache.get(9, key, 1, valueOut)).isEqualTo(MISS);
    }

    @Test
    void everyBadArgumentBecomesAJavaException() {
        byte[] key = bytes("key");
        assertThatThrownBy(() -> cache.get(0, null, 0, valueOut))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> cache.get(0, key, 4, valueOut))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> cache.get(0, key, -1, valueOut))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> cache.get(0, key, 3, null))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> cache.get(-1, key, 3, valueOut))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cache.put(0, key, 3, key, 4))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> cache.put(0, key, 3, null, 0))
                .isInstanceOf(NullPointerException.class);
        // Refused before the io buffer would grow to the claimed length.
        assertThatThrownBy(() -> cache.put(0, key, 3, key, Integer.MAX_VALUE))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> cache.fill(0, key, Integer.MAX_VALUE, null, 0))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> cache.drain(ByteBuffer.allocate(16)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cache.stats(4096)) // HotStateCache::kMaxStates
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new NativeHotStateCache(NativeCacheOptions.fixedSize(1).policy(7)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void closeIsIdempotentAndACLosedCacheRefusesCalls() {
        cache.close();
        cache.close();
        assertThat(cache.isClosed()).isTrue();
        assertThatThrownBy(() -> cache.get(0, bytes("k"), 1, valueOut))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void aValueLargerThanTheCacheIsNotCached() {
        recreateCache(1024);
        int code = cache.put(0, bytes("k"), 1, new byte[4096], 4096);
        assertThat(code & WRITE_NOT_CACHED).isEqualTo(WRITE_NOT_CACHED);
        assertThat(cache.get(0, bytes("k"), 1, valueOut)).isEqualTo(MISS);
    }

    /**
     * Replaces the cache with one bounded by {@code maxBytes}, otherwise as {@link #createCache}.
     */
    private void recreateCache(long maxBytes) {
        cache.close();
        cache = new NativeHotStateCache(NativeCacheOptions.fixedSize(maxBytes));
    }

    private List<String> drainAll() {
        List<String> out = new ArrayList<>();
        ByteBuffer buffer = ByteBuffer.allocateDirect(256).order(ByteOrder.nativeOrder());
        while (true) {
            buffer.clear();
            int n = cache.drain(buffer);
            if (n == 0) {
                return out;
            }
            assertThat(n).isPositive();
            int pos = 0;
            while (pos < n) {
                int state = buffer.getInt(pos + NativeLayout.RECORD_STATE_ID_OFFSET);
                int keyLength = buffer.getInt(pos + NativeLayout.RECORD_KEY_LENGTH_OFFSET);
                int valueLength = buffer.getInt(pos + NativeLayout.RECORD_VALUE_LENGTH_OFFSET);
                // A ValueState's record names no map.
                assertThat(buffer.getInt(pos + NativeLayout.RECORD_PREFIX_LENGTH_OFFSET)).isZero();
                pos += NativeLayout.RECORD_HEADER_BYTES;
                byte[] key = new byte[keyLength];
                for (int i = 0; i < keyLength; i++) {
                    key[i] = buffer.get(pos + i);
                }
                pos += keyLength;
                String value;
                if (valueLength == NativeLayout.RECORD_DELETE) {
                    value = "DELETE";
                } else {
                    byte[] v = new byte[valueLength];
                    for (int i = 0; i < valueLength; i++) {
                        v[i] = buffer.get(pos + i);
                    }
                    pos += valueLength;
                    value = new String(v, StandardCharsets.UTF_8);
                }
                out.add(state + ":" + new String(key, StandardCharsets.UTF_8) + ":" + value);
            }
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
