/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.timers;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link KnownTimerSet} against {@link HashSet}, with hash codes chosen to collide. */
class KnownTimerSetTest {

    /** Equal by id; the hash code is one of a few, so probe chains are long and wrap around. */
    private static final class Colliding {
        final int id;

        Colliding(int id) {
            this.id = id;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Colliding && ((Colliding) o).id == id;
        }

        @Override
        public int hashCode() {
            return id % 3;
        }

        @Override
        public String toString() {
            return "#" + id;
        }
    }

    @ParameterizedTest(name = "capacity {0}")
    @ValueSource(ints = {1, 2, 7, 64, 1000})
    void behavesAsAHashSetThatForgetsWhenFull(int capacity) {
        KnownTimerSet set = new KnownTimerSet(capacity);
        Set<Colliding> model = new HashSet<>();
        Random rng = new Random(capacity);
        long clears = 0;
        for (int step = 0; step < 20_000; step++) {
            Colliding element = new Colliding(rng.nextInt(capacity * 2 + 3));
            int op = rng.nextInt(10);
            if (op < 5) {
                if (!model.contains(element)) {
                    if (model.size() >= capacity) {
                        model.clear();
                        clears++;
                    }
                    model.add(element);
                    set.add(element);
                }
            } else if (op < 8) {
                model.remove(element);
                set.remove(element);
            }
            assertThat(set.contains(element))
                    .as("step %d: %s", step, element)
                    .isEqualTo(model.contains(element));
            assertThat(set.size()).as("step %d", step).isEqualTo(model.size());
        }
        for (int id = 0; id < capacity * 2 + 3; id++) {
            assertThat(set.contains(new Colliding(id)))
                    .isEqualTo(model.contains(new Colliding(id)));
        }
        assertThat(set.clears()).isEqualTo(clears);
        assertThat(set.tableSize()).isLessThanOrEqualTo(Math.max(4, 4 * capacity));
    }

    @Test
    void tableGrowsOnlyWithUse() {
        KnownTimerSet set = new KnownTimerSet(1 << 20);
        assertThat(set.tableSize()).isEqualTo(64);
        for (int i = 0; i < 1000; i++) {
            set.add(i);
        }
        assertThat(set.size()).isEqualTo(1000);
        assertThat(set.tableSize()).isEqualTo(2048);
        for (int i = 0; i < 1000; i++) {
            assertThat(set.contains(i)).isTrue();
        }
        assertThat(set.contains(1000)).isFalse();
    }

    @Test
    void startsOverWhenFull() {
        KnownTimerSet set = new KnownTimerSet(3);
        set.add("a");
        set.add("b");
        set.add("c");
        set.add("d");
        assertThat(set.clears()).isEqualTo(1);
        assertThat(set.size()).isEqualTo(1);
        assertThat(set.contains("d")).isTrue();
        assertThat(set.contains("a")).isFalse();
    }

    @Test
    void rejectsCapacityBelowOne() {
        assertThatThrownBy(() -> new KnownTimerSet(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
