package io.falconstate.nexmark.source;

import org.apache.flink.core.io.SimpleVersionedSerializer;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Versioned serializer of {@link NexmarkSplit} and of the enumerator's pending-split list. */
public final class NexmarkSplitSerializer implements SimpleVersionedSerializer<NexmarkSplit> {
    public static final NexmarkSplitSerializer INSTANCE = new NexmarkSplitSerializer();
    private static final int VERSION = 1;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(NexmarkSplit split) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(16);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            write(split, out);
        }
        return bytes.toByteArray();
    }

    @Override
    public NexmarkSplit deserialize(int version, byte[] serialized) throws IOException {
        checkVersion(version);
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
            return read(in);
        }
    }

    static void write(NexmarkSplit split, DataOutputStream out) throws IOException {
        out.writeInt(split.index());
        out.writeInt(split.count());
        out.writeLong(split.emitted());
    }

    static NexmarkSplit read(DataInputStream in) throws IOException {
        int index = in.readInt();
        int count = in.readInt();
        long emitted = in.readLong();
        return new NexmarkSplit(index, count, emitted);
    }

    static void checkVersion(int version) throws IOException {
        if (version != VERSION) {
            throw new IOException("unknown Nexmark split serializer version " + version);
        }
    }

    /** Serializer of the enumerator checkpoint: the splits not assigned to any reader. */
    public static final class EnumStateSerializer
            implements SimpleVersionedSerializer<List<NexmarkSplit>> {
        @Override
        public int getVersion() {
            return VERSION;
        }

        @Override
        public byte[] serialize(List<NexmarkSplit> splits) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(8 + 16 * splits.size());
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeInt(splits.size());
                for (NexmarkSplit s : splits) {
                    write(s, out);
                }
            }
            return bytes.toByteArray();
        }

        @Override
        public List<NexmarkSplit> deserialize(int version, byte[] serialized) throws IOException {
            checkVersion(version);
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
                int n = in.readInt();
                List<NexmarkSplit> splits = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    splits.add(read(in));
                }
                return splits;
            }
        }
    }
}
