package io.tributary.core.event.rows;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.ColumnType;
import io.tributary.core.event.EventHeader;
import io.tributary.core.event.EventType;
import io.tributary.core.event.TableMapEvent;
import io.tributary.core.event.TableMapOptionalMetadata;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;

/**
 * Rewrites the TABLE_MAP and rows events of one table from the column layout a shard wrote them in into another
 * one (the logical table's, while a DDL rolls out shard by shard): each target column is a source column copied
 * as it is, a source column widened, or a constant (a default) the source has no column for; source columns no
 * target column takes are left out; a column whose default is {@code CURRENT_TIMESTAMP} gets the row's own time
 * ({@link RowTime}).
 *
 * <p>Row images ({@code sql/rpl_record.cc}, {@code pack_row}): a null bitmap over the present columns, then the
 * values of the present non-null columns in their storage format. A widened value is re-encoded: an integer
 * sign-extended (signed source) or zero-extended (unsigned) to the target's width; a VARCHAR or CHAR value given
 * the target's length prefix (1 byte up to 255 bytes of maximum length, else 2). Which images a target column
 * the source has not is in follows the shard's {@code binlog_row_image} ({@link RowImage}): the server's own
 * rule for a column the statement did not give.
 *
 * <p>The TABLE_MAP written for the target carries the optional metadata given for the target layout (the caller
 * derives it from the logical table, as the shard's server would write it). Rows events keep their type (v1/v2), flags, v2 extra data and table id;
 * the merge gives them the global table id afterwards. PARTIAL_UPDATE_ROWS, expanded on the way in, never
 * reaches here.
 *
 * <p>Immutable and thread-safe.
 */
public final class RowsReshaper {

    /** Where a target column's value comes from. */
    public sealed interface Value permits Copy, Widen, Constant, RowTime {
    }

    /** The source column's value as it is. */
    public record Copy(int source) implements Value {
    }

    /**
     * The source column's value re-encoded in the target type: an integer extended (sign-extended when
     * {@code signed}), a VARCHAR/CHAR value with the target's length prefix, a DECIMAL with the target's precision
     * and scale, a FLOAT as a DOUBLE, a DATETIME2/TIMESTAMP2 with the target's fractional digits.
     */
    public record Widen(int source, boolean signed) implements Value {
    }

    /**
     * A value the source has no column for, in the target type's storage format; null bytes: SQL NULL.
     *
     * @param evaluated whether the server evaluates it for each insert, as MariaDB does a BLOB/TEXT column's
     *                  literal default (kept as an expression), so that a MINIMAL insert logs it
     */
    public record Constant(byte[] bytes, boolean evaluated) implements Value {
        public Constant {
            bytes = bytes == null ? null : bytes.clone();
        }

        /** A constant the server does not evaluate per insert. */
        public Constant(byte[] bytes) {
            this(bytes, false);
        }

        @Override
        public byte[] bytes() {
            return bytes == null ? null : bytes.clone();
        }
    }

    /**
     * The row's own time, as the server gives a column whose default (or {@code ON UPDATE}) is {@code
     * CURRENT_TIMESTAMP}: the time the rows event is given ({@link #rows(BinlogEvent, long)}), truncated to
     * {@code precision} fractional digits, as a TIMESTAMP2 (seconds since the epoch) or a DATETIME2 (the local time
     * in {@code zone}) of the target's fractional digits.
     *
     * @param zone      the time zone of a DATETIME2 target (unused for TIMESTAMP2)
     * @param precision fractional digits of the time ({@code CURRENT_TIMESTAMP(n)})
     * @param otherwise null: the row's time in every image; else the column's value but in the after image of an
     *                  update ({@code DEFAULT x ON UPDATE CURRENT_TIMESTAMP})
     * @param onUpdate  {@code ON UPDATE CURRENT_TIMESTAMP}: the server sets the column in every update, so it is in
     *                  the after image of an update even when that image is partial
     */
    public record RowTime(java.time.ZoneId zone, int precision, Constant otherwise, boolean onUpdate) implements Value {
        public RowTime {
            if (precision < 0 || precision > 6) {
                throw new IllegalArgumentException("fractional digits " + precision);
            }
            if (otherwise != null && !onUpdate) {
                throw new IllegalArgumentException("a value other than the row's time but on update is an ON UPDATE");
            }
        }
    }

