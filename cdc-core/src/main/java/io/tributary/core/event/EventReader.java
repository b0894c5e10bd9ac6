package io.tributary.core.event;

import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.UUID;

/**
 * A cursor over one event body that never reads past the body's declared end. Every read names the
 * field it is reading, so that a short body fails with "{@code <field>: need 8 bytes at body offset 12,
 * 3 left}" instead of an index error.
 *
 * <p>Offsets in messages are relative to the start of the range the reader was made for. Not thread-safe.
 */
final class EventReader {

    private final byte[] buf;
    private final int start;
    private final int limit;
    private int pos;

    EventReader(byte[] buf, int offset, int length) {
        this.buf = buf;
        this.start = offset;
        this.pos = offset;
        this.limit = offset + length;
    }

    byte[] buffer() {
        return buf;
    }

    /** Absolute index of the next byte in {@link #buffer()}. */
    int absolutePosition() {
        return pos;
    }

    /** Offset of the next byte relative to the start of this reader. */
    int position() {
        return pos - start;
    }

    int remaining() {
        return limit - pos;
    }

    boolean hasRemaining() {
        return pos < limit;
    }

    void need(long n, String field) {
        if (n < 0 || n > limit - pos) {
            throw new MalformedEventException(field + ": need " + n + " bytes at body offset " + position() + ", only "
                    + remaining() + " left");
        }
    }

    int peek(String field) {
        need(1, field);
        return buf[pos] & 0xFF;
    }

    int u8(String field) {
        need(1, field);
        return buf[pos++] & 0xFF;
    }

    int u16(String field) {
        need(2, field);
        int v = Bytes.u16(buf, pos);
        pos += 2;
        return v;
    }

    long u32(String field) {
        need(4, field);
        long v = Bytes.u32(buf, pos);
        pos += 4;
        return v;
    }

    /** An unsigned little-endian integer of {@code n} (1-8) bytes; 8 bytes may come back negative. */
    long uN(int n, String field) {
        need(n, field);
        long v = Bytes.uN(buf, pos, n);
        pos += n;
        return v;
    }

    long u64(String field) {
        return uN(8, field);
    }

    /** A MySQL length-encoded integer ({@code net_field_length}): 1, 3, 4 or 9 bytes. */
    long packed(String field) {
        int first = u8(field);
        if (first < 251) {
            return first;
        }
        switch (first) {
            case 252: return uN(2, field);
            case 253: return uN(3, field);
            case 254: return uN(8, field);
            default:
                throw new MalformedEventException(field + ": invalid length-encoded integer prefix 0x"
                        + Integer.toHexString(first) + " at body offset " + (position() - 1));
        }
    }

    /**
     * A length-encoded column count followed by one or more bitmaps of one bit per column: the first bitmap
     * must fit what is left. (A count of columns, not of bytes: a rows event of a wide table whose row is
     * mostly NULL has fewer bytes left than columns.)
     */
    int columnCount(String field) {
        long v = packed(field);
        if (v > 8L * remaining()) {
            throw new MalformedEventException(field + ": " + v + " columns need a " + (v + 7) / 8
                    + "-byte bitmap at body offset " + position() + ", only " + remaining() + " bytes left");
        }
        return (int) v;
    }

    /** A length-encoded integer that is used as a length or count: must fit what is left. */
    int packedLength(String field) {
        long v = packed(field);
        if (v > remaining()) {
            throw new MalformedEventException(field + ": length " + v + " at body offset " + position()
                    + " exceeds the " + remaining() + " bytes left");
        }
        return (int) v;
    }

    /**
     * An unsigned integer in the MySQL serialization library's variable-length format: the count of
     * trailing one bits in the first byte, plus one, is the byte count; the value is the little-endian
     * number shifted right by that count; a first byte of 0xFF is followed by 8 raw bytes.
     */
    long varlen(String field) {
        int first = peek(field);
        int n = Integer.numberOfTrailingZeros(~first) + 1;
        if (n > 8) {
            pos++;
            return uN(8, field);
        }
        long v = uN(n, field);
        return v >>> n;
    }

    /** A zig-zag signed value in the serialization library's variable-length format. */
    long varlenSigned(String field) {
        long u = varlen(field);
        return (u & 1) == 0 ? u >>> 1 : -(u >>> 1) - 1;
    }

    byte[] bytes(long n, String field) {
        need(n, field);
        byte[] out = new byte[(int) n];
        System.arraycopy(buf, pos, out, 0, (int) n);
        pos += (int) n;
        return out;
    }

    String string(long n, String field) {
        need(n, field);
        String s = new String(buf, pos, (int) n, StandardCharsets.UTF_8);
        pos += (int) n;
        return s;
    }

    /** A string running to the first NUL or to the end; the NUL is consumed. */
    String nulTerminated(String field) {
        int end = pos;
        while (end < limit && buf[end] != 0) {
            end++;
        }
        String s = new String(buf, pos, end - pos, StandardCharsets.UTF_8);
        pos = end < limit ? end + 1 : end;
        return s;
    }

    /** A fixed-size field holding a NUL-padded string. */
    String nulTerminatedFixed(int n) {
        need(n, "fixed string");
        int end = pos;
        while (end < pos + n && buf[end] != 0) {
            end++;
        }
        String s = new String(buf, pos, end - pos, StandardCharsets.UTF_8);
        pos += n;
        return s;
    }

    String rest() {
        return string(remaining(), "rest");
    }

    void skip(long n, String field) {
        need(n, field);
        pos += (int) n;
    }

    UUID uuid(String field) {
        need(16, field);
        long msb = 0;
        long lsb = 0;
        for (int i = 0; i < 8; i++) {
            msb = msb << 8 | (buf[pos + i] & 0xFF);
            lsb = lsb << 8 | (buf[pos + 8 + i] & 0xFF);
        }
        pos += 16;
        return new UUID(msb, lsb);
    }

    /** A bitmap of {@code bits} bits, least significant bit first (row event column and null bitmaps). */
    BitSet bitmapLsbFirst(int bits, String field) {
        int n = (bits + 7) / 8;
        need(n, field);
        BitSet set = new BitSet(bits);
        for (int i = 0; i < bits; i++) {
            if ((buf[pos + (i >> 3)] & (1 << (i & 7))) != 0) {
                set.set(i);
            }
        }
        pos += n;
        return set;
    }

    /** A bitmap of {@code bits} bits, most significant bit first (TABLE_MAP optional metadata). */
    BitSet bitmapMsbFirst(int bits, String field) {
        int n = (bits + 7) / 8;
        need(n, field);
        BitSet set = new BitSet(bits);
        for (int i = 0; i < bits; i++) {
            if ((buf[pos + (i >> 3)] & (0x80 >>> (i & 7))) != 0) {
                set.set(i);
            }
        }
        pos += n;
        return set;
    }

    /** A reader over the next {@code n} bytes; this reader moves past them. */
    EventReader slice(long n, String field) {
        need(n, field);
        EventReader r = new EventReader(buf, pos, (int) n);
        pos += (int) n;
        return r;
    }
}
