package io.falconstate.nexmark.generator;

import java.io.Serializable;

/** A Nexmark bid on an auction. Public fields: a Flink POJO. */
public final class Bid implements Serializable {
    private static final long serialVersionUID = 1L;

    public long auction;
    public long bidder;

    /** Cents. */
    public long price;

    public String channel;
    public String url;

    /** Event time, epoch milliseconds. */
    public long dateTime;

    public String extra;

    public Bid() {}

    @Override
    public String toString() {
        return "Bid{auction="
                + auction
                + ", bidder="
                + bidder
                + ", price="
                + price
                + ", channel="
                + channel
                + ", url="
                + url
                + ", dateTime="
                + dateTime
                + ", extra.length="
                + extra.length()
                + "}";
    }
}
