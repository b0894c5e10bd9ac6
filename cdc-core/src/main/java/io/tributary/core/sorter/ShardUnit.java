package io.tributary.core.sorter;

import io.tributary.core.event.XaXid;
import io.tributary.core.position.ShardPosition;
import java.util.Objects;

/**
 * One complete unit of a shard's binlog as the {@link GlobalSorter} sees it: a committed transaction, a
 * prepared XA branch, the commit or rollback of one, or a heartbeat. Units of one shard are offered in
 * binlog order.
 *
 * @param shard            shard index (0-based, the configuration order; it breaks ties)
 * @param sequence         strictly increasing within the shard (e.g. the offset of the unit's first event)
 * @param kind             what the unit is
 * @param commitTimeMicros commit time in microseconds since the epoch (MySQL 8 GTID commit timestamp, else
 *                         the event header's seconds x 10^6); for heartbeats, ignored
 * @param xid              the XA branch, for {@link Kind#XA_PREPARE}, {@link Kind#XA_COMMIT} and
 *                         {@link Kind#XA_ROLLBACK}; else {@code null}
 * @param heartbeat        the heartbeat value (milliseconds, strictly increasing), for {@link Kind#HEARTBEAT}
 * @param key              the unit's identity in its shard for checkpoints: shard GTID or {@code file:position}
 * @param start            position of the unit's first event (where a reader resumes to read it again)
 * @param end              position just after the unit
 * @param payload          what the merger needs to write it (buffered events), or {@code null}
 * @param <P>              payload type
 */
public record ShardUnit<P>(int shard, long sequence, Kind kind, long commitTimeMicros, XaXid xid, long heartbeat,
        String key, ShardPosition start, ShardPosition end, P payload) {

    /** What a unit is. */
    public enum Kind {
        /** A committed transaction: DML, DDL, or an XA transaction committed in one phase. */
        TRANSACTION,
        /** The prepared part of an XA branch (XA START ... XA PREPARE); it waits for its commit. */
        XA_PREPARE,
        /** {@code XA COMMIT} of a prepared branch: the branch's place in its shard's commit order. */
        XA_COMMIT,
        /** {@code XA ROLLBACK} of a prepared branch: the branch never appears. */
        XA_ROLLBACK,
        /** A heartbeat row: a cut across all shards; consumed, never written. */
        HEARTBEAT
    }

    public ShardUnit {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(start, "start");
        Objects.requireNonNull(end, "end");
        boolean xa = kind == Kind.XA_PREPARE || kind == Kind.XA_COMMIT || kind == Kind.XA_ROLLBACK;
        if (xa != (xid != null)) {
            throw new IllegalArgumentException(kind + " unit " + key + (xa ? " needs" : " cannot have") + " an XA xid");
        }
    }

    /**
     * A {@link #gtrid()} as people read it: {@code 'tx-42'} when its bytes are printable ASCII, else
     * {@code X'00ff'}; the format id follows when it is not MySQL's default 1.
     */
    public static String gtridText(String gtrid) {
        int colon = gtrid.indexOf(':');
        String text = io.tributary.core.event.XaXid.text(java.util.HexFormat.of().parseHex(gtrid.substring(colon + 1)));
        String formatId = gtrid.substring(0, colon);
        return formatId.equals("1") ? text : text + " (format " + formatId + ")";
    }

    /** The global transaction id the branch belongs to: format id and gtrid, as the servers print them. */
    public String gtrid() {
        return xid == null ? null : xid.formatId() + ":" + java.util.HexFormat.of().formatHex(xid.gtrid());
    }

    @Override
    public String toString() {
        return "shard " + shard + " " + kind + " " + key + (xid == null ? "" : " " + xid)
                + (kind == Kind.HEARTBEAT ? " hb=" + heartbeat : " ts=" + commitTimeMicros) + " @" + start;
    }
}
