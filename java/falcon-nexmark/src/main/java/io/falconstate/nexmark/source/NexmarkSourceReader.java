package io.falconstate.nexmark.source;

import io.falconstate.nexmark.generator.NexmarkEvent;
import io.falconstate.nexmark.generator.NexmarkGenerator;

import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.core.io.InputStatus;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Emits the events of its splits. With several splits (after a restore at a lower parallelism) it
 * always emits the split whose next event number is smallest, so its output stays in event-number
 * order and its event times keep the generator's bounded out-of-orderness. Each record carries its
 * event time as the record timestamp.
 *
 * <p>Called only from the task's mailbox thread, except the rate limiter's timer, which only
 * completes an availability future.
 */
final class NexmarkSourceReader<T> implements SourceReader<T, NexmarkSplit> {
    private final NexmarkGenerator generator;
    private final EventConverter<T> converter;
    private final long eventsNum;

    /** Events per second for the whole source; 0 = unlimited. Each split gets its share. */
    private final long maxEventsPerSecond;

    @Nullable private final FailureInjection failure;

    /** Completed checkpoints this reader waits for before it reports its end of input. */
    private final int endAfterCheckpoints;

    private final List<NexmarkSplit> splits = new ArrayList<>();
    private boolean noMoreSplits;
    private CompletableFuture<Void> available = new CompletableFuture<>();
    private ScheduledExecutorService timer;

    private long emittedThisAttempt;

    /** Emitted events not yet added to {@link SourceProgress}. */
    private int unreported;

    private long completedCheckpoints;
    private long rateStartNanos = -1;
    private long rateEmitted;
    private double currentRate;

    NexmarkSourceReader(
            NexmarkGenerator generator,
            EventConverter<T> converter,
            long maxEventsPerSecond,
            @Nullable FailureInjection failure,
            int endAfterCheckpoints) {
        this.generator = generator;
        this.converter = converter;
        this.eventsNum = generator.config().eventsNum();
        this.maxEventsPerSecond = maxEventsPerSecond;
        this.failure = failure;
        this.endAfterCheckpoints = endAfterCheckpoints;
    }

    @Override
    public void start() {}

    @Override
    public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
        NexmarkSplit split = nextSplit();
        if (split == null) {
            if (noMoreSplits) {
                reportProgress();
                if (completedCheckpoints >= endAfterCheckpoints) {
                    return InputStatus.END_OF_INPUT;
                }
            }
            resetAvailability();
            return InputStatus.NOTHING_AVAILABLE;
        }
        if (maxEventsPerSecond > 0 && throttle(split.count())) {
            return InputStatus.NOTHING_AVAILABLE;
        }
        maybeFail();
        NexmarkEvent event = generator.generate(split.nextEventNumber());
        split.advance();
        emittedThisAttempt++;
        rateEmitted++;
        if (++unreported == SourceProgress.BATCH) {
            reportProgress();
        }
        if (split.isFinished(eventsNum)) {
            splits.remove(split);
        }
        output.collect(converter.convert(event), event.timestamp);
        return InputStatus.MORE_AVAILABLE;
    }

    @Nullable
    private NexmarkSplit nextSplit() {
        NexmarkSplit best = null;
        for (int i = splits.size() - 1; i >= 0; i--) {
            NexmarkSplit s = splits.get(i);
            if (s.isFinished(eventsNum)) {
                splits.remove(i);
            } else if (best == null || s.nextEventNumber() < best.nextEventNumber()) {
                best = s;
            }
        }
        return best;
    }

    /** True if the reader is ahead of its rate; arms a timer that makes it available again. */
    private boolean throttle(int splitCount) {
        long now = System.nanoTime();
        double rate = (double) maxEventsPerSecond * splits.size() / splitCount;
        if (rateStartNanos < 0 || rate != currentRate) {
            rateStartNanos = now;
            rateEmitted = 0;
            currentRate = rate;
        }
        double dueNanos = rateEmitted / rate * 1e9;
        long waitNanos = (long) dueNanos - (now - rateStartNanos);
        if (waitNanos <= 0) {
            return false;
        }
        resetAvailability();
        if (timer == null) {
            timer =
                    Executors.newSingleThreadScheduledExecutor(
                            r -> {
                                Thread t = new Thread(r, "nexmark-source-rate-limiter");
                                t.setDaemon(true);
                                return t;
                            });
        }
        CompletableFuture<Void> f = available;
        timer.schedule(() -> f.complete(null), Math.max(waitNanos, 100_000L), TimeUnit.NANOSECONDS);
        return true;
    }

    private void maybeFail() {
        if (failure != null
                && completedCheckpoints > 0
                && emittedThisAttempt >= failure.afterEvents()
                && failure.claim()) {
            reportProgress();
            SourceProgress.failed();
            throw new RuntimeException(
                    FailureInjection.MESSAGE
                            + " after "
                            + emittedThisAttempt
                            + " events and "
                            + completedCheckpoints
                            + " completed checkpoints");
        }
    }

    private void reportProgress() {
        if (unreported > 0) {
            SourceProgress.add(unreported);
            unreported = 0;
        }
    }

    private void resetAvailability() {
        if (available.isDone()) {
            available = new CompletableFuture<>();
        }
    }

    @Override
    public List<NexmarkSplit> snapshotState(long checkpointId) {
        List<NexmarkSplit> copy = new ArrayList<>(splits.size());
        for (NexmarkSplit s : splits) {
            copy.add(s.copy());
        }
        return copy;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        completedCheckpoints++;
        // A reader holding back its end of input polls again now.
        available.complete(null);
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
        return available;
    }

    @Override
    public void addSplits(List<NexmarkSplit> newSplits) {
        for (NexmarkSplit s : newSplits) {
            splits.add(s.copy());
        }
        available.complete(null);
    }

    @Override
    public void notifyNoMoreSplits() {
        noMoreSplits = true;
        available.complete(null);
    }

    @Override
    public void close() {
        reportProgress();
        if (timer != null) {
            timer.shutdownNow();
        }
    }
}
