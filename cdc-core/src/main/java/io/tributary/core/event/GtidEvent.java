package io.tributary.core.event;

import java.util.UUID;

/**
 * MySQL GTID (33), ANONYMOUS_GTID (34) and GTID_TAGGED (42): the start of a transaction.
 *
 * <p>Untagged layout: {@code flags(1) sid(16) gno(8)} (5.6), then {@code lt_type(1)=2 last_committed(8)
 * sequence_number(8)} (5.7), then {@code immediate_commit_timestamp(7)} whose bit 55 says
 * {@code original_commit_timestamp(7)} follows, {@code transaction_length(packed)},
 * {@code immediate_server_version(4)} whose bit 31 says {@code original_server_version(4)} follows (8.0).
 * Tagged layout (8.3+): the MySQL serialization library format, {@code version(1) payload_size(varlen)
 * last_non_ignorable_field_id(varlen)} then {@code field_id(varlen) value} pairs.
 *
 * <p>Fields a server version does not write are {@code null} (boxed) or -1 (primitives).
 *
 * @param flags                    1 = may contain statement-based changes
 * @param sid                      source UUID (all zeros for anonymous GTIDs)
 * @param gno                      transaction number (0 for anonymous GTIDs)
 * @param tag                      GTID tag, {@code null} when untagged
 * @param lastCommitted            logical clock: commit parent, -1 before 5.7
 * @param sequenceNumber           logical clock: this transaction, -1 before 5.7
 * @param immediateCommitTimestamp microseconds since the epoch on the immediate source, or null
 * @param originalCommitTimestamp  microseconds since the epoch on the originating source, or null
 * @param transactionLength        bytes of the whole transaction including this event, or null
 * @param immediateServerVersion   e.g. 80032, or null
 * @param originalServerVersion    e.g. 80032, or null
 */
public record GtidEvent(int flags, UUID sid, long gno, String tag, long lastCommitted, long sequenceNumber,
        Long immediateCommitTimestamp, Long originalCommitTimestamp, Long transactionLength,
        Integer immediateServerVersion, Integer originalServerVersion) implements EventBody {

    private static final int LOGICAL_TIMESTAMP_TYPECODE = 2;
    private static final long COMMIT_TS_ORIGINAL_BIT = 1L << 55;
    private static final long SERVER_VERSION_ORIGINAL_BIT = 1L << 31;

    /** The GTID as MySQL prints it: {@code uuid:gno} or {@code uuid:tag:gno}. */
    public String gtid() {
        return sid + (tag == null ? "" : ":" + tag) + ":" + gno;
    }

    static GtidEvent readUntagged(EventReader r) {
        int flags = r.u8("gtid flags");
        UUID sid = r.uuid("gtid sid");
        long gno = r.u64("gtid gno");
        long lastCommitted = -1;
        long sequenceNumber = -1;
        Long immediate = null;
        Long original = null;
        Long length = null;
        Integer immediateVersion = null;
        Integer originalVersion = null;
        if (r.hasRemaining() && r.peek("lt_type") == LOGICAL_TIMESTAMP_TYPECODE) {
            r.u8("lt_type");
            lastCommitted = r.u64("last_committed");
            sequenceNumber = r.u64("sequence_number");
            if (r.remaining() >= 7) {
                long ts = r.uN(7, "immediate_commit_timestamp");
                if ((ts & COMMIT_TS_ORIGINAL_BIT) != 0) {
                    immediate = ts & ~COMMIT_TS_ORIGINAL_BIT;
                    original = r.uN(7, "original_commit_timestamp");
                } else {
                    immediate = ts;
                    original = ts;
                }
                if (r.hasRemaining()) {
                    length = r.packed("transaction_length");
                }
                if (r.remaining() >= 4) {
                    long v = r.u32("immediate_server_version");
                    if ((v & SERVER_VERSION_ORIGINAL_BIT) != 0) {
                        immediateVersion = (int) (v & ~SERVER_VERSION_ORIGINAL_BIT);
                        originalVersion = (int) r.u32("original_server_version");
                    } else {
                        immediateVersion = (int) v;
                        originalVersion = (int) v;
                    }
                }
            }
        }
        return new GtidEvent(flags, sid, gno, null, lastCommitted, sequenceNumber, immediate, original, length,
                immediateVersion, originalVersion);
    }

    static GtidEvent readTagged(EventReader r) {
        int start = r.position();
        int version = r.u8("serialization format version");
        if (version < 1) {
            throw new MalformedEventException("tagged GTID: unsupported serialization format version " + version);
        }
        long payloadSize = r.varlen("payload_size");
        long lastNonIgnorable = r.varlen("last_non_ignorable_field_id");
        long fieldsLength = payloadSize - (r.position() - start);
        if (fieldsLength < 0) {
            throw new MalformedEventException("tagged GTID: payload_size " + payloadSize + " is smaller than its envelope");
        }
        EventReader f = r.slice(fieldsLength, "tagged GTID fields");
        int flags = 0;
        UUID sid = new UUID(0, 0);
        long gno = 0;
        String tag = null;
        long lastCommitted = 0;
        long sequenceNumber = 0;
        Long immediate = null;
        Long original = null;
        Long length = null;
        Integer immediateVersion = null;
        Integer originalVersion = null;
        while (f.hasRemaining()) {
            long id = f.varlen("field id");
            switch ((int) id) {
                case 0 -> flags = (int) f.varlen("gtid_flags");
                case 1 -> sid = readSerializedUuid(f);
                case 2 -> gno = f.varlenSigned("gno");
                case 3 -> tag = f.string(f.varlen("tag length"), "tag");
                case 4 -> lastCommitted = f.varlenSigned("last_committed");
                case 5 -> sequenceNumber = f.varlenSigned("sequence_number");
                case 6 -> immediate = f.varlen("immediate_commit_timestamp");
                case 7 -> original = f.varlen("original_commit_timestamp");
                case 8 -> length = f.varlen("transaction_length");
                case 9 -> immediateVersion = (int) f.varlen("immediate_server_version");
                case 10 -> originalVersion = (int) f.varlen("original_server_version");
                case 11 -> f.varlen("commit_group_ticket");
                default -> {
                    if (id <= lastNonIgnorable) {
                        throw new MalformedEventException("tagged GTID: unknown non-ignorable field " + id
                                + " (last non-ignorable field id is " + lastNonIgnorable + ")");
                    }
                    // An unknown ignorable field has no self-described length: nothing after it can be read.
                    f.skip(f.remaining(), "ignorable fields");
                }
            }
        }
        if (original == null) {
            original = immediate;
        }
        if (originalVersion == null) {
            originalVersion = immediateVersion;
        }
        return new GtidEvent(flags, sid, gno, tag, lastCommitted, sequenceNumber, immediate, original, length,
                immediateVersion, originalVersion);
    }

    private static UUID readSerializedUuid(EventReader f) {
        long msb = 0;
        long lsb = 0;
        for (int i = 0; i < 16; i++) {
            long b = f.varlen("sid byte");
            if (b > 0xFF) {
                throw new MalformedEventException("tagged GTID: sid byte " + i + " out of range: " + b);
            }
            if (i < 8) {
                msb = msb << 8 | b;
            } else {
                lsb = lsb << 8 | b;
            }
        }
        return new UUID(msb, lsb);
    }
}
