package io.falconstate.nexmark;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/** Every setting of a {@link NexmarkRunOptions} by getter name, to compare two runs' options. */
public final class RunOptionsFields {
    private RunOptionsFields() {}

    public static Map<String, Object> of(NexmarkRunOptions o) {
        Map<String, Object> fields = new TreeMap<>();
        for (Method m : NexmarkRunOptions.class.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers())
                    && !Modifier.isStatic(m.getModifiers())
                    && m.getParameterCount() == 0
                    && m.getReturnType() != NexmarkRunOptions.class
                    && !m.getName().equals("toString")
                    && !m.getName().equals("hashCode")) {
                try {
                    Object v = m.invoke(o);
                    fields.put(
                            m.getName(), v instanceof Map ? new LinkedHashMap<>((Map<?, ?>) v) : v);
                } catch (ReflectiveOperationException e) {
                    throw new AssertionError(e);
                }
            }
        }
        return fields;
    }
}
