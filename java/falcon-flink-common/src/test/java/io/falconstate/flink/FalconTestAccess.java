/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import io.falconstate.flink.log.FalconLog;

import java.util.List;

/** Package-private test hooks for tests in other packages (ITCases, the demo). */
public final class FalconTestAccess {

    private FalconTestAccess() {}

    /** Something that runs a job. */
    public interface Job<T> {
        T run() throws Exception;
    }

    /** A job's result and the activation lines logged while it ran. */
    public static final class Activation<T> {
        private final T result;
        private final List<String> activationLines;

        Activation(T result, List<String> activationLines) {
            this.result = result;
            this.activationLines = activationLines;
        }

        public T result() {
            return result;
        }

        /**
         * {@code "<LEVEL> <line>"} of the activation (or native-library WARN) lines logged during
         * the run; the cache's budget and state lines are left out.
         */
        public List<String> activationLines() {
            return activationLines.stream()
                    .filter(l -> l.contains("[FALCON] Falcon ") || l.contains("[FALCON] WARN "))
                    .collect(java.util.stream.Collectors.toList());
        }

        /** {@code "<LEVEL> <line>"} of every {@code [FALCON]} line logged during the run. */
        public List<String> falconLines() {
            return activationLines;
        }
    }

    /**
     * Runs {@code job} with the once-per-JVM guards reset, so the activation line appears again
     * (the MiniCluster's TaskManager lives in this JVM), and returns the {@code [FALCON]} lines.
     */
    public static <T> Activation<T> runCapturingActivation(Job<T> job) throws Exception {
        FalconLog.resetOnceGuardsForTesting();
        try (LogCapture log = new LogCapture("io.falconstate")) {
            T result = job.run();
            return new Activation<>(result, log.falconLines());
        } finally {
            FalconLog.resetOnceGuardsForTesting();
        }
    }
}
