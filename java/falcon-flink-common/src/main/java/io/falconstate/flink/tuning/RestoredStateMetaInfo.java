/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedBackendSerializationProxy;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Tuning restored states: a restore creates every restored column family before any state
 * registers, so the column-family function cannot see the state's kind and serializers in the
 * registry yet. This reads them from the restore handles' meta data ({@link
 * KeyedBackendSerializationProxy}, as Flink's RocksDB restore operations do) before the inner
 * backend is built.
 *
 * <p>Reads the meta stream of incremental handles and the header of full (savepoint) handles;
 * nothing else. A handle or state whose meta info cannot be read, or whose namespace serializer
 * cannot be restored, is simply not in the result: its column family stays untuned. Never throws
 * for those; cancellation (closing {@code cancelStreamRegistry}) still aborts the reads.
 */
public final class RestoredStateMetaInfo {

    private static final Logger LOG = LoggerFactory.getLogger(RestoredStateMetaInfo.class);

    /**
     * Kind and serializers of one restored key/value state: the namespace serializer, and the key
     * serializer of the snapshot that holds it (null when it cannot be restored). They wrote the
     * restored keys, so they decide the column family's key layout. Immutable.
     */
    public static final class RestoredState {
        private final StateDescriptor.Type kind;
        private final TypeSerializer<?> namespaceSerializer;
        @Nullable private final TypeSerializer<?> keySerializer;

        RestoredState(StateDescriptor.Type kind, TypeSerializer<?> namespaceSerializer) {
            this(kind, namespaceSerializer, null);
        }

        RestoredState(
                StateDescriptor.Type kind,
                TypeSerializer<?> namespaceSerializer,
                @Nullable TypeSerializer<?> keySerializer) {
            this.kind = kind;
            this.namespaceSerializer = namespaceSerializer;
            this.keySerializer = keySerializer;
        }

        public StateDescriptor.Type kind() {
            return kind;
        }

        public TypeSerializer<?> namespaceSerializer() {
            return namespaceSerializer;
        }

        /** The snapshot's key serializer; null when unknown (then the current one is used). */
        @Nullable
        public TypeSerializer<?> keySerializer() {
            return keySerializer;
        }
    }

    private RestoredStateMetaInfo() {}

    /** State name → kind and serializers, for every key/value state the handles hold. */
    public static Map<String, RestoredState> read(
            Collection<KeyedStateHandle> handles,
            ClassLoader userCodeClassLoader,
            CloseableRegistry cancelStreamRegistry) {
        Map<String, RestoredState> states = new HashMap<>();
        Set<String> conflicting = new HashSet<>();
        for (KeyedStateHandle handle : handles) {
            StreamStateHandle meta = metaStream(handle);
            if (meta == null) {
                continue;
            }
            try {
                KeyedBackendSerializationProxy<?> proxy =
                        readProxy(meta, userCodeClassLoader, cancelStreamRegistry);
                TypeSerializer<?> keySerializer = restoreKeySerializer(proxy);
                for (StateMetaInfoSnapshot snapshot : proxy.getStateMetaInfoSnapshots()) {
                    RestoredState state = toRestoredState(snapshot, keySerializer);
                    if (state == null) {
                        continue;
                    }
                    RestoredState previous = states.putIfAbsent(snapshot.getName(), state);
                    if (previous != null && previous.kind() != state.kind()) {
                        conflicting.add(snapshot.getName());
                    }
                }
            } catch (Exception e) {
                if (cancelStreamRegistry.isClosed()) {
                    break; // cancelled: the restore itself reports it
                }
                LOG.info(
                        "[FALCON] could not read state meta info of {} for tuning; its column "
                                + "families stay untuned",
                        handle.getClass().getSimpleName(),
                        e);
            }
        }
        states.keySet().removeAll(conflicting);
        return states;
    }

    @Nullable
    private static StreamStateHandle metaStream(KeyedStateHandle handle) {
        StreamStateHandle incrementalMeta = IncrementalMetaData.of(handle);
        if (incrementalMeta != null) {
            return incrementalMeta;
        }
        if (handle instanceof KeyGroupsStateHandle) {
            // Full snapshots and canonical savepoints start with the proxy.
            return (KeyGroupsStateHandle) handle;
        }
        return null; // e.g. changelog handles: not a RocksDB restore
    }

    private static KeyedBackendSerializationProxy<?> readProxy(
            StreamStateHandle meta, ClassLoader classLoader, CloseableRegistry registry)
            throws Exception {
        FSDataInputStream in = meta.openInputStream();
        registry.registerCloseable(in);
        try {
            KeyedBackendSerializationProxy<?> proxy =
                    new KeyedBackendSerializationProxy<>(classLoader);
            proxy.read(new DataInputViewStreamWrapper(in));
            return proxy;
        } finally {
            if (registry.unregisterCloseable(in)) {
                in.close();
            }
        }
    }

    @Nullable
    private static TypeSerializer<?> restoreKeySerializer(KeyedBackendSerializationProxy<?> proxy) {
        try {
            TypeSerializerSnapshot<?> key = proxy.getKeySerializerSnapshot();
            return key == null ? null : key.restoreSerializer();
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }

    @Nullable
    private static RestoredState toRestoredState(
            StateMetaInfoSnapshot snapshot, @Nullable TypeSerializer<?> keySerializer) {
        if (snapshot.getBackendStateType() != StateMetaInfoSnapshot.BackendStateType.KEY_VALUE) {
            return null; // priority queues (timers) are never tuned
        }
        String kindName =
                snapshot.getOption(StateMetaInfoSnapshot.CommonOptionsKeys.KEYED_STATE_TYPE);
        TypeSerializerSnapshot<?> namespace =
                snapshot.getTypeSerializerSnapshot(
                        StateMetaInfoSnapshot.CommonSerializerKeys.NAMESPACE_SERIALIZER);
        if (kindName == null || namespace == null) {
            return null;
        }
        try {
            return new RestoredState(
                    StateDescriptor.Type.valueOf(kindName),
                    namespace.restoreSerializer(),
                    keySerializer);
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }
}
