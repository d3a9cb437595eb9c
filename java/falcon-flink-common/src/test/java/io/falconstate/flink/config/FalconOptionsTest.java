/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.config;

import org.apache.flink.configuration.Configuration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What {@link FalconOptions} tells about keys it does not know. */
class FalconOptionsTest {

    @Test
    void closestKeyOfATypo() {
        assertThat(FalconOptions.closestKey("state.backend.falcon.cache.enable"))
                .isEqualTo(FalconOptions.CACHE_ENABLED.key());
        assertThat(FalconOptions.closestKey("state.backend.falcon.cache.hugepages"))
                .isEqualTo(FalconOptions.CACHE_HUGE_PAGES.key());
        assertThat(FalconOptions.editDistance("kitten", "sitting")).isEqualTo(3);
        assertThat(FalconOptions.editDistance("", "abc")).isEqualTo(3);
        Configuration config = new Configuration();
        config.setString("state.backend.falcon.cache.enable", "true");
        config.setString("state.backend.rocksdb.localdir", "/tmp");
        config.setString(FalconOptions.CACHE_ENABLED.key(), "true");
        assertThat(FalconOptions.unknownKeys(config))
                .containsExactly("state.backend.falcon.cache.enable");
    }
}
