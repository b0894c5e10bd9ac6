package io.tributary.core.event;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * An XA transaction id: format id, global transaction id and branch qualifier (each at most 64 bytes).
 * {@link #toString()} prints it the way the servers do in {@code XA COMMIT X'..',X'..',n}.
 */
public record XaXid(long formatId, byte[] gtrid, byte[] bqual) {

    static final int MAX_PART = 64;

    public XaXid {
        gtrid = gtrid.clone();
        bqual = bqual.clone();
    }

    @Override
    public byte[] gtrid() {
        return gtrid.clone();
    }

    @Override
    public byte[] bqual() {
        return bqual.clone();
    }

    static XaXid read(EventReader r, long formatId, int gtridLength, int bqualLength) {
        if (gtridLength > MAX_PART || bqualLength > MAX_PART) {
            throw new MalformedEventException("XA xid: gtrid and bqual lengths must be at most 64, found "
                    + gtridLength + " and " + bqualLength);
        }
        return new XaXid(formatId, r.bytes(gtridLength, "XA gtrid"), r.bytes(bqualLength, "XA bqual"));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof XaXid x && formatId == x.formatId && Arrays.equals(gtrid, x.gtrid) && Arrays.equals(bqual, x.bqual);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(gtrid) * 31 + Arrays.hashCode(bqual) + Long.hashCode(formatId);
    }

    /**
     * The xid as people read it: each part quoted when its bytes are printable ASCII ({@code 'tx-42','branch-0',1}),
     * in hex otherwise ({@code X'00ff',X'',1}). For logs; {@link #toString()} keeps the servers' hex form.
     */
    public String text() {
        return text(gtrid) + "," + text(bqual) + "," + formatId;
    }

    /** One part of an xid as people read it: {@code 'tx-42'} when printable ASCII, else {@code X'00ff'}. */
    public static String text(byte[] part) {
        for (byte b : part) {
            if (b < 0x20 || b > 0x7e) {
                return "X'" + HexFormat.of().formatHex(part) + "'";
            }
        }
        return "'" + new String(part, java.nio.charset.StandardCharsets.US_ASCII).replace("'", "''") + "'";
    }

    @Override
    public String toString() {
        HexFormat hex = HexFormat.of();
        return "X'" + hex.formatHex(gtrid) + "',X'" + hex.formatHex(bqual) + "'," + formatId;
    }
}
