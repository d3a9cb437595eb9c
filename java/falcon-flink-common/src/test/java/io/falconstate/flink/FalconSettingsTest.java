/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import io.falconstate.flink.config.FalconOptions;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.MemorySize;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Falcon's options are read and validated once, and the derived switches follow the rules. */
class FalconSettingsTest {

    @Test
    void defaultsTurnOnTheCacheAndTheHashMemtableOnly() {
        FalconSettings defaults = FalconSettings.defaults();
        assertThat(defaults.nativeRequired()).isFalse();
        assertThat(defaults.cacheOn()).isTrue();
        assertThat(defaults.hashMemtableMode()).isEqualTo(FalconSettings.HashMemtableMode.AUTO);
        assertThat(defaults.hashMemtableOn()).isTrue();
        assertThat(defaults.rangeFilterOn()).isTrue();
        assertThat(defaults.tuningOn()).isTrue();
        assertThat(defaults.timerDedupCapacity()).isEqualTo(16384);
    }

    @Test
    void timerDedupCapacityIsCheckedAgainstItsRange() {
        Configuration config = new Configuration();
        config.set(FalconOptions.TIMERS_DEDUP_CAPACITY, 0);
        assertThat(FalconSettings.fromConfig(config).timerDedupCapacity()).isZero();
        config.set(FalconOptions.TIMERS_DEDUP_CAPACITY, 1 << 24);
        assertThat(FalconSettings.fromConfig(config).timerDedupCapacity()).isEqualTo(1 << 24);
        for (int bad : new int[] {-1, (1 << 24) + 1}) {
            config.set(FalconOptions.TIMERS_DEDUP_CAPACITY, bad);
            assertThatThrownBy(() -> FalconSettings.fromConfig(config))
                    .isInstanceOf(IllegalConfigurationException.class)
                    .hasMessage(
                            FalconOptions.TIMERS_DEDUP_CAPACITY.key()
                                    + ": "
                                    + bad
                                    + " is not allowed; allowed: 0 (off) to 16777216");
        }
    }

    @Test
    void autoHashMemtableFollowsTheCache() {
        Configuration config = new Configuration();
        config.set(FalconOptions.CACHE_ENABLED, false);
        assertThat(FalconSettings.fromConfig(config).hashMemtableOn()).isFalse();
        // The range filter does not need the cache: a state on RocksDB is what it serves.
        assertThat(FalconSettings.fromConfig(config).tuningOn()).isTrue();
        config.set(FalconOptions.TUNING_MAP_STATE_RANGE_FILTER, false);
        assertThat(FalconSettings.fromConfig(config).tuningOn()).isFalse();
        config.removeConfig(FalconOptions.TUNING_MAP_STATE_RANGE_FILTER);

        // A cache that no budget can fill is off, and auto with it.
        config.set(FalconOptions.CACHE_ENABLED, true);
        config.set(FalconOptions.CACHE_MANAGED_MEMORY_SHARE, 0.0);
        assertThat(FalconSettings.fromConfig(config).cacheOn()).isFalse();
        assertThat(FalconSettings.fromConfig(config).hashMemtableOn()).isFalse();
        config.set(FalconOptions.CACHE_SIZE_PER_SUBTASK, MemorySize.parse("1mb"));
        assertThat(FalconSettings.fromConfig(config).cacheOn()).isTrue();
        assertThat(FalconSettings.fromConfig(config).hashMemtableOn()).isTrue();

        config.setString(FalconOptions.TUNING_VALUE_STATE_HASH_MEMTABLE.key(), " False ");
        assertThat(FalconSettings.fromConfig(config).hashMemtableMode())
                .isEqualTo(FalconSettings.HashMemtableMode.OFF);
        assertThat(FalconSettings.fromConfig(config).hashMemtableOn()).isFalse();

        config.set(FalconOptions.CACHE_ENABLED, false);
        config.setString(FalconOptions.TUNING_VALUE_STATE_HASH_MEMTABLE.key(), "true");
        config.setString(FalconOptions.TUNING_MAP_STATE_RANGE_FILTER.key(), "TRUE");
        FalconSettings forced = FalconSettings.fromConfig(config);
        assertThat(forced.hashMemtableOn()).isTrue();
        assertThat(forced.rangeFilterOn()).isTrue();
    }

    @Test
    void badValuesFailNamingKeyValueAndWhatIsAllowed() {
        Configuration config = new Configuration();
        config.setString(FalconOptions.TUNING_VALUE_STATE_HASH_MEMTABLE.key(), "sometimes");
        assertThatThrownBy(() -> FalconSettings.fromConfig(config))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage(
                        FalconOptions.TUNING_VALUE_STATE_HASH_MEMTABLE.key()
                                + ": 'sometimes' is not allowed; allowed: auto, true, false");
        config.removeConfig(FalconOptions.TUNING_VALUE_STATE_HASH_MEMTABLE);

        config.setString(FalconOptions.TUNING_MAP_STATE_RANGE_FILTER.key(), "sometimes");
        assertThatThrownBy(() -> FalconSettings.fromConfig(config))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining(FalconOptions.TUNING_MAP_STATE_RANGE_FILTER.key())
                .hasMessageContaining("'sometimes'")
                .hasMessageEndingWith("allowed: true, false");
        config.removeConfig(FalconOptions.TUNING_MAP_STATE_RANGE_FILTER);

        config.setString(FalconOptions.TUNING_VALUE_STATE_INPLACE_UPDATE.key(), "often");
        assertThatThrownBy(() -> FalconSettings.fromConfig(config))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining(FalconOptions.TUNING_VALUE_STATE_INPLACE_UPDATE.key())
                .hasMessageContaining("'often'")
                .hasMessageEndingWith("allowed: true, false");
    }

    /** In-place memtable updates take RocksDB's snapshots away: refused, never ignored. */
    @Test
    void inplaceUpdatesAreRefused() {
        Configuration config = new Configuration();
        config.set(FalconOptions.TUNING_VALUE_STATE_INPLACE_UPDATE, false);
        assertThat(FalconSettings.fromConfig(config).hashMemtableOn()).isTrue();
        config.set(FalconOptions.TUNING_VALUE_STATE_INPLACE_UPDATE, true);
        assertThatThrownBy(() -> FalconSettings.fromConfig(config))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageStartingWith(
                        FalconOptions.TUNING_VALUE_STATE_INPLACE_UPDATE.key()
                                + ": 'true' is not supported")
                .hasMessageContaining("migrate state values on restore");
    }
}
