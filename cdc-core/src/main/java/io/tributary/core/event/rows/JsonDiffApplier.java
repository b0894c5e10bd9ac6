package io.tributary.core.event.rows;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads the JSON diff vector of a PARTIAL_UPDATE_ROWS after image and applies it to the before image's
 * value, giving the full after value.
 *
 * <p>Wire format ({@code Json_diff_vector::write_binary} in MySQL's {@code sql/json_diff.cc}): a 4-byte
 * little-endian length of what follows, then diffs back to back, each: operation (1 byte: 0 REPLACE,
 * 1 INSERT, 2 REMOVE), path length (length-encoded integer) and path text, then for REPLACE and INSERT the
 * value length (length-encoded integer) and the value in binary JSON.
 *
 * <p>Application follows {@code apply_json_diff}: REPLACE needs the path to exist; INSERT needs the parent
 * to exist and, for an object member, the member to be absent (array positions past the end append);
 * REMOVE needs the path to exist. A diff that does not fit the before value means the before image is not
 * the row the source updated, and fails. Stateless and thread-safe.
 */
public final class JsonDiffApplier {
    private JsonDiffApplier() {
    }

    /**
     * Reads a diff vector at {@code offset}.
     *
     * @return the diffs, and in {@code consumed[0]} the bytes read (4 + the vector length)
     */
    public static List<JsonDiff> read(byte[] src, int offset, int available, int[] consumed) {
        if (available < 4) {
            throw new RowDecodeException("JSON diff vector needs a 4-byte length, " + available + " bytes left");
        }
        long length = (src[offset] & 0xFFL) | (src[offset + 1] & 0xFFL) << 8 | (src[offset + 2] & 0xFFL) << 16
                | (src[offset + 3] & 0xFFL) << 24;
        if (length > available - 4) {
            throw new RowDecodeException("JSON diff vector claims " + length + " bytes, " + (available - 4) + " left");
        }
        int pos = offset + 4;
        int end = pos + (int) length;
        List<JsonDiff> diffs = new ArrayList<>();
        while (pos < end) {
            int op = src[pos++] & 0xFF;
            if (op >= JsonDiff.Operation.values().length) {
                throw new RowDecodeException("JSON diff " + diffs.size() + ": unknown operation " + op
                        + " (expected 0 REPLACE, 1 INSERT, 2 REMOVE)");
            }
            long[] pathLen = lengthEncoded(src, pos, end);
            pos = (int) pathLen[1];
            if (pathLen[0] > end - pos) {
                throw new RowDecodeException("JSON diff " + diffs.size() + ": path of " + pathLen[0] + " bytes exceeds the vector");
            }
            String path = new String(src, pos, (int) pathLen[0], java.nio.charset.StandardCharsets.UTF_8);
            pos += (int) pathLen[0];
            JsonDiff.Operation operation = JsonDiff.Operation.values()[op];
            JsonDocument value = null;
            if (operation != JsonDiff.Operation.REMOVE) {
                long[] valueLen = lengthEncoded(src, pos, end);
                pos = (int) valueLen[1];
                if (valueLen[0] > end - pos) {
                    throw new RowDecodeException("JSON diff " + diffs.size() + " at " + path + ": value of " + valueLen[0]
                            + " bytes exceeds the vector");
                }
                value = JsonBinary.decode(src, pos, (int) valueLen[0]);
                pos += (int) valueLen[0];
            }
            diffs.add(new JsonDiff(operation, path, value));
        }
        consumed[0] = 4 + (int) length;
        return diffs;
    }

    /**
     * Applies diffs to a before value.
     *
     * @param before    the before image's value of the column; {@code null} when the before image does not
     *                  hold it (e.g. {@code binlog_row_image=MINIMAL}) or holds SQL NULL
     * @param table     table name for the error message
     * @param column    column label for the error message
     * @return a new document; {@code before} is not modified
     * @throws RowDecodeException when there is no before value or a diff does not fit it
     */
    public static JsonDocument apply(JsonDocument before, List<JsonDiff> diffs, String table, String column) {
        if (before == null) {
            throw new RowDecodeException("PARTIAL_UPDATE_ROWS on table " + table + " column " + column
                    + ": the after image carries a JSON diff but the before image has no value for the column"
                    + " (binlog_row_image=MINIMAL or NOBLOB on the source?); the full after value cannot be rebuilt");
        }
        JsonDocument doc = before.deepCopy();
        Object root = doc.root();
        for (JsonDiff d : diffs) {
            root = applyOne(root, d, table, column);
        }
        return new JsonDocument(root);
    }

    @SuppressWarnings("unchecked")
    private static Object applyOne(Object root, JsonDiff d, String table, String column) {
        List<Object> legs = JsonPath.parse(d.path());
        if (legs.isEmpty()) {
            throw reject(d, table, column, "a diff path must have at least one leg");
        }
        Object parent = seek(root, legs.subList(0, legs.size() - 1));
        Object last = legs.get(legs.size() - 1);
        if (parent == null) {
            throw reject(d, table, column, "the parent of the path does not exist");
        }
        Object newValue = d.value() == null ? null : JsonDocument.copy(d.value().root());
        if (parent instanceof Map<?, ?> m && last instanceof String key) {
            Map<String, Object> map = (Map<String, Object>) m;
            boolean present = map.containsKey(key);
            switch (d.operation()) {
                case REPLACE -> {
                    if (!present) {
                        throw reject(d, table, column, "no member to replace");
                    }
                    map.put(key, newValue);
                }
                case INSERT -> {
                    if (present) {
                        throw reject(d, table, column, "member already exists");
                    }
                    map.put(key, newValue);
                }
                case REMOVE -> {
                    if (!present) {
                        throw reject(d, table, column, "no member to remove");
                    }
                    map.remove(key);
                }
            }
            return root;
        }
        if (parent instanceof List<?> l && last instanceof JsonPath.Cell cell) {
            List<Object> list = (List<Object>) l;
            int size = list.size();
            int index = cell.position(size);
            boolean within = index >= 0 && index < size;
            switch (d.operation()) {
                case REPLACE -> {
                    if (!within) {
                        throw reject(d, table, column, "array index out of bounds (size " + size + ")");
                    }
                    list.set(index, newValue);
                }
                case INSERT -> list.add(Math.max(0, Math.min(index, size)), newValue);
                case REMOVE -> {
                    if (!within) {
                        throw reject(d, table, column, "array index out of bounds (size " + size + ")");
                    }
                    list.remove(index);
                }
            }
            return root;
        }
        throw reject(d, table, column, "the last leg does not match the container it points into");
    }

    private static Object seek(Object node, List<Object> legs) {
        for (Object leg : legs) {
            if (node instanceof Map<?, ?> m && leg instanceof String key) {
                node = m.get(key);
            } else if (node instanceof List<?> l && leg instanceof JsonPath.Cell cell) {
                int i = cell.position(l.size());
                node = i >= 0 && i < l.size() ? l.get(i) : null;
            } else {
                return null;
            }
            if (node == null) {
                return null;
            }
        }
        return node;
    }

    private static RowDecodeException reject(JsonDiff d, String table, String column, String why) {
        return new RowDecodeException("PARTIAL_UPDATE_ROWS on table " + table + " column " + column + ": JSON diff "
                + d.operation() + " " + d.path() + " does not apply to the before value: " + why);
    }

    /** Returns {value, position after it}. */
    private static long[] lengthEncoded(byte[] b, int pos, int end) {
        if (pos >= end) {
            throw new RowDecodeException("JSON diff truncated: length-encoded integer expected at offset " + pos);
        }
        int first = b[pos] & 0xFF;
        int n = first < 251 ? 0 : first == 252 ? 2 : first == 253 ? 3 : first == 254 ? 8 : -1;
        if (n < 0) {
            throw new RowDecodeException("JSON diff: invalid length-encoded integer prefix 0x" + Integer.toHexString(first)
                    + " at offset " + pos);
        }
        if (n == 0) {
            return new long[] {first, pos + 1};
        }
        if (pos + 1 + n > end) {
            throw new RowDecodeException("JSON diff truncated: " + n + "-byte length at offset " + pos);
        }
        long v = 0;
        for (int i = n; i >= 1; i--) {
            v = v << 8 | (b[pos + i] & 0xFF);
        }
        if (v < 0 || v > Integer.MAX_VALUE) {
            throw new RowDecodeException("JSON diff: impossible length " + Long.toUnsignedString(v) + " at offset " + pos);
        }
        return new long[] {v, pos + 1 + n};
    }
}
