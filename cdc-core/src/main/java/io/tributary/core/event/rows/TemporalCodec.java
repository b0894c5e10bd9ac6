package io.tributary.core.event.rows;

import java.time.Instant;

/**
 * MySQL's temporal storage formats ({@code mysys/my_time.cc}, {@code sql-common/my_time.cc}).
 *
 * <ul>
 *   <li>DATETIME2: 5 bytes big-endian, value minus {@code 0x8000000000} =
 *       {@code (year*13+month) << 22 | day << 17 | hour << 12 | minute << 6 | second}, then
 *       {@code (fsp+1)/2} fraction bytes, signed big-endian, in units of 10^(6-2*bytes) microseconds</li>
 *   <li>TIME2: 3 bytes big-endian minus {@code 0x800000} = signed {@code hour << 12 | minute << 6 | second},
 *       then the fraction as above; for negative values with a fraction the integer part is stored one
 *       higher and the fraction as its complement; fsp 5-6 store all 6 bytes as one packed value minus
 *       {@code 0x800000000000}</li>
 *   <li>TIMESTAMP2: 4 bytes big-endian seconds since the epoch, then the fraction</li>
 *   <li>DATE / NEWDATE: 3 bytes little-endian {@code year << 9 | month << 5 | day}</li>
 *   <li>old DATETIME: 8 bytes little-endian {@code YYYYMMDDhhmmss}; old TIME: 3 bytes little-endian signed
 *       {@code [-]HHMMSS}; old TIMESTAMP: 4 bytes little-endian seconds</li>
 *   <li>the packed in-memory form used inside binary JSON ({@code TIME_to_longlong_*_packed}):
 *       {@code int part << 24 | microseconds}, negated for negative TIME</li>
 * </ul>
 * Stateless and thread-safe.
 */
public final class TemporalCodec {
    private static final long DATETIMEF_INT_OFS = 0x8000000000L;
    private static final long TIMEF_INT_OFS = 0x800000L;
    private static final long TIMEF_OFS = 0x800000000000L;

    private TemporalCodec() {
    }

    /** Fraction bytes for a precision 0-6. */
    public static int fractionBytes(int fsp) {
        return (fsp + 1) / 2;
    }

    public static MysqlDateTime datetime2(byte[] b, int off, int fsp) {
        long intPart = be(b, off, 5) - DATETIMEF_INT_OFS;
        long frac = switch (fractionBytes(fsp)) {
            case 1 -> b[off + 5] * 10000L;
            case 2 -> (long) (short) be(b, off + 5, 2) * 100L;
            case 3 -> signExtend(be(b, off + 5, 3), 24);
            default -> 0L;
        };
        return datetimeFromPacked((intPart << 24) + frac);
    }

    public static MysqlTime time2(byte[] b, int off, int fsp) {
        long packed;
        switch (fractionBytes(fsp)) {
            case 1 -> {
                long intPart = be(b, off, 3) - TIMEF_INT_OFS;
                long frac = b[off + 3] & 0xFF;
                if (intPart < 0 && frac != 0) {
                    intPart++;
                    frac -= 0x100;
                }
                packed = (intPart << 24) + frac * 10000L;
            }
            case 2 -> {
                long intPart = be(b, off, 3) - TIMEF_INT_OFS;
                long frac = be(b, off + 3, 2);
                if (intPart < 0 && frac != 0) {
                    intPart++;
                    frac -= 0x10000;
                }
                packed = (intPart << 24) + frac * 100L;
            }
            case 3 -> packed = be(b, off, 6) - TIMEF_OFS;
            default -> packed = (be(b, off, 3) - TIMEF_INT_OFS) << 24;
        }
        return timeFromPacked(packed);
    }

    public static Instant timestamp2(byte[] b, int off, int fsp) {
        long seconds = be(b, off, 4);
        long micros = switch (fractionBytes(fsp)) {
            case 1 -> (b[off + 4] & 0xFF) * 10000L;
            case 2 -> be(b, off + 4, 2) * 100L;
            case 3 -> be(b, off + 4, 3);
            default -> 0L;
        };
        return Instant.ofEpochSecond(seconds, micros * 1000L);
    }

    public static MysqlDateTime date(byte[] b, int off) {
        int v = (b[off] & 0xFF) | (b[off + 1] & 0xFF) << 8 | (b[off + 2] & 0xFF) << 16;
        return MysqlDateTime.ofDate(v >>> 9, (v >>> 5) & 15, v & 31);
    }

    public static MysqlDateTime oldDatetime(long yyyymmddhhmmss) {
        long d = yyyymmddhhmmss / 1_000_000L;
        long t = yyyymmddhhmmss % 1_000_000L;
        return new MysqlDateTime((int) (d / 10000), (int) (d % 10000 / 100), (int) (d % 100),
                (int) (t / 10000), (int) (t % 10000 / 100), (int) (t % 100), 0);
    }

    public static MysqlTime oldTime(int hhmmss) {
        int v = Math.abs(hhmmss);
        return new MysqlTime(hhmmss < 0, v / 10000, v % 10000 / 100, v % 100, 0);
    }

    /** A packed DATETIME/DATE/TIMESTAMP ({@code TIME_from_longlong_datetime_packed}). */
    public static MysqlDateTime datetimeFromPacked(long packed) {
        long tmp = Math.abs(packed);
        int micros = (int) (tmp % (1L << 24));
        long ymdhms = tmp >> 24;
        long ymd = ymdhms >> 17;
        long ym = ymd >> 5;
        long hms = ymdhms % (1L << 17);
        return new MysqlDateTime((int) (ym / 13), (int) (ym % 13), (int) (ymd % (1 << 5)),
                (int) (hms >> 12), (int) ((hms >> 6) % (1 << 6)), (int) (hms % (1 << 6)), micros);
    }

    /** A packed TIME ({@code TIME_from_longlong_time_packed}). */
    public static MysqlTime timeFromPacked(long packed) {
        boolean negative = packed < 0;
        long tmp = Math.abs(packed);
        long hms = tmp >> 24;
        return new MysqlTime(negative, (int) ((hms >> 12) % (1 << 10)), (int) ((hms >> 6) % (1 << 6)),
                (int) (hms % (1 << 6)), (int) (tmp % (1L << 24)));
    }

    static long be(byte[] b, int off, int n) {
        long v = 0;
        for (int i = 0; i < n; i++) {
            v = v << 8 | (b[off + i] & 0xFF);
        }
        return v;
    }

    private static long signExtend(long v, int bits) {
        return v << (64 - bits) >> (64 - bits);
    }
}
