package io.tributary.core.event;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * One event read from a binlog stream: its header, where it came from, its raw bytes and (unless the
 * decoder runs headers-only) its decoded body.
 *
 * <p>The raw bytes are {@code buffer[bufferOffset, bufferOffset + length)}: header, body and checksum
 * trailer exactly as they will be relayed. For a top-level event that is a slice of the source; for an
 * event expanded from a TRANSACTION_PAYLOAD it is a slice of the decompressed payload (no trailer); for
 * an expanded MariaDB compressed event it is a rebuilt uncompressed event with a fresh CRC. The buffer is
 * shared, never copied: callers must not modify it.
 *
 * @param header           the header (type and size of the expanded event)
 * @param offset           offset of the event in the source; for expanded payload events, the payload event's
 * @param innerOffset      offset inside the decompressed payload, or -1 for a top-level event
 * @param originalTypeCode type code as found in the source (differs after expansion or pre-GA remapping)
 * @param buffer           buffer holding the raw bytes
 * @param bufferOffset     start of the raw bytes in {@code buffer}
 * @param length           raw length (equals {@code header.eventSize()})
 * @param checksumLength   4 when the raw bytes end with a CRC32, else 0
 * @param body             decoded body, or {@code null} in headers-only mode
 */
public record BinlogEvent(EventHeader header, long offset, int innerOffset, int originalTypeCode, byte[] buffer,
        int bufferOffset, int length, int checksumLength, EventBody body) {

    /** The known type, or {@code null} for a vendor type passed through as ignorable. */
    public EventType type() {
        return header.type();
    }

    /** Whether this event came out of a TRANSACTION_PAYLOAD. */
    public boolean isFromPayload() {
        return innerOffset >= 0;
    }

    /** A copy of the raw event bytes. */
    public byte[] rawBytes() {
        return Arrays.copyOfRange(buffer, bufferOffset, bufferOffset + length);
    }

    /** A read-only view of the raw event bytes, without copying. */
    public ByteBuffer raw() {
        return ByteBuffer.wrap(buffer, bufferOffset, length).slice().asReadOnlyBuffer();
    }

    /** The body as the given type; fails if the body is of another type or was not decoded. */
    public <T extends EventBody> T body(Class<T> type) {
        if (!type.isInstance(body)) {
            throw new IllegalStateException("event at offset " + offset + " is " + EventType.nameOf(header.typeCode())
                    + " with body " + (body == null ? "not decoded" : body.getClass().getSimpleName()) + ", not "
                    + type.getSimpleName());
        }
        return type.cast(body);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BinlogEvent e && offset == e.offset && innerOffset == e.innerOffset && header.equals(e.header)
                && raw().equals(e.raw());
    }

    @Override
    public int hashCode() {
        return Long.hashCode(offset) * 31 + innerOffset;
    }

    @Override
    public String toString() {
        return "BinlogEvent[" + EventType.nameOf(header.typeCode()) + " at " + offset
                + (innerOffset >= 0 ? "+" + innerOffset : "")
                + (originalTypeCode != header.typeCode() ? " (was " + EventType.nameOf(originalTypeCode) + ")" : "")
                + ", " + length + " bytes, serverId=" + header.serverId() + ", logPos=" + header.logPos()
                + (body == null ? "" : ", " + body) + "]";
    }
}
