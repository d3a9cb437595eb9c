package io.falconstate.nexmark;

import io.falconstate.nexmark.generator.NexmarkConfig;
import io.falconstate.nexmark.generator.NexmarkEvent;
import io.falconstate.nexmark.generator.NexmarkGenerator;
import io.falconstate.nexmark.source.EventConverter;
import io.falconstate.nexmark.source.NexmarkSource;
import io.falconstate.nexmark.source.NexmarkSplit;
import io.falconstate.nexmark.source.NexmarkSplitSerializer;

import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class NexmarkSourceTest {
    private static final NexmarkConfig CONFIG =
            new NexmarkConfig()
                    .withEventsNum(10_001)
                    .withSeed(3)
                    .withEventTimeRate(1000)
                    .withOutOfOrderGroupSize(20);

    /** Collects what a reader emits, with timestamps. */
    private static final class Collecting implements ReaderOutput<NexmarkEvent> {
        final List<NexmarkEvent> events = new ArrayList<>();
        final List<Long> timestamps = new ArrayList<>();

        @Override
        public void collect(NexmarkEvent e) {
            throw new AssertionError("the source must emit event-time timestamps");
        }

        @Override
        public void collect(NexmarkEvent e, long ts) {
            events.add(e);
            timestamps.add(ts);
        }

        @Override
        public void emitWatermark(Watermark watermark) {}

        @Override
        public void markIdle() {}

        @Override
        public void markActive() {}

        @Override
        public SourceOutput<NexmarkEvent> createOutputForSplit(String splitId) {
            return this;
        }

        @Override
        public void releaseOutputForSplit(String splitId) {}
    }

    private static InputStatus pollUntil(
            SourceReader<NexmarkEvent, NexmarkSplit> reader, Collecting out, int max)
            throws Exception {
        InputStatus s = InputStatus.MORE_AVAILABLE;
        for (int i = 0; i < max && s == InputStatus.MORE_AVAILABLE; i++) {
            s = reader.pollNext(out);
        }
        return s;
    }

    @Test
    void restoredSplitsContinueExactlyAfterTheCheckpoint() throws Exception {
        NexmarkSource<NexmarkEvent> source =
                new NexmarkSource<>(CONFIG, EventConverter.events(), 0, 0, null);
        // One reader holds two of three splits, as after a restore at lower parallelism.
        SourceReader<NexmarkEvent, NexmarkSplit> first = source.createReader();
        first.addSplits(Arrays.asList(new NexmarkSplit(0, 3, 0), new NexmarkSplit(2, 3, 0)));
        first.notifyNoMoreSplits();
        Collecting before = new Collecting();
        assertThat(pollUntil(first, before, 1234)).isEqualTo(InputStatus.MORE_AVAILABLE);
        List<NexmarkSplit> checkpoint = first.snapshotState(1);
        // Emitted after the checkpoint, then lost with the failure.
        pollUntil(first, new Collecting(), 500);
        first.close();

        // Through the serializer, as the checkpoint would.
        List<NexmarkSplit> restored = new ArrayList<>();
        for (NexmarkSplit s : checkpoint) {
            byte[] bytes = NexmarkSplitSerializer.INSTANCE.serialize(s);
            restored.add(
                    NexmarkSplitSerializer.INSTANCE.deserialize(
                            NexmarkSplitSerializer.INSTANCE.getVersion(), bytes));
        }
        assertThat(restored).isEqualTo(checkpoint);
        SourceReader<NexmarkEvent, NexmarkSplit> second = source.createReader();
        second.addSplits(restored);
        second.notifyNoMoreSplits();
        Collecting after = new Collecting();
        assertThat(pollUntil(second, after, 100_000)).isEqualTo(InputStatus.END_OF_INPUT);
        second.close();

        List<Long> numbers = new ArrayList<>();
        for (NexmarkEvent e : before.events) {
            numbers.add(e.eventNumber);
        }
        for (NexmarkEvent e : after.events) {
            numbers.add(e.eventNumber);
        }
        List<Long> expected = new ArrayList<>();
        for (long n = 0; n < CONFIG.eventsNum(); n++) {
            if (n % 3 != 1) {
                expected.add(n);
            }
        }
        // Exactly the events of splits 0 and 2, each once, in event-number order.
        assertThat(numbers).containsExactlyElementsOf(expected);
        NexmarkGenerator g = new NexmarkGenerator(CONFIG);
        NexmarkEvent sample = after.events.get(after.events.size() / 2);
        assertThat(sample.toString()).isEqualTo(g.generate(sample.eventNumber).toString());
        assertThat(after.timestamps.get(after.events.size() / 2)).isEqualTo(sample.timestamp);
    }

    @Test
    void aReaderEndingAfterACheckpointHoldsItsEndUntilOneCompletes() throws Exception {
        NexmarkSource<NexmarkEvent> source =
                new NexmarkSource<>(CONFIG, EventConverter.events(), 0, 0, null)
                        .endingAfterCheckpoints(1);
        SourceReader<NexmarkEvent, NexmarkSplit> reader = source.createReader();
        reader.addSplits(Collections.singletonList(new NexmarkSplit(0, 1, 0)));
        reader.notifyNoMoreSplits();
        Collecting out = new Collecting();
        assertThat(pollUntil(reader, out, 100_000)).isEqualTo(InputStatus.NOTHING_AVAILABLE);
        assertThat(out.events).hasSize((int) CONFIG.eventsNum());
        assertThat(reader.isAvailable()).isNotDone();
        assertThat(reader.pollNext(out)).isEqualTo(InputStatus.NOTHING_AVAILABLE);

        reader.notifyCheckpointComplete(1);
        assertThat(reader.isAvailable()).isDone();
        assertThat(reader.pollNext(out)).isEqualTo(InputStatus.END_OF_INPUT);
        assertThat(out.events).hasSize((int) CONFIG.eventsNum());
        reader.close();
    }

    @Test
    void rateLimitHoldsTheReaderBack() throws Exception {
        NexmarkSource<NexmarkEvent> source =
                new NexmarkSource<>(CONFIG, EventConverter.events(), 0, 2_000, null);
        SourceReader<NexmarkEvent, NexmarkSplit> reader = source.createReader();
        reader.addSplits(Collections.singletonList(new NexmarkSplit(0, 1, 0)));
        reader.notifyNoMoreSplits();
        Collecting out = new Collecting();
        long start = System.nanoTime();
        while (out.events.size() < 400) {
            if (reader.pollNext(out) == InputStatus.NOTHING_AVAILABLE) {
                reader.isAvailable().get();
            }
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        reader.close();
        // 400 events at 2000/s take about 200 ms; unthrottled they take a few ms.
        assertThat(millis).isBetween(150L, 5_000L);
    }

    @Test
    void dataStreamRunEmitsEveryEventOnceAtAnyParallelism() throws Exception {
        Configuration conf = new Configuration();
        conf.setString("parallelism.default", "3");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(3, conf);
        List<Long> numbers = new ArrayList<>();
        long bids = 0;
        try (CloseableIterator<NexmarkEvent> it =
                env.fromSource(
                                NexmarkSource.events(CONFIG),
                                NexmarkSource.watermarkStrategy(CONFIG),
                                "nexmark")
                        .executeAndCollect()) {
            while (it.hasNext()) {
                NexmarkEvent e = it.next();
                numbers.add(e.eventNumber);
                bids += e.type == NexmarkEvent.BID ? 1 : 0;
            }
        }
        Collections.sort(numbers);
        assertThat(numbers).hasSize((int) CONFIG.eventsNum());
        for (int i = 0; i < numbers.size(); i++) {
            assertThat(numbers.get(i)).isEqualTo(i);
        }
        assertThat(bids).isEqualTo(200 * 46);
    }
}
