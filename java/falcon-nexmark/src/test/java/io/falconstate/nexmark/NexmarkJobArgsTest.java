package io.falconstate.nexmark;

import io.falconstate.nexmark.bench.NexmarkRunnerCommand;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The cluster job's hand-written parser ({@link NexmarkJobArgs}, no picocli on a cluster) speaks
 * NexmarkRunner's command-line vocabulary: the same arguments give the same run, bad values are
 * rejected; and {@link NexmarkRunner#main} reaches the picocli command line.
 */
class NexmarkJobArgsTest {
    private static final String[] EVERY_OPTION = {
        "--query",
        "q17",
        "--events",
        "2_500",
        "--parallelism",
        "3",
        "--state-backend",
        "hashmap",
        "--checkpoint-interval-ms",
        "250",
        "--mini-batch",
        "on",
        "--output",
        "/tmp/nx",
        "--sink",
        "blackhole",
        "--seed",
        "7",
        "--event-time-rate",
        "1000",
        "--rate-limit",
        "500",
        "--restart-attempts",
        "2",
        "--warmup",
        "0.25",
        "--source",
        "out-of-order.group-size=50",
        "--conf",
        "a=b=c"
    };

    @Test
    void theJobParsesEveryRunnerOptionAsTheRunnerDoes() {
        NexmarkRunOptions job = NexmarkJobArgs.parse(EVERY_OPTION, new NexmarkRunOptions());
        assertThat(RunOptionsFields.of(job))
                .isEqualTo(RunOptionsFields.of(NexmarkRunnerCommand.parse(EVERY_OPTION)))
                .isNotEqualTo(RunOptionsFields.of(new NexmarkRunOptions().query("q17")));
        String[] equalsForm = {"--query=q4", "--mini-batch=true", "--conf=k=v", "--events", "9"};
        assertThat(RunOptionsFields.of(NexmarkJobArgs.parse(equalsForm, new NexmarkRunOptions())))
                .isEqualTo(RunOptionsFields.of(NexmarkRunnerCommand.parse(equalsForm)));
    }

    @Test
    void theJobRejectsWhatTheRunnerRejects() {
        assertThatThrownBy(
                        () ->
                                NexmarkJobArgs.parse(
                                        new String[] {"--mini-batch", "yes"},
                                        new NexmarkRunOptions()))
                .hasMessage("invalid value for --mini-batch: 'yes' is not on, off, true or false");
        assertThatThrownBy(
                        () ->
                                NexmarkJobArgs.parse(
                                        new String[] {"--conf", "novalue"},
                                        new NexmarkRunOptions()))
                .hasMessage("invalid value for --conf: 'novalue' is not key=value");
        assertThatThrownBy(
                        () ->
                                NexmarkJobArgs.parse(
                                        new String[] {"--minibatch", "off"},
                                        new NexmarkRunOptions()))
                .hasMessage("unknown option --minibatch");
        assertThatThrownBy(
                        () ->
                                NexmarkJobArgs.parse(
                                        new String[] {"--query"}, new NexmarkRunOptions()))
                .hasMessage("missing value for --query");
    }

    @Test
    void theRunnersMainIsThePicocliCommandLine() {
        assertThat(NexmarkRunner.COMMAND_LINE_CLASS)
                .isEqualTo(NexmarkRunnerCommand.class.getName());
    }
}
