package io.tributary.core.event.rows;

import io.tributary.core.event.ColumnType;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * Decodes MySQL's binary JSON ({@code sql-common/json_binary.cc}) into a {@link JsonDocument} tree.
 *
 * <p>Format: one type byte, then the value. Types: 0x00/0x01 small/large object, 0x02/0x03 small/large
 * array, 0x04 literal (0 null, 1 true, 2 false), 0x05 int16, 0x06 uint16, 0x07 int32, 0x08 uint32,
 * 0x09 int64, 0x0a uint64, 0x0b double, 0x0c string (variable-length length, 7 bits per byte, low group
 * first, then UTF-8), 0x0f opaque (field type byte, variable-length length, data). Numbers are
 * little-endian. An object or array starts with its element count and its total size (2 bytes each when
 * small, 4 when large); an object then has one key entry per member (key offset, 2-byte key length), both
 * kinds then have one value entry per element (type byte and an offset, or the value itself when it fits:
 * literals and 16-bit integers always, 32-bit integers in large containers). Offsets count from the
 * element count. Stateless and thread-safe; every read is checked against the value's bounds.
 */
public final class JsonBinary {
    private static final int SMALL_OBJECT = 0x00;
    private static final int LARGE_OBJECT = 0x01;
    private static final int SMALL_ARRAY = 0x02;
    private static final int LARGE_ARRAY = 0x03;
    private static final int LITERAL = 0x04;
    private static final int INT16 = 0x05;
    private static final int UINT16 = 0x06;
    private static final int INT32 = 0x07;
    private static final int UINT32 = 0x08;
    private static final int INT64 = 0x09;
    private static final int UINT64 = 0x0a;
    private static final int DOUBLE = 0x0b;
    private static final int STRING = 0x0c;
    private static final int OPAQUE = 0x0f;
    private static final int MAX_DEPTH = 100;

    private final byte[] b;
    private final int end;

    private JsonBinary(byte[] b, int end) {
        this.b = b;
        this.end = end;
    }

    /**
     * Decodes one document. An empty value (length 0) is what MySQL stores for a JSON column set to an
     * empty string by a non-strict server; it decodes as JSON null, as MySQL reads it.
     *
     * @throws RowDecodeException on a truncated or malformed document
     */
    public static JsonDocument decode(byte[] src, int offset, int length) {
        if (offset < 0 || length < 0 || offset + length > src.length) {
            throw new RowDecodeException("binary JSON of " + length + " bytes at " + offset + " exceeds its buffer of "
                    + src.length);
        }
        if (length == 0) {
            return new JsonDocument(JsonNull.INSTANCE);
        }
        JsonBinary p = new JsonBinary(src, offset + length);
        return new JsonDocument(p.value(src[offset] & 0xFF, offset + 1, 0));
    }

    private Object value(int type, int pos, int depth) {
        if (depth > MAX_DEPTH) {
            throw new RowDecodeException("binary JSON nested deeper than " + MAX_DEPTH + " levels");
        }
        return switch (type) {
            case SMALL_OBJECT -> container(pos, false, true, depth);
            case LARGE_OBJECT -> container(pos, true, true, depth);
            case SMALL_ARRAY -> container(pos, false, false, depth);
            case LARGE_ARRAY -> container(pos, true, false, depth);
            case LITERAL -> literal(u8(pos));
            case INT16 -> (long) (short) le(pos, 2);
            case UINT16 -> le(pos, 2);
            case INT32 -> (long) (int) le(pos, 4);
            case UINT32 -> le(pos, 4);
            case INT64 -> le(pos, 8);
            case UINT64 -> {
                long v = le(pos, 8);
                yield v >= 0 ? (Object) v : new BigInteger(Long.toUnsignedString(v));
            }
            case DOUBLE -> Double.longBitsToDouble(le(pos, 8));
            case STRING -> {
                long[] lenAndPos = varLength(pos);
                int len = (int) lenAndPos[0];
                int start = (int) lenAndPos[1];
                need(start, len);
                yield new String(b, start, len, StandardCharsets.UTF_8);
            }
            case OPAQUE -> opaque(pos);
            default -> throw new RowDecodeException("binary JSON: unknown value type 0x" + Integer.toHexString(type)
                    + " at offset " + pos);
        };
    }

