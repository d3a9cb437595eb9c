package io.falconstate.nexmark.source;

import java.io.File;
import java.io.IOException;
import java.io.Serializable;

/**
 * Test-only failure injection: a source reader throws once, after it has emitted {@code
 * afterEvents} events in its current attempt and seen at least one completed checkpoint, provided
 * the marker file does not exist yet; it creates the marker first (atomically, so only one reader
 * of one attempt ever throws). Restarts then find the marker and run through.
 */
public final class FailureInjection implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Message of the injected exception, for tests that look for it. */
    public static final String MESSAGE = "Nexmark source: injected failure";

    private final long afterEvents;
    private final String markerPath;

    public FailureInjection(long afterEvents, String markerPath) {
        if (afterEvents < 0 || markerPath == null || markerPath.isEmpty()) {
            throw new IllegalArgumentException(
                    "failure injection needs events >= 0 and a marker path");
        }
        this.afterEvents = afterEvents;
        this.markerPath = markerPath;
    }

    public long afterEvents() {
        return afterEvents;
    }

    public String markerPath() {
        return markerPath;
    }

    /** True if this call created the marker, i.e. the caller must fail now. */
    boolean claim() {
        File marker = new File(markerPath);
        if (marker.exists()) {
            return false;
        }
        try {
            File parent = marker.getAbsoluteFile().getParentFile();
            if (parent != null) {
                parent.mkdirs();
            }
            return marker.createNewFile();
        } catch (IOException e) {
            throw new IllegalStateException("cannot create failure marker " + markerPath, e);
        }
    }

    boolean alreadyFired() {
        return new File(markerPath).exists();
    }
}
