package io.tributary.daemon.dump;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.packet.ColumnDefinition;
import io.tributary.core.packet.MySqlProtocol;
import io.tributary.core.schema.SchemaColumn;
import io.tributary.core.schema.SchemaIndex;
import io.tributary.core.schema.SchemaTable;
import io.tributary.core.schema.SqlTypes;
import java.util.Set;

/**
 * A column of a logical table as a {@code SELECT} over it returns it: the column definition a server sends for a table
 * column (protocol type, length, flags, decimals as MariaDB 10.11 / MySQL 8.0 describe the column's type, with the
 * logical database and table names), how the value is read from a shard's result set (raw bytes for binary values,
 * text otherwise) and how it orders in a merge ({@link ValueOrder}). Text is sent in utf8mb4, as a server does for a
 * client whose {@code character_set_results} is utf8mb4 (Connector/J's default): character columns are described
 * as utf8mb4, binary ones as {@code binary}. Stateless.
 */
final class LogicalColumn {

    static final int TINY = 0x01;
    static final int SHORT = 0x02;
    static final int LONG = 0x03;
    static final int FLOAT = 0x04;
    static final int DOUBLE = 0x05;
    static final int TIMESTAMP = 0x07;
    static final int LONGLONG = 0x08;
    static final int INT24 = 0x09;
    static final int DATE = 0x0A;
    static final int TIME = 0x0B;
    static final int DATETIME = 0x0C;
    static final int YEAR = 0x0D;
    static final int BIT = 0x10;
    static final int JSON = 0xF5;
    static final int NEWDECIMAL = 0xF6;
    static final int BLOB = 0xFC;
    static final int VAR_STRING = 0xFD;
    static final int STRING = 0xFE;
    static final int GEOMETRY = 0xFF;

    private static final int NOT_NULL = 1;
    private static final int PRI_KEY = 2;
    private static final int UNIQUE_KEY = 4;
    private static final int MULTIPLE_KEY = 8;
    private static final int BLOB_FLAG = 16;
    private static final int UNSIGNED = 32;
    private static final int ZEROFILL = 64;
    private static final int BINARY = 128;
    private static final int ENUM = 256;
    private static final int AUTO_INCREMENT = 512;
    private static final int TIMESTAMP_FLAG = 1024;
    private static final int SET = 2048;
    private static final int NUM = 32768;
    private static final int BINARY_CHARSET = 63;
    private static final int UTF8MB4_BIN = 46;
    private static final int UTF8MB4_0900_AI_CI = 255;

    private static final Set<String> BINARY_TYPES = Set.of("binary", "varbinary", "tinyblob", "blob", "mediumblob",
            "longblob", "bit", "geometry", "point", "linestring", "polygon", "multipoint", "multilinestring",
            "multipolygon", "geometrycollection");

    private LogicalColumn() {
    }

    /** Whether the value is read as raw bytes (binary strings, BIT, spatial types) rather than as text. */
    static boolean readsBytes(SchemaColumn c) {
        return BINARY_TYPES.contains(c.type()) || "binary".equals(c.charset());
    }

    /**
     * How a merge orders the column, or null when it cannot be ordered outside the shard (JSON, spatial types).
     * Character columns order by their collation weights, so the shard query selects {@code WEIGHT_STRING(col)}
     * for them ({@link #orderedByWeight}); {@code ENUM} and {@code SET} by their number ({@code col+0}).
     */
    static ValueOrder order(SchemaColumn c) {
        String t = c.type();
        if (SqlTypes.isInteger(t) || t.equals("year") || t.equals("enum") || t.equals("set")) {
            return ValueOrder.INTEGER;
        }
        return switch (t) {
            case "decimal" -> ValueOrder.DECIMAL;
            case "float", "double" -> ValueOrder.FLOAT;
            case "time" -> ValueOrder.TIME;
            case "date", "datetime", "timestamp", "bit", "binary", "varbinary", "tinyblob", "blob", "mediumblob",
                    "longblob" -> ValueOrder.BYTES;
            default -> c.isCharacterType() ? ValueOrder.BYTES : null;
        };
    }

    /** Whether the merge compares the column's collation weights ({@code WEIGHT_STRING}) rather than its value. */
    static boolean orderedByWeight(SchemaColumn c) {
        return c.isCharacterType() && !c.type().equals("enum") && !c.type().equals("set") && !"binary".equals(c.charset());
    }

