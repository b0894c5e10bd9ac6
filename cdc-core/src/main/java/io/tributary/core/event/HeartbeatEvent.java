package io.tributary.core.event;

/**
 * HEARTBEAT (27) and HEARTBEAT_V2 (41): sent by a source on an idle replication connection, never
 * written to a file. v1 carries the current file name as its body (the position is the header's
 * log_pos); v2 carries TLV fields ({@code type(packed) length(packed) value}; 1 = file name,
 * 2 = position as a packed integer, 0 = end).
 *
 * @param logFile  the source's current binlog file
 * @param position the source's current position
 */
public record HeartbeatEvent(String logFile, long position) implements EventBody {

    static HeartbeatEvent readV1(EventReader r, EventHeader header) {
        return new HeartbeatEvent(r.rest(), header.logPos());
    }

    static HeartbeatEvent readV2(EventReader r) {
        String file = "";
        long position = 0;
        while (r.hasRemaining()) {
            long type = r.packed("heartbeat field type");
            if (type == 0) {
                break;
            }
            int length = r.packedLength("heartbeat field length");
            EventReader value = r.slice(length, "heartbeat field value");
            if (type == 1) {
                file = value.rest();
            } else if (type == 2) {
                position = value.packed("heartbeat position");
            }
        }
        return new HeartbeatEvent(file, position);
    }
}
