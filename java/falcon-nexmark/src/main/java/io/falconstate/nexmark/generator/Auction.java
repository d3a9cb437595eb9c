package io.falconstate.nexmark.generator;

import java.io.Serializable;

/** A Nexmark auction (an item put up for sale). Public fields: a Flink POJO. */
public final class Auction implements Serializable {
    private static final long serialVersionUID = 1L;

    public long id;
    public String itemName;
    public String description;

    /** Cents. */
    public long initialBid;

    /** Cents. */
    public long reserve;

    /** Event time, epoch milliseconds. */
    public long dateTime;

    /** Closing time, epoch milliseconds; always after {@link #dateTime}. */
    public long expires;

    public long seller;
    public long category;
    public String extra;

    public Auction() {}

    @Override
    public String toString() {
        return "Auction{id="
                + id
                + ", item="
                + itemName
                + ", initialBid="
                + initialBid
                + ", reserve="
                + reserve
                + ", dateTime="
                + dateTime
                + ", expires="
                + expires
                + ", seller="
                + seller
                + ", category="
                + category
                + ", extra.length="
                + extra.length()
                + "}";
    }
}
