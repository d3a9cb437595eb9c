/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.CompositeKeySerializationUtils;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.util.FlinkRuntimeException;

import java.io.IOException;

/**
 * Builds the RocksDB key of (current key, its key group, a namespace) into one reused buffer, byte
 * for byte as Flink's {@code SerializedCompositeKeyBuilder} lays it out:
 *
 * <pre>
 * [key group: 1-2 bytes BE][key][key length iff ambiguous][namespace][namespace length iff ambiguous]
 * </pre>
 *
 * where "ambiguous" means both key and namespace serializers are variable-sized. Flink's builder
 * returns a fresh copy per call; this one hands out its internal buffer, so building a key
 * allocates nothing once the buffer has grown to the largest key.
 *
 * <p>The serialized key is kept until the backend selects another key (it listens for that) or the
 * key group changes, so several states accessed for one record serialize the key once.
 *
 * <p>Not thread-safe: the task thread of one keyed backend uses it, with that backend's key
 * serializer (the same instance RocksDB's own key builder uses on the same thread).
 */
public final class CacheKeyBuilder<K> implements KeyedStateBackend.KeySelectionListener<K> {

    /**
     * The backend's current key and key group. Typed as the backend, not as Flink's {@code
     * InternalKeyContext}, whose package changed in Flink 1.19.
     */
    private final AbstractKeyedStateBackend<K> keyContext;

    private final TypeSerializer<K> keySerializer;
    private final int keyGroupPrefixBytes;
    private final boolean keyVariableSized;
    private final DataOutputSerializer out = new DataOutputSerializer(64);

    private boolean keyWritten;
    private int writtenKeyGroup = -1;
    private int afterKeyMark;

    public CacheKeyBuilder(
            AbstractKeyedStateBackend<K> keyContext,
            TypeSerializer<K> keySerializer,
            int keyGroupPrefixBytes) {
        this.keyContext = keyContext;
        this.keySerializer = keySerializer;
        this.keyGroupPrefixBytes = keyGroupPrefixBytes;
        this.keyVariableSized =
                CompositeKeySerializationUtils.isSerializerTypeVariableSized(keySerializer);
    }

    @Override
    public void keySelected(K newKey) {
        keyWritten = false;
    }

    /** Forgets the serialized key (e.g. after the key group index was set directly). */
    public void invalidate() {
        keyWritten = false;
    }

    /**
     * Writes the composite key of the current key and {@code namespace}; returns its length. The
     * bytes are {@code buffer()[0, length)} until the next call.
     */
    public <N> int build(
            N namespace, TypeSerializer<N> namespaceSerializer, boolean namespaceVariableSized) {
        try {
            int keyGroup = keyContext.getCurrentKeyGroupIndex();
            if (!keyWritten || keyGroup != writtenKeyGroup) {
                out.clear();
                CompositeKeySerializationUtils.writeKeyGroup(keyGroup, keyGroupPrefixBytes, out);
                keySerializer.serialize(keyContext.getCurrentKey(), out);
                afterKeyMark = out.length();
                writtenKeyGroup = keyGroup;
                keyWritten = true;
            } else {
                out.setPosition(afterKeyMark);
            }
            boolean ambiguous = keyVariableSized && namespaceVariableSized;
            if (ambiguous) {
                CompositeKeySerializationUtils.writeVariableIntBytes(
                        afterKeyMark - keyGroupPrefixBytes, out);
            }
            CompositeKeySerializationUtils.writeNameSpace(
                    namespace, namespaceSerializer, out, ambiguous);
            return out.length();
        } catch (IOException e) {
            throw new FlinkRuntimeException("[FALCON] cannot serialize the state key", e);
        }
    }

    /** The buffer holding the last built key (it may be replaced when it grows). */
    public byte[] buffer() {
        return out.getSharedBuffer();
    }
}
