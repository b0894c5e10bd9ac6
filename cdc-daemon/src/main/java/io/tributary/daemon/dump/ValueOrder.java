package io.tributary.daemon.dump;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;

/**
 * How the values of one {@code ORDER BY} column compare when the shards' ordered streams are merged, as the server
 * orders them. Values are what the shard sent in the text protocol: the UTF-8 text of a number or a time, or raw
 * bytes. {@code NULL} (a null array) sorts first ascending and last descending, as on MySQL and MariaDB.
 *
 * <ul>
 *   <li>{@link #INTEGER}: integer text, compared by sign and magnitude without parsing (any width, also
 *       {@code BIGINT UNSIGNED}; {@code ZEROFILL}'s leading zeros are skipped); also {@code ENUM}/{@code SET}
 *       read as their number ({@code col+0}), {@code YEAR};</li>
 *   <li>{@link #DECIMAL}: {@code DECIMAL} text, numerically;</li>
 *   <li>{@link #FLOAT}: {@code FLOAT}/{@code DOUBLE} text, as doubles;</li>
 *   <li>{@link #TIME}: {@code TIME} text ({@code -838:59:59.000000} to {@code 838:59:59.000000}), by its value;</li>
 *   <li>{@link #BYTES}: unsigned bytes, shorter first on a common prefix: binary strings, {@code BIT}, dates and
 *       datetimes (fixed-width text), and the collation weights the shards compute for character columns with
 *       {@code WEIGHT_STRING(col)}, which is how the daemon orders text exactly as the column's collation does,
 *       whatever the collation.</li>
 * </ul>
 * Stateless.
 */
enum ValueOrder implements Comparator<byte[]> {
    INTEGER {
        @Override
        int compareValues(byte[] a, byte[] b) {
            boolean negA = a.length > 0 && a[0] == '-';
            boolean negB = b.length > 0 && b[0] == '-';
            if (negA != negB) {
                return negA ? -1 : 1;
            }
            int m = compareMagnitude(a, negA ? 1 : 0, b, negB ? 1 : 0);
            return negA ? -m : m;
        }
    },
    DECIMAL {
        @Override
        int compareValues(byte[] a, byte[] b) {
            return new BigDecimal(text(a)).compareTo(new BigDecimal(text(b)));
        }
    },
    FLOAT {
        @Override
        int compareValues(byte[] a, byte[] b) {
            return Double.compare(Double.parseDouble(text(a)), Double.parseDouble(text(b)));
        }
    },
    TIME {
        @Override
        int compareValues(byte[] a, byte[] b) {
            return Long.compare(timeMicros(text(a)), timeMicros(text(b)));
        }
    },
    BYTES {
        @Override
        int compareValues(byte[] a, byte[] b) {
            return Arrays.compareUnsigned(a, b);
        }
    };

    /** Orders two non-null values. */
    abstract int compareValues(byte[] a, byte[] b);

    @Override
    public int compare(byte[] a, byte[] b) {
        if (a == null || b == null) {
            return a == b ? 0 : a == null ? -1 : 1;
        }
        return compareValues(a, b);
    }

    /** This order, or its reverse for {@code DESC} (NULLs then come last). */
    Comparator<byte[]> direction(boolean ascending) {
        return ascending ? this : this.reversed();
    }

    private static String text(byte[] v) {
        return new String(v, StandardCharsets.US_ASCII).strip();
    }

    /** Compares unsigned decimal digit strings from the given offsets, ignoring leading zeros. */
    private static int compareMagnitude(byte[] a, int fromA, byte[] b, int fromB) {
        while (fromA < a.length - 1 && a[fromA] == '0') {
            fromA++;
        }
        while (fromB < b.length - 1 && b[fromB] == '0') {
            fromB++;
        }
        int lengthA = a.length - fromA;
        int lengthB = b.length - fromB;
        if (lengthA != lengthB) {
            return lengthA < lengthB ? -1 : 1;
        }
        return Arrays.compareUnsigned(a, fromA, a.length, b, fromB, b.length);
    }

    /** A {@code TIME} value in microseconds: {@code [-]H..H:MM:SS[.ffffff]}. */
    static long timeMicros(String t) {
        boolean negative = t.startsWith("-");
        String s = negative ? t.substring(1) : t;
        String[] hms = s.split(":");
        if (hms.length != 3) {
            throw new IllegalArgumentException("not a TIME value: '" + t + "'");
        }
        String[] secondsAndFraction = hms[2].split("\\.");
        long micros = ((Long.parseLong(hms[0]) * 60 + Long.parseLong(hms[1])) * 60
                + Long.parseLong(secondsAndFraction[0])) * 1_000_000L;
        if (secondsAndFraction.length > 1) {
            String f = (secondsAndFraction[1] + "000000").substring(0, 6);
            micros += Long.parseLong(f);
        }
        return negative ? -micros : micros;
    }
}
