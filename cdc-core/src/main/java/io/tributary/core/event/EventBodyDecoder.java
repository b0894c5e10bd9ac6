package io.tributary.core.event;

/**
 * Decodes one event body by type, reading only within {@code [bodyOffset, bodyOffset + bodyLength)}
 * (checksum trailer excluded). Stateless; every method is thread-safe.
 */
final class EventBodyDecoder {

    private EventBodyDecoder() {
    }

    static EventBody decode(EventHeader header, byte[] buf, int eventOffset, int bodyLength, FormatDescription fde) {
        EventType type = header.type();
        EventReader r = new EventReader(buf, eventOffset + fde.headerLength(), bodyLength);
        if (type == null) {
            return new OpaqueEvent();
        }
        int postHeader = fde.postHeaderLength(type.code());
        switch (type) {
            case QUERY:
            case EXECUTE_LOAD_QUERY:
                return QueryEvent.read(r, postHeader == 0 ? 13 : postHeader);
            case ROTATE:
                return RotateEvent.read(r, postHeader);
            case STOP:
                return new StopEvent();
            case XID:
                return XidEvent.read(r);
            case INTVAR:
                return IntVarEvent.read(r);
            case RAND:
                return RandEvent.read(r);
            case USER_VAR:
                return UserVarEvent.read(r);
            case INCIDENT:
                return IncidentEvent.read(r);
            case ROWS_QUERY:
                return RowsQueryEvent.readRowsQuery(r);
            case ANNOTATE_ROWS:
                return RowsQueryEvent.readAnnotateRows(r);
            case BINLOG_CHECKPOINT:
                return BinlogCheckpointEvent.read(r);
            case HEARTBEAT:
                return HeartbeatEvent.readV1(r, header);
            case HEARTBEAT_V2:
                return HeartbeatEvent.readV2(r);
            case GTID:
            case ANONYMOUS_GTID:
                return GtidEvent.readUntagged(r);
            case GTID_TAGGED:
                return GtidEvent.readTagged(r);
            case PREVIOUS_GTIDS:
                return PreviousGtidsEvent.read(r);
            case MARIA_GTID:
                return MariaGtidEvent.read(r, header);
            case GTID_LIST:
                return GtidListEvent.read(r);
            case XA_PREPARE_LOG:
                return XaPrepareEvent.read(r);
            case TABLE_MAP:
                return TableMapEvent.read(r, postHeader, fde.isMariaDb());
            case TRANSACTION_PAYLOAD:
                return TransactionPayloadEvent.read(r);
            case FORMAT_DESCRIPTION:
                return FormatDescription.parse(buf, eventOffset + EventHeader.LENGTH, bodyLength
                        + fde.headerLength() - EventHeader.LENGTH);
            default:
                if (type.isRows() && !type.isMariaCompressed()) {
                    return RowsEvent.read(r, type, postHeader);
                }
                return new OpaqueEvent();
        }
    }
}
