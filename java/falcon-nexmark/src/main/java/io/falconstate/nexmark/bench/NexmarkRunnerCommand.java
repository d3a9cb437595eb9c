package io.falconstate.nexmark.bench;

import io.falconstate.nexmark.NexmarkRunOptions;
import io.falconstate.nexmark.NexmarkRunResult;
import io.falconstate.nexmark.NexmarkRunner;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/**
 * {@link NexmarkRunner}'s command line ({@code java ... io.falconstate.nexmark.NexmarkRunner
 * --query q4 ...}, docs/nexmark.md): runs one query on an in-process MiniCluster, prints the run's
 * summary line and the first rows of the materialized result.
 */
@Command(
        name = "NexmarkRunner",
        sortOptions = false,
        showDefaultValues = true,
        customSynopsis = "NexmarkRunner --query=NAME [OPTIONS]",
        usageHelpWidth = 100,
        optionListHeading = "%nOptions:%n",
        description =
                "Runs one Nexmark query on an in-process Flink MiniCluster (docs/nexmark.md)"
                        + " and prints the run's summary line and the first rows of its result.",
        footer = {"", "Exit code: 0 after the run, 1 if it failed, 2 for invalid arguments."})
public final class NexmarkRunnerCommand implements Callable<Integer> {
    @Mixin final RunnerOptions run = new RunnerOptions();

    @Option(
            names = "--print-rows",
            paramLabel = "N",
            converter = Cli.IntCount.class,
            order = 20,
            description = "Rows of the materialized result to print (file sink).")
    int printRows = 20;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            order = 99,
            description = "Print this help and exit.")
    boolean help;

    @Spec CommandSpec spec;

    /**
     * The run a command line describes, checked as {@link #main} checks it.
     *
     * @throws ParameterException for invalid arguments, with the message {@code main} prints
     */
    public static NexmarkRunOptions parse(String... args) {
        NexmarkRunnerCommand command = new NexmarkRunnerCommand();
        Cli.commandLine(command).parseArgs(args);
        return Cli.validated(command.spec, command.run::toRunOptions);
    }

    @Override
    public Integer call() throws Exception {
        NexmarkRunResult r = NexmarkRunner.run(Cli.validated(spec, run::toRunOptions));
        PrintWriter out = spec.commandLine().getOut();
        out.println(r.summary());
        if (r.table() != null) {
            out.print(r.table().format(printRows));
        }
        out.flush();
        return 0;
    }

    /** Exit code 0 after the run, 2 for invalid arguments, 1 if the run failed. */
    public static void main(String[] args) {
        System.exit(Cli.execute(new NexmarkRunnerCommand(), args));
    }
}