    /**
     * The shard's {@code binlog_row_image}, which says which columns the server logs in each image, so which of
     * the target columns the source has not (defaults, the row's time) an image gets.
     */
    public enum RowImage {
        /** Every column in every image: an added column is in every image whose source columns all are. */
        FULL,
        /**
         * Every column but the BLOB/TEXT ones a statement does not need: an added column is in an image whose
         * non-BLOB source columns all are, an added BLOB/TEXT column only where every source column is or, in an
         * insert, when the server evaluates its default ({@link Constant#evaluated}).
         */
        NOBLOB,
        /**
         * The key (or, without one, every column) in before images, the columns the statement gave or changed
         * in after images: an added column is in a before image whose source columns all are, in no insert (the
         * statement did not give it) but for a default the server evaluates ({@code CURRENT_TIMESTAMP}, a
         * {@link Constant#evaluated}), and in no update's after image but for an {@code ON UPDATE CURRENT_TIMESTAMP}.
         */
        MINIMAL
    }

    /** Which image of a row: an insert's, a delete's or an update's before image, an update's after image. */
    private enum Image {
        INSERTED, BEFORE, UPDATED
    }

    /** One column of the target layout. */
    public record TargetColumn(Value value, ColumnType type, int metadata, boolean nullable) {
        public TargetColumn {
            Objects.requireNonNull(value, "value");
            Objects.requireNonNull(type, "type");
        }
    }

    private final TableMapEvent source;
    private final RowImage rowImage;
    private final boolean mariaDb;
    private final TableColumns sourceColumns;
    private final List<TargetColumn> targets;
    private final TableMapEvent target;
    private final TableColumns targetColumns;

    /**
     * @param source  the shard's TABLE_MAP the rows events refer to
     * @param targets the target layout, column by column
     */
    public RowsReshaper(TableMapEvent source, List<TargetColumn> targets) {
        this(source, targets, List.of());
    }

    /**
     * @param source      the shard's TABLE_MAP the rows events refer to
     * @param targets     the target layout, column by column
     * @param columnNames the target columns' names, written as the TABLE_MAP's COLUMN_NAME field, or empty for none
     *                    (give them where the shard writes names, {@code binlog_row_metadata=FULL}, so the new map
     *                    has the layout of the maps of the shards already altered)
     */
    public RowsReshaper(TableMapEvent source, List<TargetColumn> targets, List<String> columnNames) {
        this(source, targets, columnNames.isEmpty() ? TableMapOptionalMetadata.EMPTY
                : new TableMapOptionalMetadata(null, null, java.util.Map.of(), columnNames, java.util.Map.of(),
                        java.util.Map.of(), java.util.Map.of(), List.of(), null, java.util.Map.of(), null,
                        java.util.Map.of(), List.of()), true, RowImage.FULL);
    }

    /**
     * @param source   the shard's TABLE_MAP the rows events refer to
     * @param targets  the target layout, column by column
     * @param optional the target TABLE_MAP's optional metadata, by target column (what the shard's server writes
     *                 for a table of the target layout, per its {@code binlog_row_metadata}), or EMPTY
     * @param mariaDb  whether the shard is a MariaDB server (how the optional metadata groups YEAR and GEOMETRY)
     * @param rowImage the shard's {@code binlog_row_image}
     */
    public RowsReshaper(TableMapEvent source, List<TargetColumn> targets, TableMapOptionalMetadata optional,
            boolean mariaDb, RowImage rowImage) {
        this.rowImage = Objects.requireNonNull(rowImage, "rowImage");
        this.mariaDb = mariaDb;
        List<String> columnNames = optional.columnNames();
        if (!columnNames.isEmpty() && columnNames.size() != targets.size()) {
            throw new IllegalArgumentException(columnNames.size() + " column names for " + targets.size() + " columns");
        }
        this.source = Objects.requireNonNull(source, "source");
        this.targets = List.copyOf(targets);
        this.sourceColumns = TableColumns.of(source);
        List<ColumnType> types = new ArrayList<>();
        List<Integer> metadata = new ArrayList<>();
        BitSet nullable = new BitSet();
        for (int j = 0; j < this.targets.size(); j++) {
            TargetColumn t = this.targets.get(j);
            if (t.type() == ColumnType.TYPED_ARRAY) {
                throw new IllegalArgumentException("target column " + j + ": TYPED_ARRAY is never in a row image");
            }
            int from = t.value() instanceof Copy c ? c.source() : t.value() instanceof Widen w ? w.source() : -1;
            if (from >= source.columnCount()) {
                throw new IllegalArgumentException("target column " + j + " takes source column " + from + " of "
                        + source.columnCount());
            }
            if (t.value() instanceof Widen w) {
                checkWidening(source, w.source(), t, j);
            }
            if (t.value() instanceof RowTime rt && (t.type() != ColumnType.TIMESTAMP2 && t.type() != ColumnType.DATETIME2
                    || t.type() == ColumnType.DATETIME2 && rt.zone() == null)) {
                throw new IllegalArgumentException("target column " + j + ": the row's time as " + t.type()
                        + (rt.zone() == null ? " without a time zone" : ""));
            }
            types.add(t.type());
            metadata.add(t.metadata());
            nullable.set(j, t.nullable());
        }
        this.target = new TableMapEvent(source.tableId(), source.flags(), source.database(), source.table(), types,
                metadata, nullable, optional);
        this.targetColumns = TableColumns.of(target);
    }

