package io.falconstate.nexmark;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * What {@link NexmarkRunner#run} runs. Mutable builder-style bean; every setter returns {@code
 * this}. Defaults: 1,000,000 events, parallelism 2, {@code state.backend: rocksdb}, checkpoints
 * every 10 s, mini-batch off, the exactly-once file sink, no restarts.
 */
public final class NexmarkRunOptions {
    /** Where the query's changelog goes. */
    public enum Sink {
        /**
         * Exactly-once file sink, materialized after the job ({@link NexmarkRunResult#table()}).
         */
        FILE,
        /** Discarded (throughput runs); no final checkpoint wait, no result table. */
        BLACKHOLE
    }

    private String query;
    private long events = 1_000_000L;
    private int parallelism = 2;
    private String stateBackend = "rocksdb";
    private long checkpointIntervalMillis = 10_000L;
    private boolean miniBatch;
    private Duration miniBatchLatency = Duration.ofSeconds(2);
    private long miniBatchSize = 50_000L;
    private Path outputDir;
    private Sink sink = Sink.FILE;
    private long seed = 42L;
    private long eventTimeRate = 10_000_000L;
    private long rateLimit;
    private int outOfOrderGroupSize = 8;
    private int restartAttempts;
    private double warmupFraction;
    private Consumer<MeasuredWindow> progressListener;
    private Duration progressInterval = Duration.ofSeconds(10);
    private final Map<String, String> sourceOptions = new LinkedHashMap<>();
    private final Map<String, String> configuration = new LinkedHashMap<>();

    /**
     * Query name (a file under nexmark/queries/ without .sql, e.g. "q4") or a path to a .sql file.
     */
    public NexmarkRunOptions query(String v) {
        query = Objects.requireNonNull(v);
        return this;
    }

    public NexmarkRunOptions events(long v) {
        events = v;
        return this;
    }

    public NexmarkRunOptions parallelism(int v) {
        if (v <= 0) {
            throw new IllegalArgumentException("parallelism must be > 0");
        }
        parallelism = v;
        return this;
    }

    /**
     * The {@code state.backend} value: {@code rocksdb}, {@code hashmap}, or a StateBackendFactory
     * class name such as {@code io.falconstate.flink.FalconStateBackendFactory}.
     */
    public NexmarkRunOptions stateBackend(String v) {
        stateBackend = Objects.requireNonNull(v);
        return this;
    }

    public NexmarkRunOptions checkpointIntervalMillis(long v) {
        checkpointIntervalMillis = v;
        return this;
    }

    public NexmarkRunOptions miniBatch(boolean v) {
        miniBatch = v;
        return this;
    }

    public NexmarkRunOptions miniBatchLatency(Duration v) {
        miniBatchLatency = Objects.requireNonNull(v);
        return this;
    }

    public NexmarkRunOptions miniBatchSize(long v) {
        miniBatchSize = v;
        return this;
    }

    /** Root of the run's files: result/ (the changelog), checkpoints/, tmp/. */
    public NexmarkRunOptions outputDir(Path v) {
        outputDir = Objects.requireNonNull(v);
        return this;
    }

    public NexmarkRunOptions sink(Sink v) {
        sink = Objects.requireNonNull(v);
        return this;
    }

    public NexmarkRunOptions seed(long v) {
        seed = v;
        return this;
    }

    /** Events per second of event time (the generator's clock, not a throughput cap). */
    public NexmarkRunOptions eventTimeRate(long v) {
        eventTimeRate = v;
        return this;
    }

    /** Wall-clock cap on source events per second; 0 = unlimited. */
    public NexmarkRunOptions rateLimit(long v) {
        rateLimit = v;
        return this;
    }

    public NexmarkRunOptions outOfOrderGroupSize(int v) {
        outOfOrderGroupSize = v;
        return this;
    }

    /** Fixed-delay restarts allowed; 0 = the job fails on the first failure. */
    public NexmarkRunOptions restartAttempts(int v) {
        restartAttempts = v;
        return this;
    }

