package io.falconstate.nexmark.source;

import io.falconstate.nexmark.generator.NexmarkConfig;
import io.falconstate.nexmark.generator.NexmarkGenerator;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;

import javax.annotation.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A bounded FLIP-27 source of Nexmark events (docs/nexmark.md).
 *
 * <p>The {@code config.eventsNum()} events are cut into {@code splits} splits by event number
 * modulo the split count (default: the source parallelism at first start). A split's checkpointed
 * state is the number of events it has emitted, so a restore continues exactly after the last event
 * of the checkpoint. Because every event is a pure function of (seed, event number), the emitted
 * multiset is the same for every parallelism.
 *
 * <p>Use from the DataStream API with {@link #watermarkStrategy(NexmarkConfig)}:
 *
 * <pre>{@code
 * env.fromSource(NexmarkSource.events(config), NexmarkSource.watermarkStrategy(config), "nexmark")
 * }</pre>
 */
public final class NexmarkSource<T>
        implements Source<T, NexmarkSplit, List<NexmarkSplit>>, ResultTypeQueryable<T> {
    private static final long serialVersionUID = 1L;

    /** Nexmark's watermark delay: event time minus 4 seconds. */
    public static final Duration WATERMARK_DELAY = Duration.ofSeconds(4);

    private final NexmarkConfig config;
    private final EventConverter<T> converter;
    private final int splits;
    private final long maxEventsPerSecond;
    @Nullable private final FailureInjection failure;
    private final int endAfterCheckpoints;

    /**
     * @param splits number of splits; 0 = the source parallelism when the job first starts
     * @param maxEventsPerSecond wall-clock rate cap for the whole source; 0 = unlimited
     * @param failure test-only failure injection, or null
     */
    public NexmarkSource(
            NexmarkConfig config,
            EventConverter<T> converter,
            int splits,
            long maxEventsPerSecond,
            @Nullable FailureInjection failure) {
        if (splits < 0 || maxEventsPerSecond < 0) {
            throw new IllegalArgumentException("splits and rate cap must be >= 0");
        }
        this.config = config;
        this.converter = converter;
        this.splits = splits;
        this.maxEventsPerSecond = maxEventsPerSecond;
        this.failure = failure;
        this.endAfterCheckpoints = 0;
    }

    private NexmarkSource(NexmarkSource<T> base, int endAfterCheckpoints) {
        if (endAfterCheckpoints < 0) {
            throw new IllegalArgumentException("end-after checkpoints must be >= 0");
        }
        this.config = base.config;
        this.converter = base.converter;
        this.splits = base.splits;
        this.maxEventsPerSecond = base.maxEventsPerSecond;
        this.failure = base.failure;
        this.endAfterCheckpoints = endAfterCheckpoints;
    }

    /**
     * This source, with each reader holding back its end of input, after its last event, until it
     * has seen {@code n} completed checkpoints: a short job then still completes a checkpoint that
     * covers every event, however fast the machine is.
     */
    public NexmarkSource<T> endingAfterCheckpoints(int n) {
        return new NexmarkSource<>(this, n);
    }

    /**
     * A source of {@link io.falconstate.nexmark.generator.NexmarkEvent}s, one split per subtask.
     */
    public static NexmarkSource<io.falconstate.nexmark.generator.NexmarkEvent> events(
            NexmarkConfig config) {
        return new NexmarkSource<>(config, EventConverter.events(), 0, 0, null);
    }

    /** Nexmark's watermarks: bounded out-of-orderness of 4 s on the records' event times. */
    public static <T> WatermarkStrategy<T> watermarkStrategy(NexmarkConfig config) {
        if (config.maxOutOfOrdernessMillis() >= WATERMARK_DELAY.toMillis()) {
            throw new IllegalArgumentException(
                    "out-of-order groups span "
                            + config.maxOutOfOrdernessMillis()
                            + " ms, more than the 4 s watermark delay");
        }
        return WatermarkStrategy.forBoundedOutOfOrderness(WATERMARK_DELAY);
    }

    public NexmarkConfig config() {
        return config;
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.BOUNDED;
    }

    @Override
    public SplitEnumerator<NexmarkSplit, List<NexmarkSplit>> createEnumerator(
            SplitEnumeratorContext<NexmarkSplit> context) {
        int n = splits > 0 ? splits : context.currentParallelism();
        List<NexmarkSplit> all = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            all.add(new NexmarkSplit(i, n, 0));
        }
        return new NexmarkSplitEnumerator(context, all);
    }

    @Override
    public SplitEnumerator<NexmarkSplit, List<NexmarkSplit>> restoreEnumerator(
            SplitEnumeratorContext<NexmarkSplit> context, List<NexmarkSplit> checkpoint) {
        return new NexmarkSplitEnumerator(context, checkpoint);
    }

    @Override
    public SimpleVersionedSerializer<NexmarkSplit> getSplitSerializer() {
        return NexmarkSplitSerializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<List<NexmarkSplit>> getEnumeratorCheckpointSerializer() {
        return new NexmarkSplitSerializer.EnumStateSerializer();
    }

    @Override
    public SourceReader<T, NexmarkSplit> createReader(SourceReaderContext readerContext) {
        return createReader();
    }

    /** A reader without a context (it needs none). Visible for tests. */
    public SourceReader<T, NexmarkSplit> createReader() {
        return new NexmarkSourceReader<>(
                new NexmarkGenerator(config),
                converter,
                maxEventsPerSecond,
                failure,
                endAfterCheckpoints);
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return converter.producedType();
    }
}
