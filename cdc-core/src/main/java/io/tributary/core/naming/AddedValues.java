package io.tributary.core.naming;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.event.ColumnType;
import io.tributary.core.event.rows.PackedDecimal;
import io.tributary.core.schema.SchemaColumn;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The row-image bytes of a column the logical table has and a shard's table has not yet (issue 16), for the types
 * beyond integers and VARCHAR/CHAR (those are {@link LogicalShape#value}'s): DECIMAL, FLOAT, DOUBLE, DATE,
 * DATETIME(n), TIME(n), TIMESTAMP(n), YEAR, ENUM, SET, TEXT/BLOB, JSON (per flavor), BIT, and
 * the spatial types when NULL. Formats as the server packs
 * them ({@code Field_*::pack}, {@code my_datetime_packed_to_binary}, {@code decimal2bin}); the bytes are checked
 * against a live server's binlog by {@code AddedColumnDefaultsIT}.
 *
 * <p>A TIMESTAMP literal is stored as the server stores it, seconds since the epoch of the literal read in the time
 * zone of the session that ran the DDL ({@link #timestamp}, given the zone). A {@code DEFAULT current_timestamp()}
 * is the row's own time, which the caller supplies per rows event.
 *
 * <p>Stateless and thread-safe.
 */
final class AddedValues {

    /** TABLE_MAP type and metadata of a column. */
    record Storage(ColumnType type, int metadata) {
    }

    private static final Pattern DATE = Pattern.compile("(\\d{4})-(\\d{2})-(\\d{2})");
    private static final Pattern DATETIME =
            Pattern.compile("(\\d{4})-(\\d{2})-(\\d{2})(?:[ T](\\d{2}):(\\d{2}):(\\d{2})(?:\\.(\\d{1,6}))?)?");
    private static final Pattern TIME = Pattern.compile("(\\d{1,3}):(\\d{2}):(\\d{2})(?:\\.(\\d{1,6}))?");

    private AddedValues() {
    }

    /** The storage of a column of a type this class supplies, else null. */
    static Storage storage(SchemaColumn c) {
        return switch (c.type()) {
            case "decimal", "numeric" -> {
                int[] ps = precisionScale(c);
                yield new Storage(ColumnType.NEWDECIMAL, ps[0] << 8 | ps[1]);
            }
            case "float" -> new Storage(ColumnType.FLOAT, 4);
            case "double", "real" -> new Storage(ColumnType.DOUBLE, 8);
            case "date" -> new Storage(ColumnType.DATE, 0);
            case "datetime" -> new Storage(ColumnType.DATETIME2, fsp(c));
            case "timestamp" -> new Storage(ColumnType.TIMESTAMP2, fsp(c));
            case "time" -> new Storage(ColumnType.TIME2, fsp(c));
            case "year" -> new Storage(ColumnType.YEAR, 0);
            case "enum" -> new Storage(ColumnType.STRING, ColumnType.ENUM.code() << 8 | (members(c).size() > 255 ? 2 : 1));
            case "set" -> {
                int n = (members(c).size() + 7) / 8;
                yield new Storage(ColumnType.STRING, ColumnType.SET.code() << 8 | (n > 4 ? 8 : n));
            }
            case "tinytext", "tinyblob" -> new Storage(ColumnType.BLOB, 1);
            case "text", "blob" -> c.args() == null ? new Storage(ColumnType.BLOB, 2) : null;
            case "mediumtext", "mediumblob" -> new Storage(ColumnType.BLOB, 3);
            case "longtext", "longblob" -> new Storage(ColumnType.BLOB, 4);
            case "bit" -> {
                int bits = c.args() == null ? 1 : integer(c.args().trim(), "a number of bits");
                yield new Storage(ColumnType.BIT, bits / 8 << 8 | bits % 8);
            }
            case "geometry", "point", "linestring", "polygon", "multipoint", "multilinestring", "multipolygon",
                    "geometrycollection" -> new Storage(ColumnType.GEOMETRY, 4);
            default -> null;
        };
    }

    /**
     * The storage of a column on a shard of {@code flavor}: as {@link #storage(SchemaColumn)}, and a JSON column as
     * the server stores it, a LONGTEXT (utf8mb4) on MariaDB, binary JSON on MySQL.
     */
    static Storage storage(SchemaColumn c, BinlogFlavor flavor) {
        if (c.type().equals("json")) {
            return flavor.isMariaDb() ? new Storage(ColumnType.BLOB, 4) : new Storage(ColumnType.JSON, 4);
        }
        return storage(c);
    }

    /**
     * A TIMESTAMP literal default (as SHOW CREATE TABLE prints it in the DDL session's time zone) as the server
     * stores it: seconds since the epoch of that local time in {@code zone}, then the fraction. A local time that a
     * daylight-saving change skips or repeats is taken at the offset before the change.
     */
    static byte[] timestamp(String text, Storage s, java.util.function.Supplier<java.time.ZoneId> zone) {
        String v = text.trim();
        if (v.matches("0000-00-00( 00:00:00(\\.0*)?)?|0")) {
            return zeros(s);
        }
        Matcher m = match(DATETIME, v, "a timestamp YYYY-MM-DD HH:MM:SS[.ffffff]");
        java.time.LocalDateTime local;
        try {
            local = java.time.LocalDateTime.of(integer(m.group(1), ""), integer(m.group(2), ""), integer(m.group(3), ""),
                    m.group(4) == null ? 0 : integer(m.group(4), ""), m.group(5) == null ? 0 : integer(m.group(5), ""),
                    m.group(6) == null ? 0 : integer(m.group(6), ""));
        } catch (java.time.DateTimeException e) {
            throw new IllegalArgumentException("'" + v + "' is not a timestamp: " + e.getMessage());
        }
        long seconds = java.time.ZonedDateTime.ofLocal(local, zone.get(), null).toEpochSecond();
        if (seconds < 1 || seconds > 0x7FFFFFFFL) {
            throw new IllegalArgumentException("'" + v + "' is outside the TIMESTAMP range");
        }
        return withFraction(bigEndian(seconds, 4), micros(m.group(7)), s.metadata());
    }

    /** The value a server gives a NOT NULL column without a default: zero, the empty string, the first member. */
    static byte[] implicit(SchemaColumn c, Storage s, Charset cs) {
        if (s.type() == ColumnType.TIMESTAMP2) {
            throw new IllegalArgumentException("a NOT NULL TIMESTAMP without a default gets the row's time from the"
                    + " server, which the rewrite does not know");
        }
        if (c.type().equals("json")) {
            throw new IllegalArgumentException("a NOT NULL JSON column without a default has no value a server gives"
                    + " it (the empty string is not JSON)");
        }
        return switch (c.type()) {
            case "enum" -> value(c, s, members(c).get(0), cs);
            case "set", "tinytext", "tinyblob", "text", "blob", "mediumtext", "mediumblob", "longtext", "longblob" ->
                    value(c, s, "", cs);
            case "date", "datetime", "time" -> zeros(s);
            case "year" -> new byte[1];
            case "bit" -> new byte[(s.metadata() >>> 8) + ((s.metadata() & 0xFF) > 0 ? 1 : 0)];
            default -> value(c, s, "0", cs);
        };
    }

    /** A literal default (unquoted, as SHOW CREATE TABLE prints it) in the column's row-image format. */
    static byte[] value(SchemaColumn c, Storage s, String text, Charset cs) {
        String v = text.trim();
        switch (s.type()) {
            case NEWDECIMAL -> {
                return decimal(v, s.metadata() >>> 8, s.metadata() & 0xFF);
            }
            case FLOAT -> {
                return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putFloat((float) number(v)).array();
            }
            case DOUBLE -> {
                return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putDouble(number(v)).array();
            }
            case YEAR -> {
                int y = integer(v, "a year");
                if (y != 0 && (y < 1901 || y > 2155)) {
                    throw new IllegalArgumentException(v + " is not a YEAR (1901 to 2155, or 0)");
                }
                return new byte[] {(byte) (y == 0 ? 0 : y - 1900)};
            }
            case DATE -> {
                Matcher m = match(DATE, v, "a date YYYY-MM-DD");
                int packed = integer(m.group(3), "") | integer(m.group(2), "") << 5 | integer(m.group(1), "") << 9;
                return new byte[] {(byte) packed, (byte) (packed >>> 8), (byte) (packed >>> 16)};
            }
            case DATETIME2 -> {
                Matcher m = match(DATETIME, v, "a datetime YYYY-MM-DD HH:MM:SS[.ffffff]");
                long ymd = ((long) integer(m.group(1), "") * 13 + integer(m.group(2), "")) << 5 | integer(m.group(3), "");
                long hms = m.group(4) == null ? 0 : (long) integer(m.group(4), "") << 12 | integer(m.group(5), "") << 6
                        | integer(m.group(6), "");
                return withFraction(bigEndian((ymd << 17 | hms) + 0x8000000000L, 5), micros(m.group(7)), s.metadata());
            }
            case TIME2 -> {
                Matcher m = match(TIME, v, "a non-negative time HH:MM:SS[.ffffff]");
                long hms = (long) integer(m.group(1), "") << 12 | integer(m.group(2), "") << 6 | integer(m.group(3), "");
                return withFraction(bigEndian(hms + 0x800000L, 3), micros(m.group(4)), s.metadata());
            }
            case TIMESTAMP2 -> {
                if (v.matches("0000-00-00( 00:00:00(\\.0*)?)?|0")) {
                    return zeros(s);
                }
                throw new IllegalArgumentException("a TIMESTAMP literal is stored as seconds since the epoch in the time"
                        + " zone of the session that ran the DDL, which the rewrite does not know");
            }
            case STRING -> {
                List<String> members = members(c);
                int packLength = s.metadata() & 0xFF;
                long bits = 0;
                if ((s.metadata() >>> 8) == ColumnType.ENUM.code()) {
                    bits = indexOf(members, v) + 1;
                    if (bits == 0) {
                        throw new IllegalArgumentException("'" + v + "' is not a member of " + c.args());
                    }
                } else if (!v.isEmpty()) {
                    for (String member : v.split(",", -1)) {
                        int i = indexOf(members, member);
                        if (i < 0) {
                            throw new IllegalArgumentException("'" + member + "' is not a member of " + c.args());
                        }
                        bits |= 1L << i;
                    }
                }
                byte[] out = new byte[packLength];
                for (int i = 0; i < packLength; i++) {
                    out[i] = (byte) (bits >>> (8 * i));
                }
                return out;
            }
            case BIT -> {
                return bit(v, (s.metadata() >>> 8) + ((s.metadata() & 0xFF) > 0 ? 1 : 0),
                        (s.metadata() >>> 8) * 8 + (s.metadata() & 0xFF));
            }
            case BLOB -> {
                byte[] data = text.getBytes(cs);
                int prefix = s.metadata();
                if (prefix < 4 && data.length >= 1L << (8 * prefix)) {
                    throw new IllegalArgumentException("a value of " + data.length + " bytes does not fit " + c.type());
                }
                byte[] out = new byte[prefix + data.length];
                for (int i = 0; i < prefix; i++) {
                    out[i] = (byte) (data.length >>> (8 * i));
                }
                System.arraycopy(data, 0, out, prefix, data.length);
                return out;
            }
            default -> throw new IllegalArgumentException("no value of type " + s.type() + " can be supplied");
        }
    }

    /** A BIT literal ({@code b'101'}, {@code 0b101}, {@code x'1F'}, {@code 0x1F}, {@code 5}, parenthesised or not). */
    private static final Pattern BIT_LITERAL = Pattern.compile(
            "\\(?\\s*(?:[bB]'([01]*)'|0b([01]+)|[xX]'([0-9a-fA-F]*)'|0x([0-9a-fA-F]+)|(\\d+))\\s*\\)?");

    /** Whether {@code text} is a BIT literal (MariaDB prints a BIT default as {@code b'101'}). */
    static boolean isBitLiteral(String text) {
        return BIT_LITERAL.matcher(text.trim()).matches();
    }

    /** BIT(bits) as the server stores it in a row image: {@code bytes} bytes, big-endian. */
    static byte[] bit(String text, int bytes, int bits) {
        Matcher m = BIT_LITERAL.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a BIT literal (b'...', 0b..., x'...', 0x... or a"
                    + " number)");
        }
        java.math.BigInteger v = m.group(1) != null ? (m.group(1).isEmpty() ? java.math.BigInteger.ZERO
                : new java.math.BigInteger(m.group(1), 2))
                : m.group(2) != null ? new java.math.BigInteger(m.group(2), 2)
                : m.group(3) != null ? (m.group(3).isEmpty() ? java.math.BigInteger.ZERO
                : new java.math.BigInteger(m.group(3), 16))
                : m.group(4) != null ? new java.math.BigInteger(m.group(4), 16)
                : new java.math.BigInteger(m.group(5));
        if (v.bitLength() > bits) {
            throw new IllegalArgumentException(text + " does not fit BIT(" + bits + ")");
        }
        byte[] out = new byte[bytes];
        byte[] raw = v.toByteArray(); // big-endian, maybe with a leading sign byte
        for (int i = 0; i < Math.min(bytes, raw.length); i++) {
            out[bytes - 1 - i] = raw[raw.length - 1 - i];
        }
        return out;
    }

    /** DECIMAL(p,s) in the server's binary format ({@code decimal2bin}). */
    static byte[] decimal(String text, int precision, int scale) {
        try {
            return PackedDecimal.encode(new BigDecimal(text), precision, scale);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a number: " + text);
        }
    }

    /**
     * Null when rows of {@code s} convert to {@code l} without loss (DECIMAL to one with at least as many integer
     * and fraction digits, FLOAT to DOUBLE, DATETIME/TIMESTAMP to more fractional digits), else why not.
     */
    static String widening(SchemaColumn s, SchemaColumn l) {
        Storage from = storage(s);
        Storage to = storage(l);
        String no = "no conversion between these types (converted: integer widening, longer VARCHAR/CHAR, DECIMAL"
                + " to more digits, FLOAT to DOUBLE, DATETIME/TIMESTAMP to more fractional digits)";
        if (from == null || to == null || s.unsigned() != l.unsigned()) {
            return no;
        }
        if ((from.type() == ColumnType.FLOAT || from.type() == ColumnType.DOUBLE) && (s.args() != null
                || l.args() != null)) {
            return no; // FLOAT(M,D)/DOUBLE(M,D): the server's ALTER rounds to D digits
        }
        if (from.type() == ColumnType.FLOAT && to.type() == ColumnType.DOUBLE) {
            return null;
        }
        if (from.type() != to.type()) {
            return no;
        }
        return switch (from.type()) {
            case NEWDECIMAL -> {
                int p1 = from.metadata() >>> 8;
                int s1 = from.metadata() & 0xFF;
                int p2 = to.metadata() >>> 8;
                int s2 = to.metadata() & 0xFF;
                yield s2 >= s1 && p2 - s2 >= p1 - s1 ? null
                        : "the logical DECIMAL has fewer integer or fraction digits: values of the shard may not fit";
            }
            case DATETIME2, TIMESTAMP2 -> to.metadata() >= from.metadata() ? null
                    : "fewer fractional digits: values of the shard would be rounded";
            default -> no;
        };
    }

    private static byte[] withFraction(byte[] intPart, int micros, int fsp) {
        int n = (fsp + 1) / 2;
        if (n == 0) {
            return intPart;
        }
        long frac = switch (n) {
            case 1 -> micros / 10000;
            case 2 -> micros / 100;
            default -> micros;
        };
        byte[] out = new byte[intPart.length + n];
        System.arraycopy(intPart, 0, out, 0, intPart.length);
        System.arraycopy(bigEndian(frac, n), 0, out, intPart.length, n);
        return out;
    }

    private static byte[] zeros(Storage s) {
        return switch (s.type()) {
            case DATE -> new byte[3];
            case DATETIME2 -> withFraction(bigEndian(0x8000000000L, 5), 0, s.metadata());
            case TIME2 -> withFraction(bigEndian(0x800000L, 3), 0, s.metadata());
            case TIMESTAMP2 -> new byte[4 + (s.metadata() + 1) / 2];
            default -> throw new IllegalStateException(s.type().toString());
        };
    }

    private static int micros(String fraction) {
        return fraction == null ? 0 : Integer.parseInt((fraction + "00000").substring(0, 6));
    }

    private static byte[] bigEndian(long v, int n) {
        byte[] out = new byte[n];
        for (int i = 0; i < n; i++) {
            out[n - 1 - i] = (byte) (v >>> (8 * i));
        }
        return out;
    }

    private static Matcher match(Pattern p, String v, String what) {
        Matcher m = p.matcher(v);
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + v + "' is not " + what);
        }
        return m;
    }

    private static int integer(String v, String what) {
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + v + "' is not " + what);
        }
    }

    private static double number(String v) {
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a number: " + v);
        }
    }

    private static int fsp(SchemaColumn c) {
        return c.args() == null || c.args().isBlank() ? 0 : integer(c.args().trim(), "a fractional-seconds precision");
    }

    private static int[] precisionScale(SchemaColumn c) {
        if (c.args() == null) {
            return new int[] {10, 0};
        }
        String[] parts = c.args().split(",");
        return new int[] {integer(parts[0].trim(), "a precision"), parts.length > 1 ? integer(parts[1].trim(), "a scale")
                : 0};
    }

    private static int indexOf(List<String> members, String v) {
        for (int i = 0; i < members.size(); i++) {
            if (members.get(i).equals(v)) {
                return i;
            }
        }
        for (int i = 0; i < members.size(); i++) {
            if (members.get(i).equalsIgnoreCase(v)) {
                return i;
            }
        }
        return -1;
    }

    /** The members of an ENUM or SET from its args ({@code 'a','b''c'}). */
    static List<String> members(SchemaColumn c) {
        List<String> out = new ArrayList<>();
        String a = c.args() == null ? "" : c.args();
        int i = 0;
        while (i < a.length()) {
            if (a.charAt(i) != '\'') {
                i++;
                continue;
            }
            StringBuilder m = new StringBuilder();
            i++;
            while (i < a.length()) {
                char ch = a.charAt(i);
                if (ch == '\'' && i + 1 < a.length() && a.charAt(i + 1) == '\'') {
                    m.append('\'');
                    i += 2;
                } else if (ch == '\'') {
                    i++;
                    break;
                } else if (ch == '\\' && i + 1 < a.length()) {
                    m.append(a.charAt(i + 1));
                    i += 2;
                } else {
                    m.append(ch);
                    i++;
                }
            }
            out.add(m.toString());
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no members in " + c.type() + "(" + a + ")");
        }
        return out;
    }
}
