package io.tributary.core.event;

/**
 * MySQL XA_PREPARE_LOG_EVENT (38): ends the prepared part of an XA transaction.
 * Body: {@code one_phase(1) format_id(4) gtrid_length(4) bqual_length(4) gtrid bqual}.
 *
 * @param onePhase true for {@code XA COMMIT ... ONE PHASE}
 * @param xid      the XA transaction id
 */
public record XaPrepareEvent(boolean onePhase, XaXid xid) implements EventBody {

    static XaPrepareEvent read(EventReader r) {
        boolean onePhase = r.u8("one_phase") != 0;
        long formatId = r.u32("XA format id");
        long gtridLength = r.u32("XA gtrid length");
        long bqualLength = r.u32("XA bqual length");
        if (gtridLength > XaXid.MAX_PART || bqualLength > XaXid.MAX_PART) {
            throw new MalformedEventException("XA xid: gtrid and bqual lengths must be at most 64, found "
                    + gtridLength + " and " + bqualLength);
        }
        return new XaPrepareEvent(onePhase, XaXid.read(r, formatId, (int) gtridLength, (int) bqualLength));
    }
}
