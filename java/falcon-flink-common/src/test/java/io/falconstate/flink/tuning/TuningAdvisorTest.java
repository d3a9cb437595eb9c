/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import io.falconstate.flink.nativeaccess.NativeLayout;
import io.falconstate.flink.nativeaccess.NativeLibrary;
import io.falconstate.flink.tuning.TuningAdvisor.StateKind;

import org.apache.flink.api.common.state.StateDescriptor;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The advisor through JNI: every rule (the C++ unit test covers them in depth), the packing of the
 * profile, errors as Java exceptions, and the behaviour without the native library.
 */
class TuningAdvisorTest {

    private static final long WRITE_BUFFER = 64 << 20;

    @BeforeAll
    static void nativeLibraryIsLoaded() {
        assertThat(NativeLibrary.load().isLoaded()).as(NativeLibrary.load().toString()).isTrue();
    }

    private static TuningProfile advise(StateKind kind, int keyBytes, int namespaceBytes) {
        return TuningAdvisor.advise(kind, 1, keyBytes, namespaceBytes, WRITE_BUFFER, true, true);
    }

    @Test
    void valueStateWithFixedLengthsGetsHashLinkListOverTheWholeKey() {
        TuningProfile p = TuningAdvisor.advise(StateKind.VALUE, 2, 8, 1, WRITE_BUFFER, true, true);
        assertThat(p.tuned()).isTrue();
        assertThat(p.reasonCode()).isEqualTo(NativeLayout.REASON_NONE);
        assertThat(p.memtable()).isEqualTo(TuningProfile.Memtable.HASH_LINK_LIST);
        assertThat(p.prefixLength()).isEqualTo(11);
        assertThat(p.hashBucketCount()).isEqualTo(WRITE_BUFFER / 1024);
        assertThat(p.arenaBlockSize()).isEqualTo(1 << 20);
        assertThat(p.memtablePrefixBloomRatio()).isZero();
        assertThat(p.filter()).isEqualTo(TuningProfile.Filter.KEEP);
        assertThat(p.wholeKeyFiltering()).isNull();
    }

    @Test
    void mapStateWithFixedLengthsGetsRangeFilterOverTheMapPrefix() {
        TuningProfile p = TuningAdvisor.advise(StateKind.MAP, 2, 4, 16, WRITE_BUFFER, true, true);
        assertThat(p.tuned()).isTrue();
        assertThat(p.memtable()).isEqualTo(TuningProfile.Memtable.SKIP_LIST);
        assertThat(p.hashBucketCount()).isZero();
        assertThat(p.prefixLength()).isEqualTo(22);
        assertThat(p.memtablePrefixBloomRatio()).isEqualTo(0.02);
        assertThat(p.filter()).isEqualTo(TuningProfile.Filter.BLOOM);
        assertThat(p.bloomBitsPerKey()).isEqualTo(10);
        assertThat(p.wholeKeyFiltering()).isTrue();
        assertThat(p.arenaBlockSize()).isEqualTo(1 << 20);
    }

    @Test
    void refusalsCarryTheirReason() {
        assertUntuned(
                advise(StateKind.TIMER, 8, 16),
                NativeLayout.REASON_TIMER_COLUMN_FAMILY,
                "timer column family");
        assertUntuned(
                advise(StateKind.DEFAULT, 8, 1),
                NativeLayout.REASON_DEFAULT_COLUMN_FAMILY,
                "default column family");
        for (StateKind kind :
                new StateKind[] {
                    StateKind.LIST, StateKind.REDUCING, StateKind.AGGREGATING, StateKind.UNKNOWN
                }) {
            assertUntuned(
                    advise(kind, 8, 1),
                    NativeLayout.REASON_KIND_NOT_TUNED,
                    "only value and map states are tuned");
        }
        assertUntuned(
                advise(StateKind.VALUE, -1, 1),
                NativeLayout.REASON_KEY_LENGTH_UNKNOWN,
                "keys have no fixed serialized length");
        assertUntuned(
                advise(StateKind.MAP, 8, -1),
                NativeLayout.REASON_NAMESPACE_LENGTH_UNKNOWN,
                "namespaces have no fixed serialized length");
        assertUntuned(
                TuningAdvisor.advise(StateKind.VALUE, 1, 8, 1, WRITE_BUFFER, false, true),
                NativeLayout.REASON_HASH_MEMTABLE_DISABLED,
                "value-state hash memtable is switched off");
        assertUntuned(
                TuningAdvisor.advise(StateKind.MAP, 1, 8, 1, WRITE_BUFFER, true, false),
                NativeLayout.REASON_RANGE_FILTER_DISABLED,
                "map-state range filter is switched off");
        assertUntuned(
                advise(StateKind.VALUE, 65536, 1),
                NativeLayout.REASON_PREFIX_TOO_LONG,
                "key group + key + namespace is longer than 65536 bytes");
    }

    private static void assertUntuned(TuningProfile p, int code, String reason) {
        assertThat(p.tuned()).isFalse();
        assertThat(p.reasonCode()).isEqualTo(code);
        assertThat(p.reason()).isEqualTo(reason);
        assertThat(p.prefixLength()).isZero();
        assertThat(p.isHashMemtable()).isFalse();
    }

    @Test
    void impossibleInputsThrowIllegalArgument() {
        assertThatThrownBy(
                        () ->
                                TuningAdvisor.advise(
                                        StateKind.VALUE, 3, 8, 1, WRITE_BUFFER, true, true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key-group prefix must be 1 or 2 bytes, got 3");
        assertThatThrownBy(() -> advise(StateKind.VALUE, -2, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TuningAdvisor.advise(StateKind.MAP, 1, 8, 1, 0, true, true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("write buffer");
    }

    @Test
    void withoutTheNativeLibraryEverythingIsLeftAsIs() {
        TuningProfile p =
                TuningAdvisor.advise(
                        () -> false, StateKind.VALUE, 1, 8, 1, WRITE_BUFFER, 0, 0, true, true);
        assertUntuned(
                p, NativeLayout.REASON_NATIVE_LIBRARY_NOT_LOADED, "native library not loaded");
    }

    @Test
    void stateKindsMapFlinkTypes() {
        assertThat(StateKind.of(StateDescriptor.Type.VALUE)).isEqualTo(StateKind.VALUE);
        assertThat(StateKind.of(StateDescriptor.Type.MAP)).isEqualTo(StateKind.MAP);
        assertThat(StateKind.of(StateDescriptor.Type.LIST)).isEqualTo(StateKind.LIST);
        assertThat(StateKind.of(StateDescriptor.Type.REDUCING)).isEqualTo(StateKind.REDUCING);
        assertThat(StateKind.of(StateDescriptor.Type.AGGREGATING)).isEqualTo(StateKind.AGGREGATING);
        assertThat(StateKind.of(null)).isEqualTo(StateKind.UNKNOWN);
    }
}
