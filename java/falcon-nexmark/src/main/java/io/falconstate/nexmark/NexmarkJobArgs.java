package io.falconstate.nexmark;

import java.nio.file.Paths;
import java.util.Map;

/**
 * The cluster job's arguments ({@link NexmarkClusterJob}, {@link NexmarkResultCheck}): the options
 * of NexmarkRunner's command line ({@code io.falconstate.nexmark.bench.RunnerOptions}) with the
 * same names and value syntax ({@link OptionValues}), {@code --name value} or {@code --name=value}.
 * Parsed by hand because the job jar runs on a Flink cluster, whose classpath has no picocli; a
 * test holds both parsers to the same result.
 */
final class NexmarkJobArgs {
    private NexmarkJobArgs() {}

    /** Applies {@code args} to {@code o}; an unknown option or a bad value is rejected. */
    static NexmarkRunOptions parse(String[] args, NexmarkRunOptions o) {
        for (int i = 0; i < args.length; i++) {
            String key = args[i];
            String v;
            int eq = key.indexOf('=');
            if (key.startsWith("--") && eq > 0) {
                v = key.substring(eq + 1);
                key = key.substring(0, eq);
            } else if (i + 1 < args.length) {
                v = args[++i];
            } else {
                throw new IllegalArgumentException("missing value for " + key);
            }
            if (!apply(o, key, v)) {
                throw new IllegalArgumentException("unknown option " + key);
            }
        }
        return o;
    }

    private static boolean apply(NexmarkRunOptions o, String key, String v) {
        try {
            return set(o, key, v);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "invalid value for " + key + ": " + e.getMessage(), e);
        }
    }

    private static boolean set(NexmarkRunOptions o, String key, String v) {
        switch (key) {
            case "--query":
                o.query(v);
                break;
            case "--events":
                o.events(OptionValues.count(v));
                break;
            case "--parallelism":
                o.parallelism(OptionValues.intCount(v));
                break;
            case "--state-backend":
                o.stateBackend(v);
                break;
            case "--checkpoint-interval-ms":
                o.checkpointIntervalMillis(OptionValues.count(v));
                break;
            case "--mini-batch":
                o.miniBatch(OptionValues.onOff(v));
                break;
            case "--output":
                o.outputDir(Paths.get(v));
                break;
            case "--sink":
                o.sink(OptionValues.sink(v));
                break;
            case "--seed":
                o.seed(OptionValues.count(v));
                break;
            case "--event-time-rate":
                o.eventTimeRate(OptionValues.count(v));
                break;
            case "--rate-limit":
                o.rateLimit(OptionValues.count(v));
                break;
            case "--restart-attempts":
                o.restartAttempts(OptionValues.intCount(v));
                break;
            case "--source":
                Map.Entry<String, String> s = OptionValues.keyValue(v);
                o.sourceOption(s.getKey(), s.getValue());
                break;
            case "--conf":
                Map.Entry<String, String> c = OptionValues.keyValue(v);
                o.configuration(c.getKey(), c.getValue());
                break;
            case "--warmup":
                o.warmupFraction(OptionValues.number(v));
                break;
            default:
                return false;
        }
        return true;
    }
}
