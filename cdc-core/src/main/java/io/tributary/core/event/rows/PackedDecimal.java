package io.tributary.core.event.rows;

import java.math.BigDecimal;

/**
 * MySQL's binary DECIMAL format ({@code strings/decimal.cc}, {@code decimal2bin}/{@code bin2decimal}).
 *
 * <p>The integer part ({@code precision - scale} digits) and the fraction ({@code scale} digits) are each
 * split into groups of 9 digits stored as 4-byte big-endian integers; the leftover digits of the integer
 * part come first and the leftover digits of the fraction last, each in the fewest bytes that hold them
 * (1-2 digits: 1 byte, 3-4: 2, 5-6: 3, 7-9: 4). The top bit of the first byte is set for non-negative
 * values; negative values have every byte inverted. Stateless and thread-safe.
 */
public final class PackedDecimal {
    private static final int[] DIG2BYTES = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};
    private static final int DIGITS_PER_GROUP = 9;

    private PackedDecimal() {
    }

    /** Bytes a DECIMAL(precision, scale) value occupies. */
    public static int binarySize(int precision, int scale) {
        int intg = precision - scale;
        return intg / 9 * 4 + DIG2BYTES[intg % 9] + scale / 9 * 4 + DIG2BYTES[scale % 9];
    }

    /**
     * Decodes one value.
     *
     * @throws RowDecodeException when precision/scale are impossible or a group holds more digits than it may
     */
    public static BigDecimal decode(byte[] src, int offset, int precision, int scale) {
        if (precision < 1 || precision > 65 || scale < 0 || scale > 30 || scale > precision) {
            throw new RowDecodeException("impossible DECIMAL(" + precision + "," + scale + ") metadata");
        }
        int size = binarySize(precision, scale);
        if (offset < 0 || offset + size > src.length) {
            throw new RowDecodeException("DECIMAL(" + precision + "," + scale + ") needs " + size + " bytes, "
                    + Math.max(0, src.length - offset) + " available");
        }
        byte[] b = new byte[size];
        System.arraycopy(src, offset, b, 0, size);
        boolean negative = (b[0] & 0x80) == 0;
        b[0] ^= (byte) 0x80;
        if (negative) {
            for (int i = 0; i < size; i++) {
                b[i] = (byte) ~b[i];
            }
        }
        int intg = precision - scale;
        int intg0 = intg / DIGITS_PER_GROUP;
        int intg0x = intg % DIGITS_PER_GROUP;
        int frac0 = scale / DIGITS_PER_GROUP;
        int frac0x = scale % DIGITS_PER_GROUP;

        StringBuilder s = new StringBuilder(precision + 3);
        if (negative) {
            s.append('-');
        }
        int pos = 0;
        int intStart = s.length();
        if (intg0x > 0) {
            int n = DIG2BYTES[intg0x];
            appendGroup(s, readBigEndian(b, pos, n), intg0x, false);
            pos += n;
        }
        for (int i = 0; i < intg0; i++, pos += 4) {
            appendGroup(s, readBigEndian(b, pos, 4), DIGITS_PER_GROUP, true);
        }
        if (s.length() == intStart) {
            s.append('0');
        }
        if (scale > 0) {
            s.append('.');
            for (int i = 0; i < frac0; i++, pos += 4) {
                appendGroup(s, readBigEndian(b, pos, 4), DIGITS_PER_GROUP, true);
            }
            if (frac0x > 0) {
                appendGroup(s, readBigEndian(b, pos, DIG2BYTES[frac0x]), frac0x, true);
            }
        }
        return new BigDecimal(s.toString());
    }

    private static void appendGroup(StringBuilder s, long value, int digits, boolean pad) {
        if (value < 0 || value >= POW10[digits]) {
            throw new RowDecodeException("corrupt DECIMAL: group value " + value + " has more than " + digits + " digits");
        }
        String v = Long.toString(value);
        if (pad) {
            for (int i = v.length(); i < digits; i++) {
                s.append('0');
            }
        }
        s.append(v);
    }

    private static long readBigEndian(byte[] b, int pos, int n) {
        long v = 0;
        for (int i = 0; i < n; i++) {
            v = v << 8 | (b[pos + i] & 0xFF);
        }
        return v;
    }

    private static final long[] POW10 = {1L, 10L, 100L, 1_000L, 10_000L, 100_000L, 1_000_000L, 10_000_000L,
        100_000_000L, 1_000_000_000L};

    /**
     * Encodes one value, rounded half up to {@code scale} digits ({@code decimal2bin}).
     *
     * @throws IllegalArgumentException when it has more than {@code precision - scale} integer digits
     */
    public static byte[] encode(BigDecimal value, int precision, int scale) {
        BigDecimal v = value.setScale(scale, java.math.RoundingMode.HALF_UP);
        String digits = v.unscaledValue().abs().toString();
        if (digits.length() > precision) {
            throw new IllegalArgumentException(value + " is out of range for decimal(" + precision + "," + scale + ")");
        }
        digits = "0".repeat(precision - digits.length()) + digits;
        int intg = precision - scale;
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        int lead = intg % DIGITS_PER_GROUP;
        group(out, digits.substring(0, lead));
        for (int i = lead; i < intg; i += DIGITS_PER_GROUP) {
            group(out, digits.substring(i, i + DIGITS_PER_GROUP));
        }
        for (int i = intg; i < precision; i += DIGITS_PER_GROUP) {
            group(out, digits.substring(i, Math.min(i + DIGITS_PER_GROUP, precision)));
        }
        byte[] b = out.toByteArray();
        if (v.signum() < 0) {
            for (int i = 0; i < b.length; i++) {
                b[i] = (byte) ~b[i];
            }
        }
        b[0] ^= (byte) 0x80;
        return b;
    }

    private static void group(java.io.ByteArrayOutputStream out, String digits) {
        if (!digits.isEmpty()) {
            long v = Long.parseLong(digits);
            for (int i = DIG2BYTES[digits.length()] - 1; i >= 0; i--) {
                out.write((int) (v >>> (8 * i)));
            }
        }
    }
}
