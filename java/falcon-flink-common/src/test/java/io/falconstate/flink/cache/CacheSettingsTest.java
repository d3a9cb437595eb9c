/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import io.falconstate.flink.budget.CacheBudgets;
import io.falconstate.flink.config.FalconOptions;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.IllegalConfigurationException;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every cache option is validated with a message naming the key, the value and the range. */
class CacheSettingsTest {

    private static void rejects(String key, String value, String... messageParts) {
        Configuration c = new Configuration();
        c.setString(key, value);
        assertThatThrownBy(() -> CacheSettings.fromConfig(c))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining(key)
                .hasMessageContainingAll(messageParts);
    }

    @Test
    void badValuesNameKeyValueAndRange() {
        rejects(FalconOptions.CACHE_POLICY.key(), "fifo", "'fifo'", "allowed: w-tinylfu, lru");
        rejects(
                FalconOptions.CACHE_MANAGED_MEMORY_SHARE.key(),
                "0.95",
                "0.95",
                "allowed: 0 to 0.9");
        rejects(
                FalconOptions.CACHE_MANAGED_MEMORY_SHARE.key(),
                "-0.1",
                "-0.1",
                "allowed: 0 to 0.9");
        rejects(
                FalconOptions.CACHE_ENTRIES_PER_TASKMANAGER.key(),
                "-1",
                "-1",
                "allowed: 0 (no cap) or more");
        rejects(
                FalconOptions.CACHE_ENTRIES_PER_SUBTASK.key(),
                "-5",
                "-5",
                "allowed: 0 (no cap) or more");
        rejects(
                FalconOptions.CACHE_SIZE_PER_SUBTASK.key(),
                "2tb",
                "2199023255552 bytes",
                "allowed: 0 to 1 tb");
        rejects(
                FalconOptions.CACHE_MAX_DIRTY_BYTES.key(),
                "2tb",
                "2199023255552 bytes",
                "allowed: 0 to 1 tb");
        rejects(FalconOptions.CACHE_BYPASS_HIT_RATIO.key(), "1.0", "1.0", "excluding 1");
        rejects(
                FalconOptions.CACHE_MAP_STATE_BYPASS_HIT_RATIO.key(),
                "-0.1",
                "-0.1",
                "excluding 1");
    }

    @Test
    void mapStatesSwitchAtTheirOwnHitRatioUnlessSwitchingIsOff() {
        assertThat(CacheSettings.fromConfig(new Configuration()).mapBypassHitRatio())
                .isEqualTo(0.5);
        Configuration c = new Configuration();
        c.set(FalconOptions.CACHE_MAP_STATE_BYPASS_HIT_RATIO, 0.4);
        assertThat(CacheSettings.fromConfig(c).mapBypassHitRatio()).isEqualTo(0.4);
        assertThat(CacheSettings.fromConfig(c).bypassHitRatio()).isEqualTo(0.25);
        c.set(FalconOptions.CACHE_BYPASS_HIT_RATIO, 0.0);
        assertThat(CacheSettings.fromConfig(c).mapBypassHitRatio()).isZero();
    }

    @Test
    void valueStatesAndMapStatesHaveTheirOwnWrittenKeyFilterLimits() {
        CacheSettings defaults = CacheSettings.fromConfig(new Configuration());
        assertThat(defaults.writtenKeyFilterMaxKeys()).isEqualTo(8 << 20);
        assertThat(defaults.writtenKeyFilterMaxMaps()).isEqualTo(1 << 20);
        Configuration c = new Configuration();
        c.set(FalconOptions.CACHE_WRITTEN_KEY_FILTER_MAX_KEYS, 0);
        c.set(FalconOptions.CACHE_WRITTEN_KEY_FILTER_MAX_MAPS, 1 << 14);
        CacheSettings s = CacheSettings.fromConfig(c);
        assertThat(s.writtenKeyFilterMaxKeys()).isZero();
        assertThat(s.writtenKeyFilterMaxMaps()).isEqualTo(1 << 14);
        for (ConfigOption<Integer> option :
                Arrays.asList(
                        FalconOptions.CACHE_WRITTEN_KEY_FILTER_MAX_KEYS,
                        FalconOptions.CACHE_WRITTEN_KEY_FILTER_MAX_MAPS)) {
            rejects(option.key(), "16383", "16383", "allowed: 0 (off) or 16384 to 268435456");
            rejects(option.key(), "-1", "-1", "allowed: 0 (off) or 16384 to 268435456");
        }
    }

    @Test
    void defaultsSizeTheCacheFromManagedMemory() {
        CacheSettings s = CacheSettings.fromConfig(new Configuration());
        assertThat(s.isFixedSize()).isFalse();
        assertThat(s.canHoldEntries()).isTrue();
        assertThat(s.managedMemoryShare()).isEqualTo(0.1);
        assertThat(s.maxDirtyBytes()).isEqualTo(16L << 20);
        assertThat(s.dirtyLowWaterBytes()).isEqualTo(8L << 20);
        assertThat(s.entriesPerTaskManager()).isZero();
        assertThat(s.hugePages()).isTrue();
    }

    @Test
    void hugePagesCanBeTurnedOff() {
        Configuration c = new Configuration();
        c.setString(FalconOptions.CACHE_HUGE_PAGES.key(), "false");
        CacheSettings s = CacheSettings.fromConfig(c);
        assertThat(s.hugePages()).isFalse();
        assertThat(s.toString()).contains("hugePages=false");
        rejects(
                FalconOptions.CACHE_HUGE_PAGES.key(),
                "sometimes",
                "'sometimes'",
                "allowed: true, false");
    }

    @Test
    void anExplicitSizeOverridesTheManagedMemoryShare() {
        Configuration c = new Configuration();
        c.setString(FalconOptions.CACHE_SIZE_PER_SUBTASK.key(), "64kb");
        c.setString(FalconOptions.CACHE_ENTRIES_PER_SUBTASK.key(), "4");
        CacheSettings s = CacheSettings.fromConfig(c);
        assertThat(s.isFixedSize()).isTrue();
        assertThat(s.managedMemoryShare()).isZero();
        assertThat(s.fixedBytesPerSubtask()).isEqualTo(64 << 10);

        Configuration off = new Configuration();
        off.setString(FalconOptions.CACHE_MANAGED_MEMORY_SHARE.key(), "0");
        assertThat(CacheSettings.fromConfig(off).canHoldEntries()).isFalse();
    }

    @Test
    void slotEntryCapsRoundDownButKeepOneEntryPerSlot() {
        assertThat(CacheBudgets.slotEntries(0, 4)).isZero();
        assertThat(CacheBudgets.slotEntries(1001, 2)).isEqualTo(500);
        assertThat(CacheBudgets.slotEntries(3, 4)).isEqualTo(1);
        assertThat(CacheBudgets.slotEntries(4000, 4)).isEqualTo(1000);
    }
}