    private static void checkWidening(TableMapEvent source, int i, TargetColumn t, int j) {
        ColumnType from = source.realType(i);
        ColumnType to = t.type();
        boolean ok = from.integerBytes() > 0 && to.integerBytes() >= from.integerBytes()
                || (from == ColumnType.VARCHAR || from == ColumnType.VAR_STRING) && to == ColumnType.VARCHAR
                        && t.metadata() >= source.metadata().get(i)
                || from == ColumnType.STRING && to == ColumnType.STRING && ColumnDefinition.of(to, t.metadata())
                        .stringLength() >= ColumnDefinition.of(from, source.metadata().get(i)).stringLength()
                || from == ColumnType.FLOAT && to == ColumnType.DOUBLE
                || (from == ColumnType.DATETIME2 || from == ColumnType.TIMESTAMP2) && to == from
                        && t.metadata() >= source.metadata().get(i)
                || from == ColumnType.NEWDECIMAL && to == from && (t.metadata() & 0xFF) >= (source.metadata().get(i) & 0xFF)
                        && (t.metadata() >>> 8) - (t.metadata() & 0xFF)
                                >= (source.metadata().get(i) >>> 8) - (source.metadata().get(i) & 0xFF);
        if (!ok) {
            throw new IllegalArgumentException("target column " + j + ": cannot widen " + from + "(metadata "
                    + source.metadata().get(i) + ") to " + to + "(metadata " + t.metadata() + ")");
        }
    }

    /** The target TABLE_MAP's body (the source's table id, flags and names). */
    public TableMapEvent targetMap() {
        return target;
    }

    /**
     * The target TABLE_MAP as an event with the timestamp, server id and flags of {@code sourceEvent} (the shard's
     * TABLE_MAP), without a checksum.
     */
    public BinlogEvent tableMap(BinlogEvent sourceEvent) {
        ByteArrayOutputStream body = new ByteArrayOutputStream(64);
        le(body, target.tableId(), 6);
        le(body, target.flags(), 2);
        byte[] db = target.database().getBytes(StandardCharsets.UTF_8);
        byte[] tbl = target.table().getBytes(StandardCharsets.UTF_8);
        body.write(db.length);
        body.write(db, 0, db.length);
        body.write(0);
        body.write(tbl.length);
        body.write(tbl, 0, tbl.length);
        body.write(0);
        packed(body, target.columnCount());
        for (ColumnType t : target.columnTypes()) {
            body.write(t.code());
        }
        ByteArrayOutputStream meta = new ByteArrayOutputStream();
        for (int j = 0; j < target.columnCount(); j++) {
            writeMetadata(meta, target.columnTypes().get(j), target.metadata().get(j));
        }
        packed(body, meta.size());
        body.write(meta.toByteArray(), 0, meta.size());
        body.write(bitmap(target.nullable(), target.columnCount()), 0, (target.columnCount() + 7) / 8);
        byte[] optional = target.optional().toBytes(target.columnTypes(), target.metadata(), mariaDb);
        body.write(optional, 0, optional.length);
        return event(sourceEvent, EventType.TABLE_MAP.code(), body.toByteArray(), target);
    }