    private Object container(int start, boolean large, boolean object, int depth) {
        int w = large ? 4 : 2;
        need(start, 2 * w);
        long count = le(start, w);
        long size = le(start + w, w);
        if (size > end - start) {
            throw new RowDecodeException("binary JSON " + (object ? "object" : "array") + " claims " + size
                    + " bytes, only " + (end - start) + " remain");
        }
        int containerEnd = start + (int) size;
        long headerBytes = 2L * w + count * (object ? w + 2 : 0) + count * (1 + w);
        if (headerBytes > size) {
            throw new RowDecodeException("binary JSON " + (object ? "object" : "array") + " of " + count
                    + " elements does not fit its size " + size);
        }
        int n = (int) count;
        int keyEntries = start + 2 * w;
        int valueEntries = keyEntries + (object ? n * (w + 2) : 0);
        JsonBinary inner = new JsonBinary(b, containerEnd);
        if (object) {
            TreeMap<String, Object> map = JsonDocument.newObject();
            for (int i = 0; i < n; i++) {
                int ke = keyEntries + i * (w + 2);
                long keyOffset = le(ke, w);
                int keyLength = (int) le(ke + w, 2);
                if (keyOffset + keyLength > size) {
                    throw new RowDecodeException("binary JSON key " + i + " at offset " + keyOffset + " length "
                            + keyLength + " exceeds its object of " + size + " bytes");
                }
                String key = new String(b, start + (int) keyOffset, keyLength, StandardCharsets.UTF_8);
                map.put(key, inner.entry(start, valueEntries + i * (1 + w), large, depth));
            }
            return map;
        }
        List<Object> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(inner.entry(start, valueEntries + i * (1 + w), large, depth));
        }
        return list;
    }

    private Object entry(int containerStart, int entryPos, boolean large, int depth) {
        int w = large ? 4 : 2;
        int type = u8(entryPos);
        boolean inlined = type == LITERAL || type == INT16 || type == UINT16
                || (large && (type == INT32 || type == UINT32));
        if (inlined) {
            return switch (type) {
                case LITERAL -> literal(u8(entryPos + 1));
                case INT16 -> (long) (short) le(entryPos + 1, 2);
                case UINT16 -> le(entryPos + 1, 2);
                case INT32 -> (long) (int) le(entryPos + 1, 4);
                default -> le(entryPos + 1, 4);
            };
        }
        long offset = le(entryPos + 1, w);
        if (containerStart + offset >= end) {
            throw new RowDecodeException("binary JSON value offset " + offset + " points past its container");
        }
        return value(type, containerStart + (int) offset, depth + 1);
    }

    private Object opaque(int pos) {
        int fieldType = u8(pos);
        long[] lenAndPos = varLength(pos + 1);
        int len = (int) lenAndPos[0];
        int start = (int) lenAndPos[1];
        need(start, len);
        if (fieldType == ColumnType.NEWDECIMAL.code() && len >= 2) {
            // bounded copy: the packed digits must lie inside the opaque value, not run on into what follows it
            return PackedDecimal.decode(java.util.Arrays.copyOfRange(b, start + 2, start + len), 0, u8(start),
                    u8(start + 1));
        }
        boolean temporal = fieldType == ColumnType.DATE.code() || fieldType == ColumnType.TIME.code()
                || fieldType == ColumnType.DATETIME.code() || fieldType == ColumnType.TIMESTAMP.code();
        if (temporal && len == 8) {
            long packed = le(start, 8);
            String text = fieldType == ColumnType.TIME.code()
                    ? TemporalCodec.timeFromPacked(packed).format(6)
                    : fieldType == ColumnType.DATE.code()
                    ? TemporalCodec.datetimeFromPacked(packed).formatDate()
                    : TemporalCodec.datetimeFromPacked(packed).format(6);
            return new JsonTemporal(fieldType, text);
        }
        byte[] data = new byte[len];
        System.arraycopy(b, start, data, 0, len);
        return new JsonOpaque(fieldType, data);
    }

    private static Object literal(int v) {
        return switch (v) {
            case 0 -> JsonNull.INSTANCE;
            case 1 -> Boolean.TRUE;
            case 2 -> Boolean.FALSE;
            default -> throw new RowDecodeException("binary JSON: unknown literal 0x" + Integer.toHexString(v));
        };
    }

    /** Returns {length, position after the length}. */
    private long[] varLength(int pos) {
        long len = 0;
        for (int i = 0; i < 5; i++) {
            int c = u8(pos + i);
            len |= (long) (c & 0x7F) << (7 * i);
            if ((c & 0x80) == 0) {
                if (len > Integer.MAX_VALUE) {
                    break;
                }
                return new long[] {len, pos + i + 1};
            }
        }
        throw new RowDecodeException("binary JSON: bad variable-length length at offset " + pos);
    }

    private int u8(int pos) {
        need(pos, 1);
        return b[pos] & 0xFF;
    }

    private long le(int pos, int n) {
        need(pos, n);
        long v = 0;
        for (int i = n - 1; i >= 0; i--) {
            v = v << 8 | (b[pos + i] & 0xFF);
        }
        return v;
    }

    private void need(int pos, int n) {
        if (pos < 0 || n < 0 || (long) pos + n > end) {
            throw new RowDecodeException("binary JSON truncated: need " + n + " bytes at offset " + pos + ", value ends at "
                    + end);
        }
    }
}