    /**
     * The expression whose value orders {@code expr} (of column {@code c}) as the column's collation does, as bytes:
     * {@code WEIGHT_STRING(expr)}, of {@code RTRIM(expr)} for a PAD SPACE collation (all but MySQL's {@code _0900_}
     * and MariaDB's {@code _nopad_} ones), whose comparisons ignore trailing spaces while its weights do not.
     */
    static String weightOf(SchemaColumn c, String expr) {
        String collation = c.collation() == null ? "" : c.collation();
        boolean noPad = collation.contains("_0900_") || collation.contains("nopad") || collation.equals("binary");
        return "WEIGHT_STRING(" + (noPad ? expr : "RTRIM(" + expr + ")") + ")";
    }

    /** Whether the merge compares the column's number ({@code col+0}) rather than its text. */
    static boolean orderedByNumber(SchemaColumn c) {
        return c.type().equals("enum") || c.type().equals("set");
    }

    /** The column definition a server sends for column {@code c} of table {@code t}, selected as {@code label}. */
    static ColumnDefinition definition(SchemaTable t, SchemaColumn c, String label, BinlogFlavor flavor) {
        String type = c.type();
        int protocolType = protocolType(c, flavor);
        int flags = (c.nullable() ? 0 : NOT_NULL) | keyFlags(t, c.name()) | (c.unsigned() ? UNSIGNED : 0)
                | (c.zerofill() ? ZEROFILL : 0) | (c.autoIncrement() ? AUTO_INCREMENT : 0);
        if (SqlTypes.isNumeric(type) && !type.equals("bit")) {
            flags |= NUM;
        }
        boolean binary = readsBytes(c) || !c.isCharacterType() && !type.equals("json");
        if (binary) {
            flags |= BINARY;
        }
        if (protocolType == BLOB || protocolType == JSON || protocolType == GEOMETRY) {
            flags |= BLOB_FLAG;
        }
        if (type.equals("enum")) {
            flags |= ENUM;
        } else if (type.equals("set")) {
            flags |= SET;
        } else if (type.equals("timestamp")) {
            flags |= TIMESTAMP_FLAG;
        }
        int charset = binary ? BINARY_CHARSET : textCharset(c, flavor);
        return new ColumnDefinition("def", t.name().database(), t.name().table(), t.name().table(), label, c.name(),
                charset, length(c, binary), protocolType, flags, decimals(c));
    }

    /**
     * Whether the shard is asked for the column as text ({@code CAST(col AS CHAR)}): integers, decimals, years, dates
     * and times, whose text a server sends as is, so the daemon passes the bytes on without Connector/J parsing and
     * formatting them (as for character columns). Not floats (their text differs from a cast's), nor
     * {@code ZEROFILL} columns (the cast drops the padding).
     */
    static boolean readAsText(SchemaColumn c) {
        String t = c.type();
        return !c.zerofill() && (SqlTypes.isInteger(t) || t.equals("decimal") || t.equals("year") || t.equals("date")
                || t.equals("time") || t.equals("datetime") || t.equals("timestamp"));
    }

    /** The fractional-second digits of a TIME, DATETIME or TIMESTAMP column (its precision), else -1. */
    static int fractionDigits(SchemaColumn c) {
        return switch (c.type()) {
            case "time", "datetime", "timestamp" -> {
                int[] args = args(c.args());
                yield args.length > 0 ? args[0] : 0;
            }
            default -> -1;
        };
    }

    /**
     * A time value's text with exactly {@code digits} fractional digits, as a server sends the column
     * ({@code 10:11:12.100} for precision 3): Connector/J's {@code getString} gives six whatever the precision.
     */
    static String withFraction(String text, int digits) {
        int dot = text.lastIndexOf('.');
        int colon = text.lastIndexOf(':');
        String whole = dot > colon ? text.substring(0, dot) : text;
        if (digits == 0) {
            return whole;
        }
        String fraction = dot > colon ? text.substring(dot + 1) : "";
        StringBuilder sb = new StringBuilder(whole).append('.');
        for (int i = 0; i < digits; i++) {
            sb.append(i < fraction.length() ? fraction.charAt(i) : '0');
        }
        return sb.toString();
    }

    /** The definition of an aggregate's result ({@code COUNT(*)}: BIGINT, not null). */
    static ColumnDefinition count(String label) {
        return new ColumnDefinition("def", "", "", "", label, "", BINARY_CHARSET, 21, LONGLONG, NOT_NULL | BINARY | NUM, 0);
    }