    private static void writeMetadata(ByteArrayOutputStream out, ColumnType type, int meta) {
        switch (type) {
            case VARCHAR, BIT -> le(out, meta, 2);
            case NEWDECIMAL, STRING, VAR_STRING, ENUM, SET -> {
                out.write(meta >>> 8);
                out.write(meta & 0xFF);
            }
            default -> le(out, meta, type.metadataBytes());
        }
    }

    /**
     * The rows event in the target layout: a new event with the source event's header fields and its type, flags,
     * extra data and table id, without a checksum.
     *
     * @throws RowDecodeException when the event's images do not decode against the source TABLE_MAP
     */
    public BinlogEvent rows(BinlogEvent event) {
        return rows(event, event.header().timestamp() * 1_000_000L);
    }

    /**
     * The rows event in the target layout, as {@link #rows(BinlogEvent)}, with {@code rowTimeMicros} (microseconds
     * since the epoch) the row's own time for {@link RowTime} columns.
     */
    public BinlogEvent rows(BinlogEvent event, long rowTimeMicros) {
        byte[][] values = new byte[targets.size()][];
        byte[][] updated = new byte[targets.size()][];
        for (int j = 0; j < targets.size(); j++) {
            TargetColumn t = targets.get(j);
            if (t.value() instanceof Constant k) {
                values[j] = k.bytes;
                updated[j] = k.bytes;
            } else if (t.value() instanceof RowTime rt) {
                byte[] now = rowTime(t, rt, rowTimeMicros);
                values[j] = rt.otherwise() == null ? now : rt.otherwise().bytes;
                updated[j] = now;
            }
        }
        EventType type = event.type();
        RowsImageLayout layout = RowsEventDecoder.layoutOf(type);
        if (layout == null || layout == RowsImageLayout.PARTIAL_UPDATE) {
            throw new IllegalArgumentException("not a WRITE/UPDATE/DELETE rows event: " + event);
        }
        byte[] b = event.buffer();
        int p = event.bufferOffset() + EventHeader.LENGTH;
        int end = event.bufferOffset() + event.length() - event.checksumLength();
        ByteArrayOutputStream out = new ByteArrayOutputStream(event.length() + 16);
        int postHeader = 8 + (type.isRowsV2() ? (b[p + 8] & 0xFF | (b[p + 9] & 0xFF) << 8) : 0);
        out.write(b, p, postHeader);
        RowImageDecoder.Cursor c = new RowImageDecoder.Cursor(b, p + postHeader, end);
        long columns = c.lengthEncoded(sourceColumns, "column count");
        if (columns != source.columnCount()) {
            throw new RowDecodeException("table " + sourceColumns.tableName() + ": the rows event has " + columns
                    + " columns, its TABLE_MAP " + source.columnCount());
        }
        BitSet present = readBitmap(c, (int) columns);
        BitSet after = layout == RowsImageLayout.UPDATE ? readBitmap(c, (int) columns) : null;
        BitSet targetPresent = targetPresent(present, layout == RowsImageLayout.WRITE ? Image.INSERTED : Image.BEFORE);
        BitSet targetAfter = after == null ? null : targetPresent(after, Image.UPDATED);
        packed(out, targets.size());
        int bitmapsAt = out.size();
        int targetBitmapBytes = (targets.size() + 7) / 8;
        out.write(presentBitmap(targetPresent, targets.size(), rowImage), 0, targetBitmapBytes);
        if (targetAfter != null) {
            out.write(presentBitmap(targetAfter, targets.size(), rowImage), 0, targetBitmapBytes);
        }
        while (c.pos < c.end) {
            int rowStart = c.pos;
            image(c, present, targetPresent, values, out);
            if (layout == RowsImageLayout.UPDATE) {
                image(c, after, targetAfter, updated, out);
            }
            if (c.pos == rowStart) {
                throw new RowDecodeException("table " + sourceColumns.tableName() + ": empty row image, "
                        + (c.end - c.pos) + " bytes left");
            }
        }
        byte[] body = out.toByteArray();
        long tableId = 0;
        for (int i = 5; i >= 0; i--) {
            tableId = tableId << 8 | (body[i] & 0xFF);
        }
        int flags = body[6] & 0xFF | (body[7] & 0xFF) << 8;
        byte[] extra = java.util.Arrays.copyOfRange(body, Math.min(10, postHeader), postHeader);
        int rowsAt = bitmapsAt + targetBitmapBytes * (targetAfter == null ? 1 : 2);
        BinlogEvent shell = event(event, event.header().typeCode(), body, null);
        io.tributary.core.event.RowsEvent decoded = new io.tributary.core.event.RowsEvent(tableId, flags, extra,
                targets.size(), targetPresent, targetAfter, shell.buffer(), EventHeader.LENGTH + rowsAt,
                body.length - rowsAt);
        return new BinlogEvent(shell.header(), shell.offset(), shell.innerOffset(), shell.originalTypeCode(),
                shell.buffer(), 0, shell.length(), 0, decoded);
    }

