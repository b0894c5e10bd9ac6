package io.tributary.core.event;

/**
 * MariaDB GTID_EVENT (162): starts an event group. Body: {@code seq_no(8) domain_id(4) flags2(1)}, then
 * {@code commit_id(8)} if {@link #FL_GROUP_COMMIT_ID}, then {@code format_id(4) gtrid_length(1)
 * bqual_length(1) data} if {@link #FL_PREPARED_XA} or {@link #FL_COMPLETED_XA}; the server id is the
 * header's.
 *
 * @param domainId replication domain
 * @param serverId server id from the event header
 * @param sequence sequence number within the domain
 * @param flags    {@code FL_*} flags
 * @param commitId group commit id, or 0
 * @param xid      the XA xid when the group is an XA PREPARE or XA COMMIT/ROLLBACK, else null
 */
public record MariaGtidEvent(long domainId, long serverId, long sequence, int flags, long commitId, XaXid xid)
        implements EventBody {

    public static final int FL_STANDALONE = 0x01;
    public static final int FL_GROUP_COMMIT_ID = 0x02;
    public static final int FL_TRANSACTIONAL = 0x04;
    /** The group holds a DDL statement (with its rows, for {@code CREATE TABLE ... SELECT}). */
    public static final int FL_DDL = 0x20;
    public static final int FL_PREPARED_XA = 0x40;
    public static final int FL_COMPLETED_XA = 0x80;

    /** The GTID as MariaDB prints it: {@code domain-server-sequence}. */
    public String gtid() {
        return domainId + "-" + serverId + "-" + sequence;
    }

    static MariaGtidEvent read(EventReader r, EventHeader header) {
        long sequence = r.u64("gtid seq_no");
        long domain = r.u32("gtid domain_id");
        int flags = r.u8("gtid flags2");
        long commitId = 0;
        XaXid xid = null;
        if ((flags & FL_GROUP_COMMIT_ID) != 0) {
            commitId = r.u64("commit_id");
        }
        if ((flags & (FL_PREPARED_XA | FL_COMPLETED_XA)) != 0) {
            long formatId = r.u32("XA format id");
            int gtridLength = r.u8("XA gtrid length");
            int bqualLength = r.u8("XA bqual length");
            xid = XaXid.read(r, formatId, gtridLength, bqualLength);
        }
        return new MariaGtidEvent(domain, header.serverId(), sequence, flags, commitId, xid);
    }
}
