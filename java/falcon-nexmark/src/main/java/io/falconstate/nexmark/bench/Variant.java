package io.falconstate.nexmark.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/** One backend configuration of the matrix: a label, a {@code state.backend} value, its entries. */
final class Variant {
    static final String FALCON_FACTORY = "io.falconstate.flink.FalconStateBackendFactory";

    final String label;
    final String stateBackend;
    final Map<String, String> conf = new LinkedHashMap<>();

    Variant(String label, String stateBackend) {
        this.label = label;
        this.stateBackend = stateBackend;
    }

    boolean falcon() {
        return stateBackend.equals(FALCON_FACTORY);
    }

    String confString() {
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, String> e : conf.entrySet()) {
            b.append(b.length() == 0 ? "" : ";")
                    .append(e.getKey())
                    .append('=')
                    .append(e.getValue());
        }
        return b.toString();
    }
}
