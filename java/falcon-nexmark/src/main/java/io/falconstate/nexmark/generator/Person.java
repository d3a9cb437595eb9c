package io.falconstate.nexmark.generator;

import java.io.Serializable;

/** A Nexmark person (a new user of the auction site). Public fields: a Flink POJO. */
public final class Person implements Serializable {
    private static final long serialVersionUID = 1L;

    public long id;
    public String name;
    public String emailAddress;
    public String creditCard;
    public String city;
    public String state;

    /** Event time, epoch milliseconds. */
    public long dateTime;

    public String extra;

    public Person() {}

    @Override
    public String toString() {
        return "Person{id="
                + id
                + ", name="
                + name
                + ", email="
                + emailAddress
                + ", card="
                + creditCard
                + ", city="
                + city
                + ", state="
                + state
                + ", dateTime="
                + dateTime
                + ", extra.length="
                + extra.length()
                + "}";
    }
}
