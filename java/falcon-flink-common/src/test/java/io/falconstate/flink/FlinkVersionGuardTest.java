/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import io.falconstate.flink.nativeaccess.NativeLibrary;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.util.EnvironmentInformation;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link FlinkVersionGuard}: a jar refuses a Flink minor it was not built for, by name. */
class FlinkVersionGuardTest {

    @Test
    void theJarKnowsTheFlinkItWasBuiltForAndItIsTheOneRunningHere() {
        String builtFor = FlinkVersionGuard.builtForVersion();
        assertThat(builtFor).isNotNull();
        assertThat(FlinkVersionGuard.SUPPORTED_MINORS)
                .contains(FlinkVersionGuard.minorOf(builtFor));
        assertThat(FlinkVersionGuard.minorOf(EnvironmentInformation.getVersion()))
                .isEqualTo(FlinkVersionGuard.minorOf(builtFor));
        assertThat(FlinkVersionGuard.refusal(EnvironmentInformation.getVersion(), builtFor))
                .isNull();
        // So the factory and configure() go through here.
        assertThat(
                        new FalconStateBackendFactory()
                                .createFromConfig(new Configuration(), getClass().getClassLoader()))
                .isNotNull();
    }

    @Test
    void anotherMinorIsRefusedNamingBothVersions() {
        String refusal = FlinkVersionGuard.refusal("1.15.4", "1.16.3");
        assertThat(refusal)
                .startsWith("[FALCON] this Falcon jar (")
                .contains("is built for Flink 1.16 and does not run on Flink 1.15.4; ")
                .endsWith(
                        "Falcon supports Flink 1.16, 1.17, 1.18, 1.19, 1.20; use state.backend:"
                                + " rocksdb on this"
                                + " Flink");
        assertThat(FlinkVersionGuard.refusal("2.0.0", "1.16.3"))
                .contains("does not run on Flink 2.0.0");
    }

    @Test
    void anotherSupportedMinorIsToldWhichJarToInstall() {
        assertThat(FlinkVersionGuard.refusal("1.16.1", "1.17.2"))
                .endsWith(
                        "install falcon-flink-1.16-" + NativeLibrary.jarVersion() + ".jar instead");
        assertThat(FlinkVersionGuard.refusal("1.20.3", "1.19.3"))
                .contains("is built for Flink 1.19 and does not run on Flink 1.20.3; ")
                .endsWith(
                        "install falcon-flink-1.20-" + NativeLibrary.jarVersion() + ".jar instead");
        assertThat(FlinkVersionGuard.refusal("1.18.1", "1.16.3"))
                .contains("is built for Flink 1.16 and does not run on Flink 1.18.1; ")
                .endsWith(
                        "install falcon-flink-1.18-" + NativeLibrary.jarVersion() + ".jar instead");
    }

    @Test
    void patchVersionsAndUnknownVersionsPass() {
        assertThat(FlinkVersionGuard.refusal("1.16.1", "1.16.3")).isNull();
        assertThat(FlinkVersionGuard.refusal("1.16-SNAPSHOT", "1.16.3")).isNull();
        assertThat(FlinkVersionGuard.refusal("<unknown>", "1.16.3")).isNull();
        assertThat(FlinkVersionGuard.refusal("1.20.0", null)).isNull();
        assertThat(FlinkVersionGuard.minorOf("1.16.3")).isEqualTo("1.16");
        assertThat(FlinkVersionGuard.minorOf("1.20")).isEqualTo("1.20");
        assertThat(FlinkVersionGuard.minorOf("<unknown>")).isNull();
        assertThat(FlinkVersionGuard.minorOf("1.")).isNull();
    }
}