    private BitSet targetPresent(BitSet sourcePresent, Image image) {
        boolean full = sourcePresent.cardinality() == source.columnCount();
        boolean nonBlobs = true;
        for (int i = 0; i < source.columnCount() && nonBlobs; i++) {
            nonBlobs = sourcePresent.get(i) || isBlob(source.realType(i));
        }
        BitSet out = new BitSet();
        for (int j = 0; j < targets.size(); j++) {
            Value v = targets.get(j).value();
            boolean on = v instanceof Copy cp ? sourcePresent.get(cp.source())
                    : v instanceof Widen w ? sourcePresent.get(w.source())
                    : image == Image.UPDATED && v instanceof RowTime rt && rt.onUpdate() || switch (rowImage) {
                        case FULL -> full;
                        case NOBLOB -> full || nonBlobs && (!isBlob(targets.get(j).type())
                                || image == Image.INSERTED && v instanceof Constant k && k.evaluated());
                        case MINIMAL -> image == Image.BEFORE ? full : image == Image.INSERTED
                                && (v instanceof RowTime rt && rt.otherwise() == null || v instanceof Constant k
                                        && k.evaluated());
                    };
            out.set(j, on);
        }
        return out;
    }

    private static boolean isBlob(ColumnType t) {
        return t == ColumnType.BLOB || t == ColumnType.TINY_BLOB || t == ColumnType.MEDIUM_BLOB
                || t == ColumnType.LONG_BLOB || t == ColumnType.GEOMETRY || t == ColumnType.JSON;
    }

    /** Reads one source image at the cursor and writes it in the target layout. */
    private void image(RowImageDecoder.Cursor c, BitSet present, BitSet targetPresent, byte[][] values,
            ByteArrayOutputStream out) {
        int n = source.columnCount();
        int nullBytes = (present.cardinality() + 7) / 8;
        c.need(sourceColumns, nullBytes, "null bitmap of the row image");
        BitSet nulls = BitSet.valueOf(java.util.Arrays.copyOfRange(c.b, c.pos, c.pos + nullBytes));
        c.pos += nullBytes;
        int[] start = new int[n];
        int[] stop = new int[n];
        int nullIndex = 0;
        for (int i = 0; i < n; i++) {
            start[i] = -1;
            if (!present.get(i)) {
                continue;
            }
            if (nulls.get(nullIndex++)) {
                continue;
            }
            start[i] = c.pos;
            try {
                ColumnValueDecoder.decode(sourceColumns.get(i), c);
            } catch (RowDecodeException e) {
                throw new RowDecodeException("table " + sourceColumns.tableName() + " column "
                        + sourceColumns.get(i).label(i) + " at offset " + c.offset(start[i]) + ": " + e.getMessage(), e);
            }
            stop[i] = c.pos;
        }
        BitSet targetNulls = new BitSet();
        int k = 0;
        for (int j = 0; j < targets.size(); j++) {
            if (!targetPresent.get(j)) {
                continue;
            }
            Value v = targets.get(j).value();
            boolean isNull = v instanceof Copy cp ? start[cp.source()] < 0
                    : v instanceof Widen w ? start[w.source()] < 0 : values[j] == null;
            targetNulls.set(k++, isNull);
        }
        byte[] nullBitmap = bitmap(targetNulls, k);
        if (k % 8 != 0) {
            nullBitmap[k / 8] |= (byte) (0xFF << (k % 8)); // unused bits set, as pack_row leaves them
        }
        out.write(nullBitmap, 0, (k + 7) / 8);
        for (int j = 0; j < targets.size(); j++) {
            if (!targetPresent.get(j)) {
                continue;
            }
            TargetColumn t = targets.get(j);
            if (t.value() instanceof Copy cp) {
                if (start[cp.source()] >= 0) {
                    out.write(c.b, start[cp.source()], stop[cp.source()] - start[cp.source()]);
                }
            } else if (t.value() instanceof Widen w) {
                if (start[w.source()] >= 0) {
                    widen(c.b, start[w.source()], stop[w.source()], w, t, out);
                }
            } else if (values[j] != null) {
                out.write(values[j], 0, values[j].length);
            }
        }
    }

