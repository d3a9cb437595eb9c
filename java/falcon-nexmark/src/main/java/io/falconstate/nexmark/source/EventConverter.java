package io.falconstate.nexmark.source;

import io.falconstate.nexmark.generator.NexmarkEvent;

import org.apache.flink.api.common.typeinfo.TypeInformation;

import java.io.Serializable;

/** Turns generated events into the records a {@link NexmarkSource} emits. */
public interface EventConverter<T> extends Serializable {
    T convert(NexmarkEvent event);

    TypeInformation<T> producedType();

    /** Emits the generator's {@link NexmarkEvent} objects unchanged (DataStream API). */
    static EventConverter<NexmarkEvent> events() {
        return new EventConverter<NexmarkEvent>() {
            private static final long serialVersionUID = 1L;

            @Override
            public NexmarkEvent convert(NexmarkEvent event) {
                return event;
            }

            @Override
            public TypeInformation<NexmarkEvent> producedType() {
                return TypeInformation.of(NexmarkEvent.class);
            }
        };
    }
}
