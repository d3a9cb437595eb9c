/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.runtime.state.CompositeKeySerializationUtils;

import java.io.IOException;

/**
 * Where a MapState's stored RocksDB key ends its map prefix and starts the user key: the key group,
 * the key (its length after it iff ambiguous), the namespace (likewise), as {@link CacheKeyBuilder}
 * and Flink's {@code SerializedCompositeKeyBuilder} lay it out. Parsing deserializes the key and
 * the namespace; only the written-key filter's scans use it. A key it cannot parse gives -1: the
 * filter gives up, and the state's maps are read as stock reads them.
 *
 * <p>Not thread-safe: the task thread, with the backend's key serializer.
 */
final class MapKeyPrefix implements WrittenKeyFilter.KeyPrefix {

    private final TypeSerializer<?> keySerializer;
    private final int keyGroupPrefixBytes;
    private final boolean keyVariableSized;
    private final DataInputDeserializer in = new DataInputDeserializer();

    private TypeSerializer<?> namespaceSerializer;
    private boolean ambiguous;

    MapKeyPrefix(TypeSerializer<?> keySerializer, int keyGroupPrefixBytes) {
        this.keySerializer = keySerializer;
        this.keyGroupPrefixBytes = keyGroupPrefixBytes;
        this.keyVariableSized =
                CompositeKeySerializationUtils.isSerializerTypeVariableSized(keySerializer);
    }

    /** The state's namespace serializer (again after a re-registration). */
    void setNamespaceSerializer(TypeSerializer<?> namespaceSerializer) {
        this.namespaceSerializer = namespaceSerializer;
        this.ambiguous =
                keyVariableSized
                        && CompositeKeySerializationUtils.isSerializerTypeVariableSized(
                                namespaceSerializer);
    }

    @Override
    public int lengthOf(byte[] storedKey) {
        try {
            in.setBuffer(storedKey);
            in.skipBytesToRead(keyGroupPrefixBytes);
            CompositeKeySerializationUtils.readKey(keySerializer, in, ambiguous);
            CompositeKeySerializationUtils.readNamespace(namespaceSerializer, in, ambiguous);
            return in.getPosition();
        } catch (IOException | RuntimeException e) {
            return -1; // not a key this state's serializers wrote
        }
    }
}
