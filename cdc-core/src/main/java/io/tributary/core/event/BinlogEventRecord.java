package io.tributary.core.event;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A {@link BinlogEvent} as a self-contained byte record, so that an event can leave the heap (the
 * transaction buffer's spill store) and come back equal: same header, provenance and raw bytes, and the
 * body decoded again when it was decoded before.
 *
 * <p>Format, little-endian: {@code offset(8) innerOffset(4) originalTypeCode(1) typeCode(1)
 * checksumLength(1) decoded(1) length(4) raw[length]}, that is {@link #OVERHEAD} bytes plus the raw event.
 * {@code typeCode} is the canonical type of the header (it differs from the raw byte for pre-GA servers
 * and expanded events). Records are concatenated freely; {@link #recordLength} tells where the next one
 * starts.
 *
 * <p>Stateless and thread-safe.
 */
public final class BinlogEventRecord {

    /** Bytes a record adds to the raw event. */
    public static final int OVERHEAD = 8 + 4 + 1 + 1 + 1 + 1 + 4;

    private static final int LENGTH_AT = 16;

    private BinlogEventRecord() {
    }

    /** Bytes {@link #write} needs for {@code event}. */
    public static int sizeOf(BinlogEvent event) {
        return OVERHEAD + event.length();
    }

    /** Writes {@code event} at the buffer's position and advances it. */
    public static void write(BinlogEvent event, ByteBuffer out) {
        ByteBuffer b = out.order() == ByteOrder.LITTLE_ENDIAN ? out : out.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(event.offset());
        b.putInt(event.innerOffset());
        b.put((byte) event.originalTypeCode());
        b.put((byte) event.header().typeCode());
        b.put((byte) event.checksumLength());
        b.put((byte) (event.body() == null ? 0 : 1));
        b.putInt(event.length());
        b.put(event.buffer(), event.bufferOffset(), event.length());
        if (b != out) {
            out.position(b.position());
        }
    }

    /** Writes {@code event} into {@code out} at {@code at} ({@link #sizeOf} bytes). */
    public static void write(BinlogEvent event, byte[] out, int at) {
        writeHeader(out, at, event.offset(), event.innerOffset(), event.originalTypeCode(), event.header().typeCode(),
                event.checksumLength(), event.body() != null, event.length());
        System.arraycopy(event.buffer(), event.bufferOffset(), out, at + OVERHEAD, event.length());
    }

    /** The record's {@value #OVERHEAD} bytes before the raw event. */
    private static void writeHeader(byte[] out, int at, long offset, int innerOffset, int originalTypeCode, int typeCode,
            int checksumLength, boolean decoded, int length) {
        Bytes.putU64(out, at, offset);
        Bytes.putU32(out, at + 8, innerOffset);
        out[at + 12] = (byte) originalTypeCode;
        out[at + 13] = (byte) typeCode;
        out[at + 14] = (byte) checksumLength;
        out[at + 15] = (byte) (decoded ? 1 : 0);
        Bytes.putU32(out, at + LENGTH_AT, length);
    }

    /**
     * Writes, into {@code out} at {@code at}, the record of an event still in the bytes a shard sent: the whole
     * event {@code raw} (its readable bytes, left unread), found at {@code offset} of its binlog file, with
     * {@code typeCode} as its header says (canonical: not renumbered by an old format, not from a payload) and
     * {@code decoded} telling whether a body decoded from it is kept beside the record. The same record as
     * {@link #write(BinlogEvent, byte[], int)} gives for that event, without a heap copy of it first.
     * {@code OVERHEAD + raw.readableBytes()} bytes.
     */
    public static void write(ByteBuf raw, long offset, int typeCode, int checksumLength, boolean decoded, byte[] out,
            int at) {
        int length = raw.readableBytes();
        writeHeader(out, at, offset, -1, typeCode, typeCode, checksumLength, decoded, length);
        raw.getBytes(raw.readerIndex(), out, at + OVERHEAD, length);
    }

    /**
     * Reads the record at {@code offset} of records held in memory, whose body was kept as an object beside it
     * ({@code body}, null when it had none): nothing is decoded. The event shares {@code buf}.
     */
    public static BinlogEvent read(byte[] buf, int offset, int available, EventBody body, String source) {
        int length = recordLength(buf, offset, available, source) - OVERHEAD;
        return new BinlogEvent(header(buf, offset), Bytes.u64(buf, offset), (int) Bytes.u32(buf, offset + 8),
                buf[offset + 12] & 0xFF, buf, offset + OVERHEAD, length, buf[offset + 14] & 0xFF, body);
    }

    /** The record's event header, with the canonical type code the record keeps. */
    private static EventHeader header(byte[] buf, int offset) {
        EventHeader raw = EventHeader.parse(buf, offset + OVERHEAD);
        int typeCode = buf[offset + 13] & 0xFF;
        return raw.typeCode() == typeCode ? raw : raw.withTypeAndSize(typeCode, raw.eventSize());
    }

    /** Total length of the record starting at {@code offset}, checked against the {@code available} bytes. */
    public static int recordLength(byte[] buf, int offset, int available, String source) {
        if (available < OVERHEAD) {
            throw new IllegalArgumentException(source + ": truncated event record at " + offset + ": " + available
                    + " bytes left, the record header needs " + OVERHEAD);
        }
        long length = Bytes.u32(buf, offset + LENGTH_AT);
        if (length < EventHeader.LENGTH || OVERHEAD + length > available) {
            throw new IllegalArgumentException(source + ": bad event record at " + offset + ": declares " + length
                    + " event bytes, " + (available - OVERHEAD) + " available (a header needs " + EventHeader.LENGTH + ")");
        }
        return OVERHEAD + (int) length;
    }

    /**
     * Reads the record at {@code offset}. The event shares {@code buf} (no copy). Its body is decoded with
     * {@code fde} when it was decoded when written.
     */
    public static BinlogEvent read(byte[] buf, int offset, int available, FormatDescription fde, String source) {
        int total = recordLength(buf, offset, available, source);
        ByteBuffer b = ByteBuffer.wrap(buf, offset, total).order(ByteOrder.LITTLE_ENDIAN);
        long eventOffset = b.getLong();
        int innerOffset = b.getInt();
        int originalType = b.get() & 0xFF;
        b.get(); // the canonical type code: header() reads it
        int checksumLength = b.get() & 0xFF;
        boolean decoded = b.get() != 0;
        int length = b.getInt();
        int rawAt = offset + OVERHEAD;
        EventHeader header = header(buf, offset);
        if (header.eventSize() != length) {
            throw new IllegalArgumentException(source + ": event record at " + offset + " holds " + length
                    + " bytes but its header declares " + header.eventSize());
        }
        EventBody body = null;
        if (decoded) {
            if (header.typeCode() == EventType.FORMAT_DESCRIPTION.code()) {
                body = FormatDescription.parse(buf, rawAt + EventHeader.LENGTH, length - EventHeader.LENGTH);
            } else {
                body = EventBodyDecoder.decode(header, buf, rawAt, length - fde.headerLength() - checksumLength, fde);
            }
        }
        return new BinlogEvent(header, eventOffset, innerOffset, originalType, buf, rawAt, length, checksumLength, body);
    }
}
