package io.falconstate.nexmark.generator;

import java.io.Serializable;

/**
 * One generated event: exactly one of {@link #person}, {@link #auction}, {@link #bid} is set,
 * matching {@link #type}. {@link #eventNumber} is the event's global index (0-based).
 */
public final class NexmarkEvent implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Type codes, as in the Nexmark SQL schema's {@code event_type} column. */
    public static final int PERSON = 0;

    public static final int AUCTION = 1;
    public static final int BID = 2;

    public long eventNumber;
    public int type;

    /** Event time, epoch milliseconds. */
    public long timestamp;

    public Person person;
    public Auction auction;
    public Bid bid;

    public NexmarkEvent() {}

    @Override
    public String toString() {
        Object payload = type == PERSON ? person : type == AUCTION ? auction : bid;
        return "#" + eventNumber + " " + payload;
    }
}
