package io.tributary.core.event.rows;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A decoded JSON column value, kept as a tree so partial updates can be applied to it.
 *
 * <p>Tree nodes: {@code Map<String, Object>} (a {@link TreeMap} in MySQL's key order: shorter keys first,
 * then bytewise UTF-8), {@code List<Object>}, {@link String}, {@link Long} (int16 to int64 and uint16/32),
 * {@link java.math.BigInteger} (uint64 above {@code Long.MAX_VALUE}), {@link Double}, {@link Boolean},
 * {@link JsonNull}, {@link java.math.BigDecimal} (opaque DECIMAL), {@link JsonTemporal} (opaque DATE, TIME,
 * DATETIME, TIMESTAMP) and {@link JsonOpaque} (other opaque values).
 *
 * <p>{@link #toString()} gives the JSON text as MySQL prints it ({@code {"a": 1, "b": [true, null]}}).
 */
public record JsonDocument(Object root) {

    /** The JSON text, formatted as MySQL's {@code JSON_UNQUOTE}-free output. */
    public String toJson() {
        return JsonTextWriter.write(root);
    }

    @Override
    public String toString() {
        return toJson();
    }

    /** A deep copy of the tree (containers copied, scalars shared: they are immutable). */
    public JsonDocument deepCopy() {
        return new JsonDocument(copy(root));
    }

    @SuppressWarnings("unchecked")
    static Object copy(Object node) {
        if (node instanceof Map<?, ?> m) {
            TreeMap<String, Object> out = newObject();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                out.put((String) e.getKey(), copy(e.getValue()));
            }
            return out;
        }
        if (node instanceof List<?> l) {
            List<Object> out = new ArrayList<>(l.size());
            for (Object o : l) {
                out.add(copy(o));
            }
            return out;
        }
        return node;
    }

    /** An empty JSON object map ordered as MySQL orders keys. */
    static TreeMap<String, Object> newObject() {
        return new TreeMap<>(JsonDocument::compareKeys);
    }

    /** MySQL's binary JSON key order: by UTF-8 length, then bytewise. */
    static int compareKeys(String a, String b) {
        byte[] x = a.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] y = b.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        if (x.length != y.length) {
            return Integer.compare(x.length, y.length);
        }
        return java.util.Arrays.compareUnsigned(x, y);
    }
}