    private void widen(byte[] b, int from, int to, Widen w, TargetColumn t, ByteArrayOutputStream out) {
        ColumnType type = source.realType(w.source());
        int width = type.integerBytes();
        if (width > 0) {
            int targetWidth = t.type().integerBytes();
            out.write(b, from, width);
            int fill = w.signed() && (b[from + width - 1] & 0x80) != 0 ? 0xFF : 0;
            for (int i = width; i < targetWidth; i++) {
                out.write(fill);
            }
            return;
        }
        int meta = source.metadata().get(w.source());
        switch (type) {
            case FLOAT -> {
                float f = Float.intBitsToFloat((b[from] & 0xFF) | (b[from + 1] & 0xFF) << 8 | (b[from + 2] & 0xFF) << 16
                        | (b[from + 3] & 0xFF) << 24);
                le(out, Double.doubleToRawLongBits(f), 8);
                return;
            }
            case NEWDECIMAL -> {
                byte[] v = PackedDecimal.encode(PackedDecimal.decode(b, from, meta >>> 8, meta & 0xFF),
                        t.metadata() >>> 8, t.metadata() & 0xFF);
                out.write(v, 0, v.length);
                return;
            }
            case DATETIME2, TIMESTAMP2 -> {
                int intBytes = type == ColumnType.DATETIME2 ? 5 : 4;
                out.write(b, from, intBytes);
                int micros = fraction(b, from + intBytes, meta);
                int n = (t.metadata() + 1) / 2;
                long frac = n == 1 ? micros / 10000 : n == 2 ? micros / 100 : micros;
                for (int i = n - 1; i >= 0; i--) {
                    out.write((int) (frac >>> (8 * i)));
                }
                return;
            }
            default -> {
            }
        }
        int sourcePrefix = lengthPrefix(type, meta);
        int targetPrefix = lengthPrefix(t.type(), t.metadata());
        int length = to - from - sourcePrefix;
        le(out, length, targetPrefix);
        out.write(b, from + sourcePrefix, length);
    }

    /** {@code micros} as a TIMESTAMP2 or DATETIME2 value of the target's fractional digits. */
    private static byte[] rowTime(TargetColumn t, RowTime rt, long micros) {
        long seconds = Math.floorDiv(micros, 1_000_000L);
        int fraction = (int) Math.floorMod(micros, 1_000_000L);
        int fsp = t.metadata();
        int digits = Math.min(rt.precision(), fsp);
        fraction -= fraction % POWERS[6 - digits];
        ByteArrayOutputStream out = new ByteArrayOutputStream(8);
        if (t.type() == ColumnType.TIMESTAMP2) {
            be(out, seconds, 4);
        } else {
            java.time.LocalDateTime l = java.time.LocalDateTime.ofEpochSecond(seconds, 0,
                    rt.zone().getRules().getOffset(java.time.Instant.ofEpochSecond(seconds)));
            long ymd = ((long) l.getYear() * 13 + l.getMonthValue()) << 5 | l.getDayOfMonth();
            long hms = (long) l.getHour() << 12 | l.getMinute() << 6 | l.getSecond();
            be(out, (ymd << 17 | hms) + 0x8000000000L, 5);
        }
        int n = (fsp + 1) / 2;
        be(out, n == 1 ? fraction / 10000 : n == 2 ? fraction / 100 : fraction, n);
        return out.toByteArray();
    }

