package io.tributary.core.event;

/**
 * XID_EVENT (16): commit of a transaction on a transactional engine; body {@code xid(8)}.
 *
 * @param xid the server's internal transaction id (unique within one server run)
 */
public record XidEvent(long xid) implements EventBody {

    static XidEvent read(EventReader r) {
        return new XidEvent(r.u64("xid"));
    }
}
