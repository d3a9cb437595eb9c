/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import io.falconstate.flink.nativeaccess.NativeLibrary;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.runtime.util.EnvironmentInformation;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The jar built for Flink 1.16, dropped into this Flink (1.20): Flink's factory call refuses with
 * one {@code [FALCON]} message naming the running version and the jar to install, before any class
 * that differs between the minors is touched (no {@code NoSuchMethodError}, no {@code
 * IncompatibleClassChangeError}). The 1.16 jar comes from the same reactor build ({@code
 * falcon-flink-1.16} builds before this module); built alone, this module skips the test.
 */
class WrongJarRefusalTest {

    @Test
    void theFlink116JarRefusesOnThisFlink() throws Exception {
        File jar =
                new File(
                        "../falcon-flink-1.16/target/falcon-flink-1.16-"
                                + NativeLibrary.jarVersion()
                                + ".jar");
        assumeThat(jar).as("the Flink 1.16 jar of this build").isFile();
        try (URLClassLoader falcon116 = new FalconFirstClassLoader(jar)) {
            Class<?> factory = falcon116.loadClass(FalconStateBackendFactory.class.getName());
            assertThat(factory.getClassLoader()).isSameAs(falcon116);
            Object instance = factory.getDeclaredConstructor().newInstance();
            Method create =
                    factory.getMethod("createFromConfig", ReadableConfig.class, ClassLoader.class);
            assertThatThrownBy(() -> create.invoke(instance, new Configuration(), falcon116))
                    .isInstanceOf(InvocationTargetException.class)
                    .cause()
                    .hasMessage(
                            "[FALCON] this Falcon jar ("
                                    + NativeLibrary.jarVersion()
                                    + ") is built for Flink 1.16 and does not run on Flink "
                                    + EnvironmentInformation.getVersion()
                                    + "; install falcon-flink-1.20-"
                                    + NativeLibrary.jarVersion()
                                    + ".jar instead");
        }
    }

    /** Falcon's classes and resources from {@code jar}; Flink's from the test's class path. */
    private static final class FalconFirstClassLoader extends URLClassLoader {

        FalconFirstClassLoader(File jar) throws Exception {
            super(new URL[] {jar.toURI().toURL()}, WrongJarRefusalTest.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded == null && isFalcon(name)) {
                    try {
                        loaded = findClass(name);
                    } catch (ClassNotFoundException e) {
                        loaded = null;
                    }
                }
                if (loaded == null) {
                    return super.loadClass(name, resolve);
                }
                if (resolve) {
                    resolveClass(loaded);
                }
                return loaded;
            }
        }

        @Override
        public URL getResource(String name) {
            URL own = findResource(name);
            return own != null ? own : super.getResource(name);
        }

        private static boolean isFalcon(String name) {
            return name.startsWith("io.falconstate.")
                    || name.startsWith("org.apache.flink.contrib.streaming.state.Falcon");
        }
    }
}
