package io.tributary.core.naming;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.event.ColumnType;
import io.tributary.core.event.TableMapEvent;
import io.tributary.core.event.rows.RowsReshaper;
import io.tributary.core.schema.ColumnDefault;
import io.tributary.core.schema.CreateTableText;
import io.tributary.core.schema.SchemaColumn;
import io.tributary.core.schema.SchemaTable;
import io.tributary.core.schema.SqlTypes;
import java.math.BigInteger;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * How the rows of a physical table in one shape are written in the shape of their logical table (issue 16):
 * columns are matched by name. A column the logical table has and the physical one has not gets its default (see
 * below); a column only the physical table has is left out; a column of both is copied when its type is the same,
 * converted when the logical type is a widening of it, and anything else is a {@link ShapeConflictException}.
 *
 * <p>Conversions: an integer type to one at least as wide (TINYINT to SMALLINT, MEDIUMINT, INT, BIGINT; signed to
 * signed, unsigned to unsigned, unsigned to a wider signed one); a VARCHAR/VARBINARY or CHAR/BINARY to a longer
 * one of the same character set; a DECIMAL to one with at least as many integer and fraction digits, FLOAT to
 * DOUBLE, DATETIME(n)/TIMESTAMP(n) to more fractional digits ({@link AddedValues#widening}). Values of added columns: the column's literal default; without one, NULL where
 * the column allows it, else the implicit default a server gives a NOT NULL column without a default (0 for
 * integers, the empty string for character types); the other types' values are {@link AddedValues}'s (DECIMAL,
 * FLOAT, DOUBLE, dates and times, TIMESTAMP literals in the DDL session's time zone, YEAR, ENUM, SET, TEXT/BLOB,
 * JSON; NULL for BIT, spatial). A {@code CURRENT_TIMESTAMP} default or {@code ON UPDATE} gets the row's own time
 * ({@link RowsReshaper.RowTime}). Another expression default (evaluated by the server per row from what the rewrite
 * does not have) cannot be supplied: a conflict. The rewritten TABLE_MAP carries the optional metadata the shard's
 * server writes (per its {@code binlog_row_metadata}), the rows the images its {@code binlog_row_image} gives.
 *
 * <p>Stateless and thread-safe.
 */
public final class LogicalShape {

    private LogicalShape() {
    }

    /**
     * The rewrite of the rows of physical table {@code physical} of shard {@code shard}, in shape {@code from}
     * (the shard's TABLE_MAP {@code map}), into {@code to}; empty when the rows already are in that shape.
     *
     * @throws ShapeConflictException when they cannot be rewritten (message: tables, shard, both shapes, why)
     */
    public static Optional<RowsReshaper> plan(String shard, String physical, TableMapEvent map, SchemaTable from,
            SchemaTable to) {
        return plan(shard, physical, map, from, to, ShardServer.withoutTimeZone(BinlogFlavor.MARIADB));
    }

    /**
     * As {@link #plan(String, String, TableMapEvent, SchemaTable, SchemaTable)}, for a shard on {@code server} (its
     * flavor, time zone and the DDL session's, which values of added JSON, TIMESTAMP and CURRENT_TIMESTAMP columns
     * need).
     */
    public static Optional<RowsReshaper> plan(String shard, String physical, TableMapEvent map, SchemaTable from,
            SchemaTable to, ShardServer server) {
        if (map.columnCount() != from.columns().size()) {
            throw conflict(shard, physical, from, to, "its TABLE_MAP has " + map.columnCount() + " columns, the shape"
                    + " it should be in " + from.columns().size());
        }
        for (int i = 0; i < map.columnCount(); i++) {
            ColumnType expected = type(from.columns().get(i));
            if (expected != null && expected != map.realType(i)) {
                throw conflict(shard, physical, from, to, "its TABLE_MAP has column " + (i + 1) + " as " + map.realType(i)
                        + ", the shape it should be in as `" + from.columns().get(i).name() + "` "
                        + describe(from.columns().get(i)));
            }
        }
        List<RowsReshaper.TargetColumn> targets = new ArrayList<>();
        boolean identity = to.columns().size() == from.columns().size();
        for (int j = 0; j < to.columns().size(); j++) {
            SchemaColumn l = to.columns().get(j);
            int i = indexOf(from, l.name());
            if (i < 0 && to.columns().size() == from.columns().size()
                    && indexOf(to, from.columns().get(j).name()) < 0) {
                i = j; // renamed in place (CHANGE / RENAME COLUMN): the same column under another name
            }
            if (i < 0) {
                targets.add(added(shard, physical, from, to, l, server));
                identity = false;
                continue;
            }
            SchemaColumn s = from.columns().get(i);
            if (sameStorage(s, l)) {
                targets.add(new RowsReshaper.TargetColumn(new RowsReshaper.Copy(i), map.columnTypes().get(i),
                        map.metadata().get(i), l.nullable()));
                identity &= i == j;
                continue;
            }
            String why = widening(s, l);
            if (why != null) {
                throw conflict(shard, physical, from, to, "column `" + l.name() + "` " + describe(s) + " -> "
                        + describe(l) + ": " + why);
            }
            ColumnType lt = type(l);
            int lm = lt == null ? AddedValues.storage(l).metadata() : metadata(l);
            lt = lt == null ? AddedValues.storage(l).type() : lt;
            targets.add(new RowsReshaper.TargetColumn(new RowsReshaper.Widen(i, !s.unsigned()), lt, lm, l.nullable()));
            identity = false;
        }
        if (identity) {
            return Optional.empty();
        }
        boolean added = targets.stream().anyMatch(t -> t.value() instanceof RowsReshaper.Constant
                || t.value() instanceof RowsReshaper.RowTime);
        RowsReshaper.RowImage image = added ? server.rowImage().get() : RowsReshaper.RowImage.FULL;
        if (image != RowsReshaper.RowImage.FULL && !keyed(to)) {
            image = RowsReshaper.RowImage.FULL; // without a key the server logs every column in every image
        }
        return Optional.of(new RowsReshaper(map, targets, optional(map.optional(), to, targets, server.flavor()),
                server.flavor().isMariaDb(), image));
    }

    /**
     * The optional metadata the shard's server writes in the TABLE_MAP of a table of shape {@code to}: none where
     * the shard writes none ({@code binlog_row_metadata=NO_LOG}); signedness, charsets and geometry types where it
     * writes no names ({@code MINIMAL}); all of them where it writes names ({@code FULL}). So the new map has the
     * layout (and the global table id) of the altered shards' maps. A collation whose id is not known here leaves
     * the names only.
     */
    private static io.tributary.core.event.TableMapOptionalMetadata optional(
            io.tributary.core.event.TableMapOptionalMetadata shard, SchemaTable to, List<RowsReshaper.TargetColumn> targets,
            BinlogFlavor flavor) {
        if (shard.isEmpty()) {
            return io.tributary.core.event.TableMapOptionalMetadata.EMPTY;
        }
        boolean full = !shard.columnNames().isEmpty();
        java.util.BitSet unsigned = new java.util.BitSet();
        java.util.Map<Integer, Integer> charsets = new java.util.HashMap<>();
        java.util.Map<Integer, Integer> enumSetCharsets = new java.util.HashMap<>();
        java.util.Map<Integer, List<String>> sets = new java.util.HashMap<>();
        java.util.Map<Integer, List<String>> enums = new java.util.HashMap<>();
        java.util.Map<Integer, Integer> geometry = new java.util.HashMap<>();
        List<String> names = new ArrayList<>();
        boolean known = true;
        for (int j = 0; j < to.columns().size(); j++) {
            SchemaColumn c = to.columns().get(j);
            names.add(c.name());
            unsigned.set(j, c.unsigned() || c.type().equals("year")); // MariaDB's YEAR is an unsigned TINYINT
            int collation = c.type().equals("json") ? SqlTypes.collationId("utf8mb4_bin") : c.charset() == null ? 63
                    : SqlTypes.collationId(c.collation() != null ? c.collation()
                            : SqlTypes.defaultCollation(c.charset(), flavor));
            known &= collation >= 0;
            if (c.type().equals("enum") || c.type().equals("set")) {
                enumSetCharsets.put(j, collation);
                (c.type().equals("enum") ? enums : sets).put(j, AddedValues.members(c));
            } else {
                charsets.put(j, collation);
            }
            int subtype = List.of("geometry", "point", "linestring", "polygon", "multipoint", "multilinestring",
                    "multipolygon", "geometrycollection").indexOf(c.type());
            if (subtype >= 0) {
                geometry.put(j, subtype);
            }
        }
        if (!known) {
            return full ? new io.tributary.core.event.TableMapOptionalMetadata(null, null, java.util.Map.of(), names,
                    java.util.Map.of(), java.util.Map.of(), java.util.Map.of(), List.of(), null, java.util.Map.of(),
                    null, java.util.Map.of(), List.of()) : io.tributary.core.event.TableMapOptionalMetadata.EMPTY;
        }
        List<io.tributary.core.event.TableMapOptionalMetadata.PrimaryKeyPart> key = new ArrayList<>();
        if (full) {
            primaryKey(to).ifPresent(i -> i.columns().forEach(p -> key.add(new io.tributary.core.event.TableMapOptionalMetadata
                            .PrimaryKeyPart(indexOf(to, p.column()), p.length() == null ? 0 : p.length()))));
        }
        java.util.BitSet visible = null;
        if (full && shard.visibleColumns() != null) {
            visible = new java.util.BitSet();
            visible.set(0, targets.size());
        }
        return new io.tributary.core.event.TableMapOptionalMetadata(unsigned, null, charsets,
                full ? names : List.of(), full ? sets : java.util.Map.of(), full ? enums : java.util.Map.of(), geometry,
                key, null, full ? enumSetCharsets : java.util.Map.of(), visible, java.util.Map.of(), List.of());
    }

    /**
     * Whether a table has the key a MINIMAL image holds: a primary key, or a UNIQUE one of NOT NULL columns (which
     * the server takes for the primary key when there is none).
     */
    private static boolean keyed(SchemaTable t) {
        return primaryKey(t).isPresent();
    }

    /** The key a server takes for the primary key: the PRIMARY KEY, else the first UNIQUE one of NOT NULL columns. */
    private static Optional<io.tributary.core.schema.SchemaIndex> primaryKey(SchemaTable t) {
        for (io.tributary.core.schema.SchemaIndex i : t.indexes()) {
            if (i.kind() == io.tributary.core.schema.SchemaIndex.Kind.PRIMARY) {
                return Optional.of(i);
            }
        }
        for (io.tributary.core.schema.SchemaIndex i : t.indexes()) {
            if (i.kind() == io.tributary.core.schema.SchemaIndex.Kind.UNIQUE && i.columns().stream().allMatch(p -> {
                int at = indexOf(t, p.column());
                return at >= 0 && !t.columns().get(at).nullable();
            })) {
                return Optional.of(i);
            }
        }
        return Optional.empty();
    }

    /** Whether rows of {@code a} and {@code b} decode alike (column by column, same storage). */
    public static boolean sameRowLayout(SchemaTable a, SchemaTable b) {
        if (a.columns().size() != b.columns().size()) {
            return false;
        }
        for (int i = 0; i < a.columns().size(); i++) {
            if (!a.columns().get(i).name().equalsIgnoreCase(b.columns().get(i).name())
                    || !sameStorage(a.columns().get(i), b.columns().get(i))) {
                return false;
            }
        }
        return true;
    }

    /** Whether a TABLE_MAP may describe a table of this shape: same column count and integer/string types. */
    public static boolean fits(TableMapEvent map, SchemaTable shape) {
        if (map.columnCount() != shape.columns().size()) {
            return false;
        }
        for (int i = 0; i < map.columnCount(); i++) {
            ColumnType t = type(shape.columns().get(i));
            if (t != null && t != map.realType(i)) {
                return false;
            }
            Integer m = t == null ? null : metadata(shape.columns().get(i));
            if (m != null && t == ColumnType.VARCHAR && m.intValue() != map.metadata().get(i)) {
                return false;
            }
        }
        return true;
    }

    private static int indexOf(SchemaTable t, String column) {
        for (int i = 0; i < t.columns().size(); i++) {
            if (t.columns().get(i).name().equalsIgnoreCase(column)) {
                return i;
            }
        }
        return -1;
    }

    private static boolean sameStorage(SchemaColumn a, SchemaColumn b) {
        return a.type().equals(b.type()) && java.util.Objects.equals(a.args(), b.args()) && a.unsigned() == b.unsigned()
                && java.util.Objects.equals(a.charset(), b.charset());
    }

    /** Null when {@code l}'s type widens {@code s}'s; else why not. */
    private static String widening(SchemaColumn s, SchemaColumn l) {
        ColumnType from = type(s);
        ColumnType to = type(l);
        if (from == null && to == null) {
            return AddedValues.widening(s, l);
        }
        if (from == null || to == null) {
            return "no conversion between these types (converted: integer widening, longer VARCHAR/CHAR, DECIMAL to"
                    + " more digits, FLOAT to DOUBLE, DATETIME/TIMESTAMP to more fractional digits)";
        }
        int fw = from.integerBytes();
        int tw = to.integerBytes();
        if (fw > 0 && tw > 0) {
            if (tw < fw) {
                return "the logical type is narrower: values of the shard would not fit";
            }
            if (!s.unsigned() && l.unsigned()) {
                return "signed to unsigned: negative values of the shard would not fit";
            }
            if (s.unsigned() && !l.unsigned() && tw == fw) {
                return "unsigned to signed of the same width: large values of the shard would not fit";
            }
            return null;
        }
        if (from != to || fw > 0 || tw > 0) {
            return "no conversion between these types (converted: integer widening, longer VARCHAR/CHAR)";
        }
        if (!java.util.Objects.equals(s.charset(), l.charset())) {
            return "another character set: values would need converting";
        }
        if (metadataLength(l) < metadataLength(s)) {
            return "the logical type is shorter: values of the shard may not fit";
        }
        return null;
    }

    private static int metadataLength(SchemaColumn c) {
        return length(c) * (c.charset() == null ? 1 : SqlTypes.maxBytesPerChar(c.charset()));
    }

    private static int length(SchemaColumn c) {
        try {
            return c.args() == null ? 1 : Integer.parseInt(c.args().trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The TABLE_MAP type of a column of the types this class writes, else null. */
    static ColumnType type(SchemaColumn c) {
        return switch (c.type()) {
            case "tinyint" -> ColumnType.TINY;
            case "smallint" -> ColumnType.SHORT;
            case "mediumint" -> ColumnType.INT24;
            case "int" -> ColumnType.LONG;
            case "bigint" -> ColumnType.LONGLONG;
            case "varchar", "varbinary" -> ColumnType.VARCHAR;
            case "char", "binary" -> ColumnType.STRING;
            default -> null;
        };
    }

    /** The TABLE_MAP metadata of a column of {@link #type}. */
    static int metadata(SchemaColumn c) {
        ColumnType t = type(c);
        if (t == ColumnType.VARCHAR) {
            return metadataLength(c);
        }
        if (t == ColumnType.STRING) {
            int bytes = metadataLength(c);
            int hi = (bytes >> 8) & 0x3;
            int byte0 = (ColumnType.STRING.code() & ~0x30) | ((hi << 4) ^ 0x30);
            return byte0 << 8 | (bytes & 0xFF);
        }
        return 0;
    }

    private static RowsReshaper.TargetColumn added(String shard, String physical, SchemaTable from, SchemaTable to,
            SchemaColumn l, ShardServer server) {
        ColumnDefault d = l.defaultValue();
        if (d != null && d.kind() == ColumnDefault.Kind.EXPRESSION && l.type().equals("bit")
                && AddedValues.isBitLiteral(d.text())) {
            d = ColumnDefault.literal(d.text()); // MariaDB prints BIT defaults as b'101': a literal, not an expression
        }
        Integer onUpdate = l.onUpdate() == null ? null : currentTimestamp(l.onUpdate());
        boolean time = l.type().equals("timestamp") || l.type().equals("datetime");
        if (d != null && d.kind() == ColumnDefault.Kind.EXPRESSION || l.onUpdate() != null) {
            Integer now = d != null && d.kind() == ColumnDefault.Kind.EXPRESSION ? currentTimestamp(d.text()) : null;
            boolean rowTime = now != null || d == null || d.kind() != ColumnDefault.Kind.EXPRESSION;
            if (!time || !rowTime || l.onUpdate() != null && onUpdate == null) {
                String what = rowTime ? "ON UPDATE " + l.onUpdate() : d.text();
                throw conflict(shard, physical, from, to, "column `" + l.name() + "` is not in the shard's table and its"
                        + " default is an expression (" + what + "), which the server evaluates per row (supplied:"
                        + " CURRENT_TIMESTAMP on TIMESTAMP and DATETIME, the row's own time)");
            }
            if (now != null || onUpdate != null) {
                return rowTime(shard, physical, from, to, l, now, onUpdate, server);
            }
        }
        ColumnType t = type(l);
        if (t != null) {
            byte[] bytes;
            if (d == null || d.kind() == ColumnDefault.Kind.NULL) {
                bytes = l.nullable() ? null : value(l, t, t.integerBytes() > 0 ? "0" : "");
            } else {
                try {
                    bytes = value(l, t, d.text());
                } catch (IllegalArgumentException e) {
                    throw conflict(shard, physical, from, to, "column `" + l.name() + "`: its default " + d.text()
                            + " cannot be written: " + e.getMessage());
                }
            }
            return new RowsReshaper.TargetColumn(new RowsReshaper.Constant(bytes), t, metadata(l), l.nullable());
        }
        AddedValues.Storage storage;
        byte[] bytes;
        try {
            storage = AddedValues.storage(l, server.flavor());
            if (storage == null) {
                throw new IllegalArgumentException("a value of its type cannot be supplied (supplied: integer, VARCHAR,"
                        + " CHAR, DECIMAL, FLOAT, DOUBLE, DATE, DATETIME, TIME, TIMESTAMP, YEAR, ENUM, SET, TEXT and BLOB"
                        + " defaults; JSON NULL, or a literal on MariaDB shards; BIT literals; spatial types only NULL)");
            }
            if (d == null || d.kind() == ColumnDefault.Kind.NULL) {
                bytes = l.nullable() ? null : AddedValues.implicit(l, storage, charset(l));
            } else if (storage.type() == ColumnType.TIMESTAMP2) {
                bytes = AddedValues.timestamp(d.text(), storage, () -> server.literalZone());
            } else {
                bytes = AddedValues.value(l, storage, d.text(), charset(l));
            }
        } catch (IllegalStateException e) {
            throw conflict(shard, physical, from, to, "column `" + l.name() + "` " + describe(l) + " is not in the"
                    + " shard's table, and its default " + d.text() + " is a TIMESTAMP literal, stored as seconds since"
                    + " the epoch in the time zone of the DDL's session: " + e.getMessage());
        } catch (IllegalArgumentException e) {
            throw conflict(shard, physical, from, to, "column `" + l.name() + "` " + describe(l) + " is not in the"
                    + " shard's table, and " + (d == null || d.kind() != ColumnDefault.Kind.LITERAL ? ""
                    : "its default " + d.text() + " cannot be written: ") + e.getMessage());
        }
        // MariaDB keeps a BLOB/TEXT column's literal default as an expression, evaluated (and so logged) per insert
        boolean evaluated = storage.type() == ColumnType.BLOB && d != null && d.kind() == ColumnDefault.Kind.LITERAL
                && server.flavor().isMariaDb();
        return new RowsReshaper.TargetColumn(new RowsReshaper.Constant(bytes, evaluated), storage.type(),
                storage.metadata(), l.nullable());
    }

    /**
     * An added TIMESTAMP/DATETIME column whose default ({@code now}) or {@code ON UPDATE} ({@code onUpdate}) is
     * CURRENT_TIMESTAMP (their fractional digits; null: not): the row's own time where the server would give it.
     */
    private static RowsReshaper.TargetColumn rowTime(String shard, String physical, SchemaTable from, SchemaTable to,
            SchemaColumn l, Integer now, Integer onUpdate, ShardServer server) {
        AddedValues.Storage storage = AddedValues.storage(l);
        java.time.ZoneId zone = null;
        if (storage.type() == ColumnType.DATETIME2) {
            try {
                zone = server.timeZone().get();
            } catch (IllegalStateException e) {
                throw conflict(shard, physical, from, to, "column `" + l.name() + "` " + describe(l) + " is not in the"
                        + " shard's table, and its CURRENT_TIMESTAMP is the local time in the shard server's time zone: "
                        + e.getMessage());
            }
        }
        RowsReshaper.Constant otherwise = null;
        if (now == null) {
            RowsReshaper.TargetColumn inserted = added(shard, physical, from, to, new SchemaColumn(l.name(), l.type(),
                    l.args(), l.unsigned(), l.zerofill(), l.charset(), l.collation(), l.nullable(), l.defaultValue(),
                    l.autoIncrement(), null, l.comment(), l.extra()), server);
            otherwise = (RowsReshaper.Constant) inserted.value();
        }
        int precision = now != null ? now : onUpdate;
        return new RowsReshaper.TargetColumn(new RowsReshaper.RowTime(zone, precision, otherwise, onUpdate != null),
                storage.type(), storage.metadata(), l.nullable());
    }

    private static final java.util.regex.Pattern CURRENT_TIMESTAMP = java.util.regex.Pattern.compile(
            "(?i)\\s*(?:current_timestamp|now|localtime|localtimestamp)\\s*(?:\\(\\s*(\\d?)\\s*\\))?\\s*");

    /** The fractional digits of a CURRENT_TIMESTAMP expression (and its synonyms), or null for another one. */
    static Integer currentTimestamp(String expression) {
        java.util.regex.Matcher m = CURRENT_TIMESTAMP.matcher(expression);
        if (!m.matches()) {
            return null;
        }
        return m.group(1) == null || m.group(1).isEmpty() ? 0 : Integer.parseInt(m.group(1));
    }

    /** A value in a column's storage format (integer: little-endian; string: length prefix and bytes). */
    static byte[] value(SchemaColumn c, ColumnType t, String text) {
        int w = t.integerBytes();
        if (w > 0) {
            BigInteger v;
            try {
                v = new BigInteger(text.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not an integer: " + text);
            }
            BigInteger min = c.unsigned() ? BigInteger.ZERO : BigInteger.ONE.shiftLeft(8 * w - 1).negate();
            BigInteger max = c.unsigned() ? BigInteger.ONE.shiftLeft(8 * w).subtract(BigInteger.ONE)
                    : BigInteger.ONE.shiftLeft(8 * w - 1).subtract(BigInteger.ONE);
            if (v.compareTo(min) < 0 || v.compareTo(max) > 0) {
                throw new IllegalArgumentException(text + " is out of range for " + describe(c));
            }
            long bits = v.longValue();
            byte[] out = new byte[w];
            for (int i = 0; i < w; i++) {
                out[i] = (byte) (bits >>> (8 * i));
            }
            return out;
        }
        byte[] data = text.getBytes(charset(c));
        int max = metadataLength(c);
        if (data.length > max) {
            throw new IllegalArgumentException("'" + text + "' is longer than " + describe(c));
        }
        int prefix = max > 255 ? 2 : 1;
        byte[] out = new byte[prefix + data.length];
        out[0] = (byte) data.length;
        if (prefix == 2) {
            out[1] = (byte) (data.length >>> 8);
        }
        System.arraycopy(data, 0, out, prefix, data.length);
        return out;
    }

    static Charset charset(SchemaColumn c) {
        if (c.type().equals("json")) {
            return StandardCharsets.UTF_8; // MariaDB's LONGTEXT of a JSON column is utf8mb4
        }
        if (c.charset() == null) {
            return StandardCharsets.ISO_8859_1;
        }
        return switch (SqlTypes.charset(c.charset())) {
            case "latin1" -> Charset.forName("windows-1252");
            case "ascii" -> StandardCharsets.US_ASCII;
            default -> StandardCharsets.UTF_8;
        };
    }

    private static String describe(SchemaColumn c) {
        return CreateTableText.columnType(c, BinlogFlavor.MARIADB) + (c.charset() == null ? "" : " " + c.charset());
    }

    /** A shape in one line: {@code (id bigint(20) unsigned, c int(11), ...)}. */
    public static String describe(SchemaTable t) {
        List<String> cols = new ArrayList<>();
        for (SchemaColumn c : t.columns()) {
            cols.add("`" + c.name() + "` " + describe(c) + (c.nullable() ? "" : " NOT NULL")
                    + (c.defaultValue() == null ? "" : " DEFAULT " + c.defaultValue().text()));
        }
        return "(" + String.join(", ", cols) + ")";
    }

    static ShapeConflictException conflict(String shard, String physical, SchemaTable from, SchemaTable to, String why) {
        return new ShapeConflictException("rows of logical table " + to.name() + " from shard " + shard + " (" + physical
                + ") cannot be written in the table's logical shape at this global position: " + why + ". Shard's shape: "
                + describe(from) + "; logical shape: " + describe(to) + ". The pipeline stops before writing them: run"
                + " the same DDL on every shard (or bring the shard's table to the logical shape) and restart");
    }
}
