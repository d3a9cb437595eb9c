/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.timers;

import java.util.Arrays;

/**
 * A bounded set of objects by {@code equals}/{@code hashCode}: open addressing with linear probing
 * and backward-shift deletion, so adding, finding and removing allocate nothing. When an add finds
 * the set at capacity, the set forgets everything first; forgetting is always safe for its one
 * user, which only needs "in the set" to imply "in RocksDB". The table starts small and doubles
 * while it grows toward twice the capacity, so an unused queue costs a few hundred bytes.
 *
 * <p>Not thread-safe: it belongs to one timer queue, used by the task thread.
 */
final class KnownTimerSet {

    private static final int INITIAL_TABLE_SIZE = 64;

    private Object[] slots;
    private int mask;
    private final int maxTableSize;
    private final int capacity;
    private int size;
    private long clears;

    /**
     * @param capacity the most elements held at once; at least 1
     */
    KnownTimerSet(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1: " + capacity);
        }
        this.capacity = capacity;
        // At most half full, so probe chains stay short.
        this.maxTableSize = Integer.highestOneBit(Math.max(2, capacity) * 2 - 1) << 1;
        int tableSize = Math.min(INITIAL_TABLE_SIZE, maxTableSize);
        this.slots = new Object[tableSize];
        this.mask = tableSize - 1;
    }

    boolean contains(Object element) {
        for (int i = home(element); ; i = (i + 1) & mask) {
            Object slot = slots[i];
            if (slot == null) {
                return false;
            }
            if (slot.equals(element)) {
                return true;
            }
        }
    }

    /** Adds the element unless an equal one is held; forgets everything first when full. */
    void add(Object element) {
        if (size >= capacity) {
            clear();
            clears++;
        } else if ((size + 1) * 2 > slots.length && slots.length < maxTableSize) {
            grow();
        }
        insert(element);
    }

    private void insert(Object element) {
        for (int i = home(element); ; i = (i + 1) & mask) {
            Object slot = slots[i];
            if (slot == null) {
                slots[i] = element;
                size++;
                return;
            }
            if (slot.equals(element)) {
                return;
            }
        }
    }

    /** Removes the element equal to the given one, if held. */
    void remove(Object element) {
        int i = home(element);
        while (true) {
            Object slot = slots[i];
            if (slot == null) {
                return;
            }
            if (slot.equals(element)) {
                break;
            }
            i = (i + 1) & mask;
        }
        // Backward-shift: move later members of the probe chain into the hole when their home
        // position does not lie cyclically between the hole and their slot.
        int hole = i;
        int j = hole;
        while (true) {
            j = (j + 1) & mask;
            Object next = slots[j];
            if (next == null) {
                break;
            }
            int nextHome = home(next);
            boolean homeInRange =
                    hole <= j
                            ? (hole < nextHome && nextHome <= j)
                            : (hole < nextHome || nextHome <= j);
            if (!homeInRange) {
                slots[hole] = next;
                hole = j;
            }
        }
        slots[hole] = null;
        size--;
    }

    private void grow() {
        Object[] old = slots;
        slots = new Object[old.length * 2];
        mask = slots.length - 1;
        size = 0;
        for (Object element : old) {
            if (element != null) {
                insert(element);
            }
        }
    }

    void clear() {
        if (size > 0) {
            Arrays.fill(slots, null);
            size = 0;
        }
    }

    int size() {
        return size;
    }

    int capacity() {
        return capacity;
    }

    /** Slots in the table now. */
    int tableSize() {
        return slots.length;
    }

    /** How many times the set was found full and forgot everything. */
    long clears() {
        return clears;
    }

    private int home(Object element) {
        int h = element.hashCode();
        // Spread the bits: timer hash codes are close for close timestamps.
        h *= 0x9E3779B9;
        return (h ^ (h >>> 16)) & mask;
    }
}
