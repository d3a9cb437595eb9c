/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

/** Records what one logger (and its children) logs, as {@code "<LEVEL> <message>"}. */
final class LogCapture implements AutoCloseable {

    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Logger logger;
    private final AbstractAppender appender;

    LogCapture(String loggerName) {
        this.logger = (Logger) LogManager.getLogger(loggerName);
        this.appender =
                new AbstractAppender(
                        "capture-" + UUID.randomUUID(), null, null, true, Property.EMPTY_ARRAY) {
                    @Override
                    public void append(LogEvent event) {
                        lines.add(
                                event.getLevel() + " " + event.getMessage().getFormattedMessage());
                    }
                };
        appender.start();
        logger.addAppender(appender);
    }

    /** Every captured line, in order. */
    List<String> lines() {
        return new ArrayList<>(lines);
    }

    /** The captured lines that start with {@code [FALCON]} after the level. */
    List<String> falconLines() {
        return lines.stream()
                .filter(l -> l.substring(l.indexOf(' ') + 1).startsWith("[FALCON]"))
                .collect(Collectors.toList());
    }

    @Override
    public void close() {
        logger.removeAppender(appender);
        appender.stop();
    }
}
