package io.tributary.core.event;

/**
 * The 19-byte v4 common event header: {@code timestamp(4) type(1) server_id(4) event_size(4) log_pos(4) flags(2)},
 * all little-endian (MySQL {@code Log_event_header}).
 *
 * <p>{@code typeCode} is canonical: for the pre-GA "a_drop" servers it is the remapped code, so it may
 * differ from the byte in the raw event. {@code logPos} is the end offset of the event in the server's
 * own binlog (0 inside a TRANSACTION_PAYLOAD and for some fake events); it need not equal the offset in
 * the file being read (relay logs, excerpts).
 *
 * @param timestamp seconds since the epoch when the statement started
 * @param typeCode  event type code, see {@link EventType}
 * @param serverId  id of the server that wrote the event
 * @param eventSize total size of the event including header and checksum trailer
 * @param logPos    position after this event in the originating binlog
 * @param flags     {@code LOG_EVENT_*_F} flags
 */
public record EventHeader(long timestamp, int typeCode, long serverId, long eventSize, long logPos, int flags) {

    /** Size of the v4 common header. */
    public static final int LENGTH = 19;
    /** Set while the server still has the binlog open; FDE checksums are computed with it cleared. */
    public static final int LOG_EVENT_BINLOG_IN_USE_F = 0x1;
    /** Statement must not be preceded by {@code USE db}. */
    public static final int LOG_EVENT_SUPPRESS_USE_F = 0x8;
    /** A reader that does not know the type may skip the event. */
    public static final int LOG_EVENT_IGNORABLE_F = 0x80;

    static final int TYPE_OFFSET = 4;
    static final int SIZE_OFFSET = 9;
    static final int FLAGS_OFFSET = 17;

    /** Parses a header at {@code offset}; the caller guarantees 19 bytes are there. */
    public static EventHeader parse(byte[] buf, int offset) {
        return new EventHeader(
                Bytes.u32(buf, offset),
                buf[offset + TYPE_OFFSET] & 0xFF,
                Bytes.u32(buf, offset + 5),
                Bytes.u32(buf, offset + SIZE_OFFSET),
                Bytes.u32(buf, offset + 13),
                Bytes.u16(buf, offset + FLAGS_OFFSET));
    }

    /** The header with another type code and size (used when an event is expanded). */
    EventHeader withTypeAndSize(int newTypeCode, long newSize) {
        return new EventHeader(timestamp, newTypeCode, serverId, newSize, logPos, flags);
    }

    /** The known type, or {@code null} for a code no server defines. */
    public EventType type() {
        return EventType.ofCode(typeCode);
    }

    public boolean isIgnorable() {
        return (flags & LOG_EVENT_IGNORABLE_F) != 0;
    }

    @Override
    public String toString() {
        return "EventHeader[" + EventType.nameOf(typeCode) + ", ts=" + timestamp + ", serverId=" + serverId
                + ", size=" + eventSize + ", logPos=" + logPos + ", flags=0x" + Integer.toHexString(flags) + "]";
    }
}
