package io.tributary.core.event.rows;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * Renders a {@link Row} the way {@code mariadb-binlog --verbose} prints a row image
 * ({@code log_event_print_value} in MariaDB's {@code sql/log_event_client.cc}), so tests can compare our
 * values with the reference tool line by line.
 *
 * <p>Quirks kept on purpose: integers print signed, with the unsigned reading in parentheses when
 * negative ({@code -1 (255)}); FLOAT as C {@code %-20g}, DOUBLE as {@code %-.20g}; DATE as
 * {@code 'YYYY:MM:DD'}; TIMESTAMP as epoch seconds; YEAR 0 as {@code 1900}; ENUM as its index; SET and BIT as
 * {@code b'0101'}; strings as raw bytes in single quotes with control bytes as {@code \xNN}. MariaDB cannot
 * print MySQL JSON or VECTOR; JSON is rendered as its quoted JSON text (as MySQL's {@code mysqlbinlog}
 * does) and VECTOR as quoted raw bytes. Stateless and thread-safe.
 */
final class VerboseFormat {
    private VerboseFormat() {
    }

    static byte[] render(Row row) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        boolean first = true;
        for (int i = 0; i < row.columnCount(); i++) {
            if (!row.isPresent(i)) {
                continue;
            }
            if (!first) {
                out.write('\n');
            }
            first = false;
            ascii(out, "###   @" + (i + 1) + "=");
            Object v = row.get(i);
            if (v == null) {
                ascii(out, "NULL");
            } else {
                value(out, row.table().get(i), v);
            }
        }
        return out.toByteArray();
    }

    private static void value(ByteArrayOutputStream out, ColumnDefinition col, Object v) {
        int meta = col.metadata();
        switch (col.storedType()) {
            case TINY -> signedAndUnsigned(out, (Long) v, 8);
            case SHORT -> signedAndUnsigned(out, (Long) v, 16);
            case INT24 -> signedAndUnsigned(out, (Long) v, 24);
            case LONG -> signedAndUnsigned(out, (Long) v, 32);
            case LONGLONG -> {
                long s = v instanceof BigInteger big ? big.longValue() : (Long) v;
                ascii(out, Long.toString(s) + (s < 0 ? " (" + Long.toUnsignedString(s) + ")" : ""));
            }
            case NEWDECIMAL -> ascii(out, ((BigDecimal) v).toPlainString());
            case FLOAT -> ascii(out, pad(formatG((double) (Float) v, 6), 20));
            case DOUBLE -> ascii(out, formatG((Double) v, 20));
            case BIT -> {
                int nbits = (meta >>> 8) * 8 + (meta & 0xFF);
                StringBuilder sb = new StringBuilder("b'");
                long bits = (Long) v;
                for (int b = nbits - 1; b >= 0; b--) {
                    sb.append((bits >>> b & 1) != 0 ? '1' : '0');
                }
                ascii(out, sb.append('\'').toString());
            }
            case TIMESTAMP -> ascii(out, Long.toString(((Instant) v).getEpochSecond()));
            case TIMESTAMP2 -> {
                Instant t = (Instant) v;
                ascii(out, t.getEpochSecond() + MysqlTime.fraction(t.getNano() / 1000, meta));
            }
            case DATETIME -> ascii(out, "'" + ((MysqlDateTime) v).format(0) + "'");
            case DATETIME2 -> ascii(out, "'" + ((MysqlDateTime) v).format(meta) + "'");
            case TIME -> ascii(out, "'" + ((MysqlTime) v).format(0) + "'");
            case TIME2 -> ascii(out, "'" + ((MysqlTime) v).format(meta) + "'");
            case DATE, NEWDATE -> {
                MysqlDateTime d = (MysqlDateTime) v;
                ascii(out, String.format("'%04d:%02d:%02d'", d.year(), d.month(), d.day()));
            }
            case YEAR -> {
                int y = (Integer) v;
                ascii(out, String.format("%04d", y == 0 ? 1900 : y));
            }
            case ENUM -> ascii(out, Integer.toString(((MysqlEnum) v).index()));
            case SET -> {
                int size = meta & 0xFF;
                long bits = ((MysqlSet) v).bits();
                StringBuilder sb = new StringBuilder("b'");
                for (int byteIndex = 0; byteIndex < size; byteIndex++) {
                    int b = (int) (bits >>> (8 * byteIndex)) & 0xFF;
                    for (int bit = 7; bit >= 0; bit--) {
                        sb.append((b >>> bit & 1) != 0 ? '1' : '0');
                    }
                }
                ascii(out, sb.append('\'').toString());
            }
            case JSON -> quoted(out, ((JsonDocument) v).toJson().getBytes(StandardCharsets.UTF_8));
            default -> quoted(out, rawBytes(col, v));
        }
    }

    private static byte[] rawBytes(ColumnDefinition col, Object v) {
        if (v instanceof byte[] b) {
            return b;
        }
        Charset cs = MysqlCharsets.forCollation(col.charset());
        return v.toString().getBytes(cs != null ? cs : StandardCharsets.UTF_8);
    }

    private static void signedAndUnsigned(ByteArrayOutputStream out, long v, int bits) {
        int shift = 64 - bits;
        long signed = v << shift >> shift;
        long unsigned = v & (-1L >>> shift);
        ascii(out, Long.toString(signed) + (signed < 0 ? " (" + unsigned + ")" : ""));
    }

    private static void quoted(ByteArrayOutputStream out, byte[] bytes) {
        out.write('\'');
        for (byte b : bytes) {
            int u = b & 0xFF;
            if (u > 0x1F) {
                out.write(u);
            } else {
                ascii(out, String.format("\\x%02x", u));
            }
        }
        out.write('\'');
    }

    private static void ascii(ByteArrayOutputStream out, String s) {
        out.writeBytes(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    private static String pad(String s, int width) {
        StringBuilder sb = new StringBuilder(s);
        while (sb.length() < width) {
            sb.append(' ');
        }
        return sb.toString();
    }

    /** C's {@code %.<precision>g}: shortest of fixed or exponent form, trailing zeros removed. */
    static String formatG(double d, int precision) {
        if (Double.isNaN(d)) {
            return "nan";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        if (d == 0) {
            return (1 / d < 0) ? "-0" : "0";
        }
        BigDecimal bd = new BigDecimal(d).round(new MathContext(precision, RoundingMode.HALF_EVEN));
        int exponent = bd.precision() - bd.scale() - 1;
        if (exponent < precision && exponent >= -4) {
            String s = bd.setScale(Math.max(0, precision - 1 - exponent), RoundingMode.HALF_EVEN).toPlainString();
            return stripZeros(s);
        }
        String digits = bd.unscaledValue().abs().toString();
        StringBuilder sb = new StringBuilder();
        if (bd.signum() < 0) {
            sb.append('-');
        }
        sb.append(digits.charAt(0));
        String frac = stripZeros("0." + digits.substring(1)).substring(1);
        sb.append(frac);
        sb.append('e').append(exponent < 0 ? '-' : '+');
        int e = Math.abs(exponent);
        if (e < 10) {
            sb.append('0');
        }
        return sb.append(e).toString();
    }

    private static String stripZeros(String s) {
        if (s.indexOf('.') < 0) {
            return s;
        }
        int end = s.length();
        while (s.charAt(end - 1) == '0') {
            end--;
        }
        if (s.charAt(end - 1) == '.') {
            end--;
        }
        return s.substring(0, end);
    }
}
