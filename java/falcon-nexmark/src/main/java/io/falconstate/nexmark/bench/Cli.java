package io.falconstate.nexmark.bench;

import io.falconstate.nexmark.OptionValues;

import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine.UnmatchedArgumentException;

import java.io.PrintWriter;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What the command lines of NexmarkRunner, NexmarkBenchmark and the benchmark's forked run share:
 * picocli converters for the value syntax of {@link OptionValues}, and how a command runs from
 * {@code main}: {@code --help} prints the usage (exit code 0), an invalid argument prints one error
 * line and a hint (exit code 2), an exception from the command itself prints its stack trace (exit
 * code 1); otherwise the command's own exit code.
 */
final class Cli {
    private Cli() {}

    /**
     * A command line with the shared conventions; {@code command} is a picocli command. A repeated
     * option overrides the earlier one (so a wrapper script's defaults can be overridden), except
     * the repeatable ones, which add up.
     */
    static CommandLine commandLine(Object command) {
        CommandLine cl = new CommandLine(command);
        cl.setOverwrittenOptionsAllowed(true);
        cl.setParameterExceptionHandler(Cli::invalidArguments);
        return cl;
    }

    /** Parses {@code args} and runs the command; returns the exit code for {@code main}. */
    static int execute(Object command, String... args) {
        return commandLine(command).execute(args);
    }

    /**
     * {@code value.get()}, checked after parsing (ranges, combinations): its {@link
     * IllegalArgumentException} becomes picocli's invalid-argument error (exit code 2).
     */
    static <T> T validated(CommandSpec spec, Supplier<T> value) {
        try {
            return value.get();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }

    /** {@link #validated} for a check without a value. */
    static void check(CommandSpec spec, Runnable check) {
        validated(
                spec,
                () -> {
                    check.run();
                    return null;
                });
    }

    /** {@code value.get()}; its {@link IllegalArgumentException} is an invalid {@code option}. */
    static <T> T checked(CommandSpec spec, String option, Supplier<T> value) {
        try {
            return value.get();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(
                    spec.commandLine(),
                    "Invalid value for option '" + option + "': " + e.getMessage(),
                    e);
        }
    }

    /** Adds {@code entry} to {@code map}, replacing an earlier value of its key. */
    static void put(Map<String, String> map, Map.Entry<String, String> entry) {
        map.put(entry.getKey(), entry.getValue());
    }

    private static int invalidArguments(ParameterException e, String[] args) {
        CommandLine cl = e.getCommandLine();
        PrintWriter err = cl.getErr();
        err.println(cl.getCommandName() + ": " + e.getMessage());
        UnmatchedArgumentException.printSuggestions(e, err);
        err.println("Run " + cl.getCommandName() + " --help for the options and their defaults.");
        err.flush();
        return cl.getCommandSpec().exitCodeOnInvalidInput();
    }

    /** Turns a rejected value into picocli's conversion error (it names the option). */
    private abstract static class Converter<T> implements ITypeConverter<T> {
        @Override
        public final T convert(String value) {
            try {
                return parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }

        abstract T parse(String value);
    }

    /** {@code on|off}, also {@code true|false}. */
    static final class OnOff extends Converter<Boolean> {
        @Override
        Boolean parse(String value) {
            return OptionValues.onOff(value);
        }
    }

    /** A whole number, '_' may group digits. */
    static final class Count extends Converter<Long> {
        @Override
        Long parse(String value) {
            return OptionValues.count(value);
        }
    }

    /** {@link Count} within the int range. */
    static final class IntCount extends Converter<Integer> {
        @Override
        Integer parse(String value) {
            return OptionValues.intCount(value);
        }
    }

    /** {@code file|blackhole}, as spelled on the command line. */
    static final class SinkName extends Converter<String> {
        @Override
        String parse(String value) {
            return OptionValues.name(OptionValues.sink(value));
        }
    }
}
