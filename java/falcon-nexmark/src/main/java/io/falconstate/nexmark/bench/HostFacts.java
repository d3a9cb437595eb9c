package io.falconstate.nexmark.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Locale;

/** What the harness records about the machine: its description and its load average. */
final class HostFacts {
    private HostFacts() {}

    /** Cores, CPU model, RAM, OS and Java, one line. */
    static String machine() {
        String cpu = "unknown CPU";
        try {
            for (String l : Files.readAllLines(Paths.get("/proc/cpuinfo"))) {
                if (l.startsWith("model name")) {
                    cpu = l.substring(l.indexOf(':') + 1).trim();
                    break;
                }
            }
        } catch (IOException e) {
            // not Linux
        }
        long memMb = -1;
        java.lang.management.OperatingSystemMXBean os =
                ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            memMb =
                    ((com.sun.management.OperatingSystemMXBean) os).getTotalPhysicalMemorySize()
                            >> 20;
        }
        return String.format(
                Locale.ROOT,
                "%d cores (%s), %,d MiB RAM, %s %s, Java %s (%s)",
                Runtime.getRuntime().availableProcessors(),
                cpu,
                memMb,
                System.getProperty("os.name"),
                System.getProperty("os.arch"),
                System.getProperty("java.version"),
                System.getProperty("java.vm.name"));
    }

    /** The 1, 5 and 15 minute load averages, space-separated, or {@code n/a}. */
    static String loadAverage() {
        try {
            String[] f =
                    new String(
                                    Files.readAllBytes(Paths.get("/proc/loadavg")),
                                    StandardCharsets.US_ASCII)
                            .trim()
                            .split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException e) {
            return "n/a";
        }
    }
}
