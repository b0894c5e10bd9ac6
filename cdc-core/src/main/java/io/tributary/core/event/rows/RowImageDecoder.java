package io.tributary.core.event.rows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.tributary.core.event.ColumnType;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * Decodes the row images of a rows event into {@link Row}s of typed values.
 *
 * <p>Input: the rows part of a rows event body, i.e. what follows the column count and the
 * columns-present bitmap(s), up to the end of the event data (without the checksum). A row image
 * ({@code sql/rpl_record.cc}, {@code pack_row}) is a null bitmap with one bit per present column
 * ({@code (present + 7) / 8} bytes, bit 0 of byte 0 first), then the values of the present, non-null
 * columns in column order, each in its column type's storage format.
 *
 * <p>Value mapping (the Java type of {@link Row#get(int)}):
 * <table>
 *   <caption>MySQL type to Java type</caption>
 *   <tr><td>TINYINT, SMALLINT, MEDIUMINT, INT, BIGINT</td><td>{@link Long} (unsigned columns zero-extended;
 *       an unsigned BIGINT above {@code Long.MAX_VALUE} is a {@link BigInteger})</td></tr>
 *   <tr><td>DECIMAL</td><td>{@link java.math.BigDecimal} with the column's scale</td></tr>
 *   <tr><td>FLOAT, DOUBLE</td><td>{@link Float}, {@link Double}</td></tr>
 *   <tr><td>BIT(n)</td><td>{@link Long}, the n bits right-aligned</td></tr>
 *   <tr><td>YEAR</td><td>{@link Integer} (0 or 1901-2155)</td></tr>
 *   <tr><td>DATE, DATETIME (old and fsp formats)</td><td>{@link MysqlDateTime} (zero dates allowed)</td></tr>
 *   <tr><td>TIMESTAMP (old and fsp formats)</td><td>{@link java.time.Instant} (the zero timestamp is the
 *       epoch, as stored)</td></tr>
 *   <tr><td>TIME (old and fsp formats)</td><td>{@link MysqlTime} (negative and &gt; 24 h allowed)</td></tr>
 *   <tr><td>CHAR, VARCHAR, TEXT</td><td>{@link String} when the column's collation is known
 *       ({@link MysqlCharsets}) and the bytes are valid in it; else {@code byte[]}</td></tr>
 *   <tr><td>BINARY, VARBINARY, BLOB</td><td>{@code byte[]}</td></tr>
 *   <tr><td>ENUM, SET</td><td>{@link MysqlEnum}, {@link MysqlSet}</td></tr>
 *   <tr><td>JSON (MySQL)</td><td>{@link JsonDocument}; MariaDB's JSON is a LONGTEXT and decodes as text</td></tr>
 *   <tr><td>GEOMETRY</td><td>{@code byte[]}: 4-byte SRID then WKB</td></tr>
 *   <tr><td>VECTOR (MySQL 9)</td><td>{@code byte[]}: little-endian float32 values</td></tr>
 * </table>
 * The old pre-5.0 DECIMAL and MariaDB's compressed columns are refused with a {@link RowDecodeException}.
 *
 * <p>Every length is checked against the bytes left before anything is read or allocated; a row image
 * that runs past the end, or a rows part with bytes left that do not form a whole row, fails with the
 * table, column and offset. Stateless and thread-safe.
 */
public final class RowImageDecoder {

    /** {@code PARTIAL_JSON_UPDATES} bit of {@code value_options}. */
    static final long PARTIAL_JSON_UPDATES = 1;

    /**
     * Decodes one row image at the reader index of {@code buf} and advances the reader index past it.
     *
     * @param columns the columns-present bitmap of this image (bit i = table column i)
     */
    public Row decodeImage(TableColumns table, BitSet columns, ByteBuf buf) {
        Cursor c = cursor(buf);
        Row row = image(table, columns, c, null, null);
        buf.skipBytes(c.pos - c.start);
        return row;
    }

    /**
     * Decodes every row of a rows part held in {@code rows} from its reader index to its writer index and
     * consumes it.
     *
     * @param columns      the columns-present bitmap (of the before image for UPDATE)
     * @param afterColumns the after-image bitmap for UPDATE and PARTIAL_UPDATE; ignored otherwise
     */
    public List<RowChange> decodeRows(TableColumns table, RowsImageLayout layout, BitSet columns, BitSet afterColumns,
                                      ByteBuf rows) {
        Cursor c = cursor(rows);
        List<RowChange> out = decodeRows(table, layout, columns, afterColumns, c);
        rows.skipBytes(c.pos - c.start);
        return out;
    }

    /** As {@link #decodeRows(TableColumns, RowsImageLayout, BitSet, BitSet, ByteBuf)} over a byte range. */
    public List<RowChange> decodeRows(TableColumns table, RowsImageLayout layout, BitSet columns, BitSet afterColumns,
                                      byte[] rows, int offset, int length) {
        if (offset < 0 || length < 0 || offset + length > rows.length) {
            throw new IllegalArgumentException("range " + offset + "+" + length + " outside array of " + rows.length);
        }
        return decodeRows(table, layout, columns, afterColumns, new Cursor(rows, offset, offset + length));
    }

    private List<RowChange> decodeRows(TableColumns table, RowsImageLayout layout, BitSet columns, BitSet afterColumns,
                                       Cursor c) {
        checkWidth(table, columns);
        if (layout == RowsImageLayout.UPDATE || layout == RowsImageLayout.PARTIAL_UPDATE) {
            checkWidth(table, afterColumns);
        }
        List<RowChange> out = new ArrayList<>();
        try {
            readRows(table, layout, columns, afterColumns, c, out);
        } catch (RowDecodeException e) {
            if (hasOldTemporal(table)) {
                throw new RowDecodeException(e.getMessage() + " (the table has old-format TIME/DATETIME/TIMESTAMP columns:"
                        + " MariaDB 5.3-10.0 stores fractional seconds of those in extra bytes its TABLE_MAP does not"
                        + " describe, so such rows cannot be decoded without the table's schema)", e);
            }
            throw e;
        }
        return out;
    }

    /**
     * Decodes the after image of a PARTIAL_UPDATE_ROWS row ({@code value_options}, optional partial-JSON
     * bitmap, then the image) at the reader index of {@code buf}, applying JSON diffs to {@code before}, and
     * advances the reader index. Use it when the event's own before image lacks the JSON columns and the
     * caller has the full before row from elsewhere.
     */
    public Row decodePartialAfterImage(TableColumns table, BitSet afterColumns, ByteBuf buf, Row before) {
        checkWidth(table, afterColumns);
        Cursor c = cursor(buf);
        long options = c.lengthEncoded(table, "value_options");
        Row row = image(table, afterColumns, c, before, options);
        buf.skipBytes(c.pos - c.start);
        return row;
    }

    private static boolean hasOldTemporal(TableColumns table) {
        for (ColumnDefinition col : table.columns()) {
            ColumnType t = col.type();
            if (t == ColumnType.TIMESTAMP || t == ColumnType.DATETIME || t == ColumnType.TIME) {
                return true;
            }
        }
        return false;
    }

    private void readRows(TableColumns table, RowsImageLayout layout, BitSet columns, BitSet afterColumns, Cursor c,
                          List<RowChange> out) {
        while (c.pos < c.end) {
            int rowStart = c.pos;
            RowChange change = switch (layout) {
                case WRITE -> new RowChange(null, image(table, columns, c, null, null));
                case DELETE -> new RowChange(image(table, columns, c, null, null), null);
                case UPDATE -> {
                    Row before = image(table, columns, c, null, null);
                    yield new RowChange(before, image(table, afterColumns, c, null, null));
                }
                case PARTIAL_UPDATE -> {
                    Row before = image(table, columns, c, null, null);
                    long options = c.lengthEncoded(table, "value_options");
                    yield new RowChange(before, image(table, afterColumns, c, before, options));
                }
            };
            if (c.pos == rowStart) {
                throw new RowDecodeException("table " + table.tableName() + ": row at offset " + c.offset(rowStart)
                        + " is empty (no columns present) yet " + (c.end - c.pos) + " bytes remain");
            }
            out.add(change);
        }
    }

    private static void checkWidth(TableColumns table, BitSet columns) {
        if (columns.length() > table.size()) {
            throw new RowDecodeException("table " + table.tableName() + ": columns-present bitmap names column "
                    + columns.length() + " but the TABLE_MAP has " + table.size() + " columns");
        }
    }

    /**
     * @param before  for a PARTIAL_UPDATE after image: the before image; else null
     * @param options for a PARTIAL_UPDATE after image: its value_options; else null
     */
    private Row image(TableColumns table, BitSet columns, Cursor c, Row before, Long options) {
        int imageStart = c.pos;
        BitSet partial = new BitSet();
        if (options != null && (options & PARTIAL_JSON_UPDATES) != 0) {
            int jsonColumns = table.jsonColumnCount();
            int bytes = (jsonColumns + 7) / 8;
            c.need(table, bytes, "partial JSON bitmap");
            partial = BitSet.valueOf(java.util.Arrays.copyOfRange(c.b, c.pos, c.pos + bytes));
            c.pos += bytes;
        }
        int present = columns.cardinality();
        int nullBytes = (present + 7) / 8;
        c.need(table, nullBytes, "null bitmap of the row image at offset " + c.offset(imageStart));
        BitSet nulls = BitSet.valueOf(java.util.Arrays.copyOfRange(c.b, c.pos, c.pos + nullBytes));
        c.pos += nullBytes;
        Object[] values = new Object[table.size()];
        int nullIndex = 0;
        int jsonIndex = -1;
        for (int i = 0; i < table.size(); i++) {
            ColumnDefinition col = table.get(i);
            if (col.type() == ColumnType.JSON) {
                jsonIndex++;
            }
            if (!columns.get(i)) {
                continue;
            }
            boolean isNull = nulls.get(nullIndex++);
            if (isNull) {
                continue;
            }
            int valueStart = c.pos;
            try {
                if (col.type() == ColumnType.JSON && partial.get(jsonIndex)) {
                    int[] consumed = new int[1];
                    List<JsonDiff> diffs = JsonDiffApplier.read(c.b, c.pos, c.end - c.pos, consumed);
                    c.pos += consumed[0];
                    JsonDocument beforeValue = before != null && before.isPresent(i) ? (JsonDocument) before.get(i) : null;
                    values[i] = new PendingDiff(beforeValue, diffs);
                } else {
                    values[i] = ColumnValueDecoder.decode(col, c);
                }
            } catch (RowDecodeException e) {
                throw new RowDecodeException("table " + table.tableName() + " column " + col.label(i) + " ("
                        + col.type() + ", metadata " + col.metadata() + ") at offset " + c.offset(valueStart) + ": "
                        + e.getMessage(), e);
            }
            if (values[i] instanceof PendingDiff p) {
                values[i] = JsonDiffApplier.apply(p.before(), p.diffs(), table.tableName(), col.label(i));
            }
        }
        return new Row(table, columns, values);
    }

    private static Cursor cursor(ByteBuf buf) {
        int readable = buf.readableBytes();
        if (buf.hasArray()) {
            int start = buf.arrayOffset() + buf.readerIndex();
            return new Cursor(buf.array(), start, start + readable);
        }
        return new Cursor(ByteBufUtil.getBytes(buf, buf.readerIndex(), readable, false), 0, readable);
    }

    /** A JSON diff read from an after image, applied once its value has been read without error. */
    private record PendingDiff(JsonDocument before, List<JsonDiff> diffs) {
    }

    /** Strict decoding: bytes that are not valid in the charset give {@code null} (the caller keeps bytes). */
    static String decodeStrict(byte[] b, int off, int len, Charset cs) {
        try {
            return cs.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(b, off, len)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /** A read position over a byte range; offsets in messages are relative to {@code start}. */
    static final class Cursor {
        final byte[] b;
        final int start;
        final int end;
        int pos;

        Cursor(byte[] b, int start, int end) {
            this.b = b;
            this.start = start;
            this.end = end;
            this.pos = start;
        }

        int offset(int p) {
            return p - start;
        }

        void need(int n, String what) {
            if (n < 0 || n > end - pos) {
                throw new RowDecodeException(what + " needs " + n + " bytes at offset " + offset(pos) + ", "
                        + (end - pos) + " left");
            }
        }

        void need(TableColumns table, int n, String what) {
            if (n < 0 || n > end - pos) {
                throw new RowDecodeException("table " + table.tableName() + ": " + what + " needs " + n
                        + " bytes at offset " + offset(pos) + ", " + (end - pos) + " left");
            }
        }

        long le(int n) {
            need(n, n + "-byte integer");
            long v = 0;
            for (int i = n - 1; i >= 0; i--) {
                v = v << 8 | (b[pos + i] & 0xFF);
            }
            pos += n;
            return v;
        }

        long lengthEncoded(TableColumns table, String what) {
            need(table, 1, what);
            int first = b[pos] & 0xFF;
            int n = first < 251 ? 0 : first == 252 ? 2 : first == 253 ? 3 : first == 254 ? 8 : -1;
            if (n < 0) {
                throw new RowDecodeException("table " + table.tableName() + ": " + what + " at offset " + offset(pos)
                        + " starts with invalid length-encoded prefix 0x" + Integer.toHexString(first));
            }
            pos++;
            return n == 0 ? first : le(n);
        }
    }
}
