package io.tributary.core.event.rows;

import io.tributary.core.event.ColumnType;
import java.math.BigInteger;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes one non-null column value in its storage format (see {@link RowImageDecoder} for the Java types).
 * Stateless and thread-safe.
 */
final class ColumnValueDecoder {
    private ColumnValueDecoder() {
    }

    static Object decode(ColumnDefinition col, RowImageDecoder.Cursor c) {
        int meta = col.metadata();
        ColumnType type = col.storedType();
        return switch (type) {
            case TINY -> integer(c, 1, col.unsigned());
            case SHORT -> integer(c, 2, col.unsigned());
            case INT24 -> integer(c, 3, col.unsigned());
            case LONG -> integer(c, 4, col.unsigned());
            case LONGLONG -> {
                long v = c.le(8);
                yield col.unsigned() && v < 0 ? new BigInteger(Long.toUnsignedString(v)) : (Object) v;
            }
            case FLOAT -> Float.intBitsToFloat((int) c.le(4));
            case DOUBLE -> Double.longBitsToDouble(c.le(8));
            case NEWDECIMAL -> {
                int precision = meta >>> 8;
                int scale = meta & 0xFF;
                int size = PackedDecimal.binarySize(precision, scale);
                c.need(size, "DECIMAL(" + precision + "," + scale + ")");
                Object v = PackedDecimal.decode(c.b, c.pos, precision, scale);
                c.pos += size;
                yield v;
            }
            case BIT -> {
                int bytes = (meta >>> 8) + ((meta & 0xFF) > 0 ? 1 : 0);
                if (bytes > 8) {
                    throw new RowDecodeException("BIT metadata " + meta + " means " + bytes + " bytes, at most 8 allowed");
                }
                c.need(bytes, "BIT");
                long v = TemporalCodec.be(c.b, c.pos, bytes);
                c.pos += bytes;
                yield v;
            }
            case YEAR -> {
                int v = (int) c.le(1);
                yield v == 0 ? 0 : 1900 + v;
            }
            case DATE, NEWDATE -> {
                c.need(3, "DATE");
                MysqlDateTime v = TemporalCodec.date(c.b, c.pos);
                c.pos += 3;
                yield v;
            }
            case DATETIME -> TemporalCodec.oldDatetime(c.le(8));
            case TIME -> TemporalCodec.oldTime((int) (c.le(3) << 40 >> 40));
            case TIMESTAMP -> java.time.Instant.ofEpochSecond(c.le(4));
            case DATETIME2 -> {
                int n = 5 + TemporalCodec.fractionBytes(checkFsp(meta));
                c.need(n, "DATETIME(" + meta + ")");
                MysqlDateTime v = TemporalCodec.datetime2(c.b, c.pos, meta);
                c.pos += n;
                yield v;
            }
            case TIME2 -> {
                int n = 3 + TemporalCodec.fractionBytes(checkFsp(meta));
                c.need(n, "TIME(" + meta + ")");
                MysqlTime v = TemporalCodec.time2(c.b, c.pos, meta);
                c.pos += n;
                yield v;
            }
            case TIMESTAMP2 -> {
                int n = 4 + TemporalCodec.fractionBytes(checkFsp(meta));
                c.need(n, "TIMESTAMP(" + meta + ")");
                java.time.Instant v = TemporalCodec.timestamp2(c.b, c.pos, meta);
                c.pos += n;
                yield v;
            }
            case VARCHAR -> text(col, c, meta < 256 ? 1 : 2);
            // VAR_STRING (a CHAR of an old packed-record table, MySQL Field_string) has STRING metadata and packing
            case STRING, VAR_STRING -> text(col, c, col.stringLength() < 256 ? 1 : 2);
            case ENUM -> {
                int size = meta & 0xFF;
                if (size != 1 && size != 2) {
                    throw new RowDecodeException("ENUM value size " + size + ", expected 1 or 2");
                }
                int index = (int) c.le(size);
                List<String> names = col.enumValues();
                yield new MysqlEnum(index, names != null && index >= 1 && index <= names.size() ? names.get(index - 1) : null);
            }
            case SET -> {
                int size = meta & 0xFF;
                if (size < 1 || size > 8) {
                    throw new RowDecodeException("SET value size " + size + ", expected 1 to 8");
                }
                long bits = c.le(size);
                yield new MysqlSet(bits, setNames(bits, col.setValues()));
            }
            case BLOB, TINY_BLOB, MEDIUM_BLOB, LONG_BLOB -> {
                int lengthBytes = meta != 0 ? meta : type == ColumnType.TINY_BLOB ? 1 : type == ColumnType.MEDIUM_BLOB ? 3
                        : type == ColumnType.LONG_BLOB ? 4 : 2;
                yield text(col, c, lengthBytes);
            }
            case GEOMETRY, VECTOR -> bytes(c, lengthBytes(meta, type), type.name());
            case JSON -> {
                int len = length(c, lengthBytes(meta, type), "JSON");
                JsonDocument v = JsonBinary.decode(c.b, c.pos, len);
                c.pos += len;
                yield v;
            }
            case NULL -> null;
            case DECIMAL -> throw new RowDecodeException("old DECIMAL (MySQL 4.1 and earlier) cannot be decoded from a row image");
            default -> throw new RowDecodeException("column type " + type + " (code " + type.code()
                    + ") does not occur in row images");
        };
    }

    private static Object integer(RowImageDecoder.Cursor c, int bytes, boolean unsigned) {
        long v = c.le(bytes);
        if (!unsigned) {
            int shift = 64 - 8 * bytes;
            v = v << shift >> shift;
        }
        return v;
    }

    private static int checkFsp(int fsp) {
        if (fsp < 0 || fsp > 6) {
            throw new RowDecodeException("fractional seconds precision " + fsp + ", expected 0 to 6");
        }
        return fsp;
    }

    private static int lengthBytes(int meta, ColumnType type) {
        if (meta < 1 || meta > 4) {
            throw new RowDecodeException(type + " length-bytes metadata " + meta + ", expected 1 to 4");
        }
        return meta;
    }

    private static int length(RowImageDecoder.Cursor c, int lengthBytes, String what) {
        long len = c.le(lengthBytes);
        if (len > c.end - c.pos) {
            throw new RowDecodeException(what + " value claims " + len + " bytes at offset " + c.offset(c.pos) + ", "
                    + (c.end - c.pos) + " left");
        }
        return (int) len;
    }

    private static byte[] bytes(RowImageDecoder.Cursor c, int lengthBytes, String what) {
        int len = length(c, lengthBytes, what);
        byte[] v = java.util.Arrays.copyOfRange(c.b, c.pos, c.pos + len);
        c.pos += len;
        return v;
    }

    /** A length-prefixed string: a String when the collation is known and the bytes valid, else bytes. */
    private static Object text(ColumnDefinition col, RowImageDecoder.Cursor c, int lengthBytes) {
        int len = length(c, lengthBytes, col.type().name());
        Charset cs = col.charset() == MysqlCharsets.BINARY ? null : MysqlCharsets.forCollation(col.charset());
        Object v = null;
        if (cs != null) {
            v = RowImageDecoder.decodeStrict(c.b, c.pos, len, cs);
        }
        if (v == null) {
            v = java.util.Arrays.copyOfRange(c.b, c.pos, c.pos + len);
        }
        c.pos += len;
        return v;
    }

    private static List<String> setNames(long bits, List<String> names) {
        if (names == null) {
            return null;
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < names.size() && i < 64; i++) {
            if ((bits & (1L << i)) != 0) {
                out.add(names.get(i));
            }
        }
        return out;
    }
}