    private static int textCharset(SchemaColumn c, BinlogFlavor flavor) {
        if (c.collation() != null && c.collation().startsWith("utf8mb4") && c.collation().endsWith("_bin")) {
            return UTF8MB4_BIN;
        }
        return flavor.isMariaDb() ? MySqlProtocol.UTF8MB4_GENERAL_CI : UTF8MB4_0900_AI_CI;
    }

    static int protocolType(SchemaColumn c, BinlogFlavor flavor) {
        return switch (c.type()) {
            case "tinyint" -> TINY;
            case "smallint" -> SHORT;
            case "mediumint" -> INT24;
            case "int" -> LONG;
            case "bigint" -> LONGLONG;
            case "float" -> FLOAT;
            case "double" -> DOUBLE;
            case "decimal" -> NEWDECIMAL;
            case "bit" -> BIT;
            case "year" -> YEAR;
            case "date" -> DATE;
            case "time" -> TIME;
            case "datetime" -> DATETIME;
            case "timestamp" -> TIMESTAMP;
            case "char", "binary", "enum", "set" -> STRING;
            case "varchar", "varbinary" -> VAR_STRING;
            case "json" -> flavor.isMariaDb() ? BLOB : JSON;
            case "geometry", "point", "linestring", "polygon", "multipoint", "multilinestring", "multipolygon",
                    "geometrycollection" -> GEOMETRY;
            default -> BLOB;
        };
    }

    private static int keyFlags(SchemaTable t, String column) {
        int flags = 0;
        for (SchemaIndex i : t.indexes()) {
            if (i.columns().isEmpty()) {
                continue;
            }
            boolean first = i.columns().get(0).column().equalsIgnoreCase(column);
            boolean in = i.columns().stream().anyMatch(p -> p.column().equalsIgnoreCase(column));
            if (i.name().equals(SchemaIndex.PRIMARY) && in) {
                flags |= PRI_KEY;
            } else if (i.isUnique() && first && i.columns().size() == 1) {
                flags |= UNIQUE_KEY;
            } else if (first) {
                flags |= MULTIPLE_KEY;
            }
        }
        return flags;
    }

    private static long length(SchemaColumn c, boolean binary) {
        String t = c.type();
        int[] args = args(c.args());
        int perChar = binary ? 1 : 4;
        if (SqlTypes.isInteger(t)) {
            return args.length > 0 ? args[0] : SqlTypes.displayWidth(t, c.unsigned());
        }
        return switch (t) {
            case "decimal" -> {
                int precision = args.length > 0 ? args[0] : 10;
                int scale = args.length > 1 ? args[1] : 0;
                yield precision + (scale > 0 ? 1 : 0) + (c.unsigned() ? 0 : 1);
            }
            case "float" -> 12;
            case "double" -> 22;
            case "bit" -> args.length > 0 ? args[0] : 1;
            case "year" -> 4;
            case "date" -> 10;
            case "time" -> 10 + fraction(args);
            case "datetime", "timestamp" -> 19 + fraction(args);
            case "char", "varchar", "binary", "varbinary" -> (long) (args.length > 0 ? args[0] : 1) * perChar;
            case "tinytext", "tinyblob" -> 255L * perChar;
            case "text", "blob" -> 65_535L * perChar;
            case "mediumtext", "mediumblob" -> 16_777_215L * perChar;
            case "enum", "set" -> (long) longestMember(c.args()) * perChar;
            default -> 4_294_967_295L;
        };
    }

    private static int fraction(int[] args) {
        return args.length > 0 && args[0] > 0 ? args[0] + 1 : 0;
    }

    private static int decimals(SchemaColumn c) {
        int[] args = args(c.args());
        return switch (c.type()) {
            case "decimal" -> args.length > 1 ? args[1] : 0;
            case "float", "double" -> args.length > 1 ? args[1] : 31;
            case "time", "datetime", "timestamp" -> args.length > 0 ? args[0] : 0;
            default -> 0;
        };
    }

    private static int[] args(String args) {
        if (args == null || args.isEmpty() || args.startsWith("'")) {
            return new int[0];
        }
        String[] parts = args.split(",");
        int[] out = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                out[i] = Integer.parseInt(parts[i].strip());
            } catch (NumberFormatException e) {
                return new int[0];
            }
        }
        return out;
    }

    private static int longestMember(String args) {
        if (args == null) {
            return 1;
        }
        int longest = 1;
        for (String m : args.split("','")) {
            longest = Math.max(longest, m.replace("'", "").length());
        }
        return longest;
    }
}
