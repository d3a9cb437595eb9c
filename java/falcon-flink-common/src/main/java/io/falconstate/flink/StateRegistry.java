/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The keyed states one {@link FalconKeyedStateBackend} has registered: state name → kind and the
 * serializers RocksDB stores it with (for a state with TTL these are the TTL-wrapped serializers,
 * i.e. exactly the bytes in RocksDB). The cache and the column-family tuner read it; the keyed
 * backend writes it on the task thread. Reads from other threads are safe (concurrent map of
 * immutable entries).
 */
public final class StateRegistry {

    /** One registered keyed state. Immutable. */
    public static final class RegisteredState {
        private final String name;
        private final StateDescriptor.Type kind;
        private final TypeSerializer<?> keySerializer;
        private final TypeSerializer<?> namespaceSerializer;
        private final TypeSerializer<?> stateSerializer;
        private final boolean queryable;
        private final boolean ttlEnabled;

        RegisteredState(
                String name,
                StateDescriptor.Type kind,
                TypeSerializer<?> keySerializer,
                TypeSerializer<?> namespaceSerializer,
                TypeSerializer<?> stateSerializer,
                boolean queryable,
                boolean ttlEnabled) {
            this.name = name;
            this.kind = kind;
            this.keySerializer = keySerializer;
            this.namespaceSerializer = namespaceSerializer;
            this.stateSerializer = stateSerializer;
            this.queryable = queryable;
            this.ttlEnabled = ttlEnabled;
        }

        public String name() {
            return name;
        }

        /** VALUE, LIST, MAP, REDUCING, AGGREGATING (FOLDING does not exist in 1.16 states). */
        public StateDescriptor.Type kind() {
            return kind;
        }

        public TypeSerializer<?> keySerializer() {
            return keySerializer;
        }

        public TypeSerializer<?> namespaceSerializer() {
            return namespaceSerializer;
        }

        /**
         * The serializer of the stored value: for MapState a {@code MapSerializer}, for ListState a
         * {@code ListSerializer}, TTL-wrapped when {@link #ttlEnabled()}.
         */
        public TypeSerializer<?> stateSerializer() {
            return stateSerializer;
        }

        /** Queryable states are read by query-server threads: a cache must not hold them. */
        public boolean queryable() {
            return queryable;
        }

        public boolean ttlEnabled() {
            return ttlEnabled;
        }

        @Override
        public String toString() {
            return "<" + name + ", " + kind + ">";
        }
    }

    private final TypeSerializer<?> keySerializer;
    private final Map<String, RegisteredState> states = new ConcurrentHashMap<>();

    public StateRegistry(TypeSerializer<?> keySerializer) {
        this.keySerializer = keySerializer;
    }

    /**
     * Records (or replaces) a state's registration from the descriptor the backend receives.
     * Returns the previous registration, null when the state is new to this backend.
     */
    @Nullable
    RegisteredState record(
            TypeSerializer<?> namespaceSerializer, StateDescriptor<?, ?> descriptor) {
        RegisteredState state =
                new RegisteredState(
                        descriptor.getName(),
                        descriptor.getType(),
                        keySerializer,
                        namespaceSerializer,
                        descriptor.getSerializer(),
                        descriptor.isQueryable(),
                        descriptor.getTtlConfig().isEnabled());
        return states.put(state.name(), state);
    }

    /** Undoes a {@link #record} whose registration failed: puts back {@code previous}. */
    void restore(String stateName, @Nullable RegisteredState previous) {
        if (previous == null) {
            states.remove(stateName);
        } else {
            states.put(stateName, previous);
        }
    }

    /** The registration of {@code stateName}, or null if it was not registered here. */
    @Nullable
    public RegisteredState get(String stateName) {
        return states.get(stateName);
    }

    public boolean contains(String stateName) {
        return states.containsKey(stateName);
    }

    /** A snapshot of all registrations. */
    public Collection<RegisteredState> all() {
        return Collections.unmodifiableList(new ArrayList<>(states.values()));
    }

    public int size() {
        return states.size();
    }
}