    private static final int[] POWERS = {1, 10, 100, 1000, 10000, 100000, 1000000};

    private static void be(ByteArrayOutputStream out, long v, int bytes) {
        for (int i = bytes - 1; i >= 0; i--) {
            out.write((int) (v >>> (8 * i)) & 0xFF);
        }
    }

    /** Microseconds of the fraction of a DATETIME2/TIMESTAMP2 value of {@code fsp} digits at {@code at}. */
    private static int fraction(byte[] b, int at, int fsp) {
        int n = (fsp + 1) / 2;
        int v = 0;
        for (int i = 0; i < n; i++) {
            v = v << 8 | (b[at + i] & 0xFF);
        }
        return n == 1 ? v * 10000 : n == 2 ? v * 100 : v;
    }

        /** Bytes of the length prefix of a VARCHAR or CHAR value. */
    private static int lengthPrefix(ColumnType type, int metadata) {
        int max = type == ColumnType.STRING ? ColumnDefinition.of(type, metadata).stringLength() : metadata;
        return max > 255 ? 2 : 1;
    }

    /** A columns-present bitmap of {@code columns} bits (servers may set the unused bits of its last byte). */
    private static BitSet readBitmap(RowImageDecoder.Cursor c, int columns) {
        int bytes = (columns + 7) / 8;
        c.need(bytes, "columns-present bitmap");
        BitSet s = BitSet.valueOf(java.util.Arrays.copyOfRange(c.b, c.pos, c.pos + bytes));
        s.clear(columns, bytes * 8);
        c.pos += bytes;
        return s;
    }

    /** A columns-present bitmap; when every column is present, its unused bits set as FULL servers write it. */
    private static byte[] presentBitmap(BitSet bits, int n, RowImage rowImage) {
        byte[] out = bitmap(bits, n);
        // FULL (and MINIMAL without a key) set every bit; NOBLOB marks the columns one by one
        if (n % 8 != 0 && bits.cardinality() == n && rowImage != RowImage.NOBLOB) {
            out[n / 8] |= (byte) (0xFF << (n % 8));
        }
        return out;
    }

    private static byte[] bitmap(BitSet bits, int n) {
        byte[] out = new byte[(n + 7) / 8];
        for (int i = bits.nextSetBit(0); i >= 0 && i < n; i = bits.nextSetBit(i + 1)) {
            out[i / 8] |= (byte) (1 << (i % 8));
        }
        return out;
    }

    /** An event of {@code body} behind a header like the source's (type, timestamp, server id, flags). */
    private static BinlogEvent event(BinlogEvent sourceEvent, int typeCode, byte[] body,
            io.tributary.core.event.EventBody decoded) {
        EventHeader h = sourceEvent.header();
        int size = EventHeader.LENGTH + body.length;
        byte[] bytes = new byte[size];
        java.nio.ByteBuffer bb = java.nio.ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        bb.putInt((int) h.timestamp()).put((byte) typeCode).putInt((int) h.serverId()).putInt(size)
                .putInt((int) h.logPos()).putShort((short) h.flags());
        System.arraycopy(body, 0, bytes, EventHeader.LENGTH, body.length);
        EventHeader header = new EventHeader(h.timestamp(), typeCode, h.serverId(), size, h.logPos(), h.flags());
        return new BinlogEvent(header, sourceEvent.offset(), sourceEvent.innerOffset(), typeCode,
                bytes, 0, size, 0, decoded);
    }

    static void le(ByteArrayOutputStream out, long v, int bytes) {
        for (int i = 0; i < bytes; i++) {
            out.write((int) (v >>> (8 * i)) & 0xFF);
        }
    }

    private static void packed(ByteArrayOutputStream out, long v) {
        if (v < 251) {
            out.write((int) v);
        } else if (v < 1 << 16) {
            out.write(252);
            le(out, v, 2);
        } else if (v < 1 << 24) {
            out.write(253);
            le(out, v, 3);
        } else {
            out.write(254);
            le(out, v, 8);
        }
    }

    @Override
    public String toString() {
        return "RowsReshaper[" + sourceColumns.tableName() + ": " + source.columnCount() + " -> " + targets + "]";
    }
}