    /**
     * Share of the events (0 .. 1) that is warm-up: the measured window ({@link
     * NexmarkRunResult#window()}) starts when the source has emitted this share and ends with the
     * job. 0 (default) = the window is the whole run from submission.
     */
    public NexmarkRunOptions warmupFraction(double v) {
        if (!(v >= 0 && v < 1)) {
            throw new IllegalArgumentException("warm-up fraction must be in [0, 1)");
        }
        warmupFraction = v;
        return this;
    }

    /**
     * Called from a sampler thread every {@code interval} while the job runs, from the moment the
     * measured window opens, with the window so far (events within {@link
     * io.falconstate.nexmark.source.SourceProgress#BATCH} per reader). Lets a caller that may stop
     * the run early (a benchmark's time limit) keep the last figures. No call after {@link
     * NexmarkRunner#run} has returned.
     */
    public NexmarkRunOptions progressListener(
            Consumer<MeasuredWindow> listener, Duration interval) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("progress interval must be > 0");
        }
        progressListener = Objects.requireNonNull(listener);
        progressInterval = interval;
        return this;
    }

    /** Any other 'nexmark' connector option (docs/nexmark.md), overriding the ones above. */
    public NexmarkRunOptions sourceOption(String key, String value) {
        sourceOptions.put(key, value);
        return this;
    }

    /** Any Flink configuration entry; applied last, so it overrides what the runner sets. */
    public NexmarkRunOptions configuration(String key, String value) {
        configuration.put(key, value);
        return this;
    }

    /** Test only: one source reader fails once after this many events unless the marker exists. */
    public NexmarkRunOptions injectFailure(long afterEvents, Path marker) {
        sourceOptions.put("failure.after-events", Long.toString(afterEvents));
        sourceOptions.put("failure.marker", marker.toAbsolutePath().toString());
        return this;
    }

    public String query() {
        return query;
    }

    public long events() {
        return events;
    }

    public int parallelism() {
        return parallelism;
    }

    public String stateBackend() {
        return stateBackend;
    }

    public long checkpointIntervalMillis() {
        return checkpointIntervalMillis;
    }

    public boolean miniBatch() {
        return miniBatch;
    }

    public Duration miniBatchLatency() {
        return miniBatchLatency;
    }

    public long miniBatchSize() {
        return miniBatchSize;
    }

    public Path outputDir() {
        return outputDir;
    }

    public Sink sink() {
        return sink;
    }

    public long seed() {
        return seed;
    }

    public long eventTimeRate() {
        return eventTimeRate;
    }

    public long rateLimit() {
        return rateLimit;
    }

    public int outOfOrderGroupSize() {
        return outOfOrderGroupSize;
    }

    public int restartAttempts() {
        return restartAttempts;
    }

    public double warmupFraction() {
        return warmupFraction;
    }

    /** The progress listener, or null. */
    public Consumer<MeasuredWindow> progressListener() {
        return progressListener;
    }

    public Duration progressInterval() {
        return progressInterval;
    }

    public Map<String, String> sourceOptions() {
        return sourceOptions;
    }

    public Map<String, String> configuration() {
        return configuration;
    }

    @Override
    public String toString() {
        return "query="
                + query
                + " events="
                + events
                + " parallelism="
                + parallelism
                + " state.backend="
                + stateBackend
                + " checkpointMs="
                + checkpointIntervalMillis
                + " miniBatch="
                + miniBatch
                + " sink="
                + sink
                + " seed="
                + seed
                + " eventTimeRate="
                + eventTimeRate
                + " rateLimit="
                + rateLimit
                + " restarts="
                + restartAttempts
                + (warmupFraction > 0 ? " warmup=" + warmupFraction : "")
                + (sourceOptions.isEmpty() ? "" : " source=" + sourceOptions)
                + (configuration.isEmpty() ? "" : " conf=" + configuration);
    }
}
