package io.falconstate.nexmark;

import java.util.AbstractMap;
import java.util.Locale;
import java.util.Map;

/**
 * The value syntax every Nexmark command line shares (NexmarkRunner, NexmarkBenchmark, the cluster
 * job): switches, counts, {@code key=value} entries and the sink. Each parser throws {@link
 * IllegalArgumentException} with a message that quotes the value and names the syntax.
 *
 * <p>Free of picocli on purpose: the cluster job jar (tests/e2e/jobs/nexmark.sh) is compiled from
 * this package against Flink's lib/ only.
 */
public final class OptionValues {
    private OptionValues() {}

    /** {@code on} or {@code true}, {@code off} or {@code false} (any case). */
    public static boolean onOff(String v) {
        switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "on":
            case "true":
                return true;
            case "off":
            case "false":
                return false;
            default:
                throw new IllegalArgumentException("'" + v + "' is not on, off, true or false");
        }
    }

    /** A whole number; '_' may group digits ({@code 10_000_000}). */
    public static long count(String v) {
        try {
            return Long.parseLong(v.trim().replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + v + "' is not a whole number");
        }
    }

    /** {@link #count} within the int range. */
    public static int intCount(String v) {
        long n = count(v);
        if (n != (int) n) {
            throw new IllegalArgumentException("'" + v + "' is out of range");
        }
        return (int) n;
    }

    /** A decimal number ({@code 0.2}). */
    public static double number(String v) {
        try {
            return Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + v + "' is not a number");
        }
    }

    /** {@code key=value}: the key is everything before the first '=' and must not be empty. */
    public static Map.Entry<String, String> keyValue(String v) {
        int eq = v.indexOf('=');
        if (eq <= 0) {
            throw new IllegalArgumentException("'" + v + "' is not key=value");
        }
        return new AbstractMap.SimpleImmutableEntry<>(v.substring(0, eq), v.substring(eq + 1));
    }

    /** The sink: {@code file} or {@code blackhole} (any case). */
    public static NexmarkRunOptions.Sink sink(String v) {
        for (NexmarkRunOptions.Sink s : NexmarkRunOptions.Sink.values()) {
            if (s.name().equalsIgnoreCase(v.trim())) {
                return s;
            }
        }
        throw new IllegalArgumentException("'" + v + "' is not file or blackhole");
    }

    /** The sink as the command lines spell it. */
    public static String name(NexmarkRunOptions.Sink s) {
        return s.name().toLowerCase(Locale.ROOT);
    }

    /** The switch as the command lines spell it. */
    public static String onOff(boolean v) {
        return v ? "on" : "off";
    }
}
