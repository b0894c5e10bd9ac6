package io.tributary.core.reader;

import io.netty.buffer.ByteBuf;
import io.tributary.core.framing.Boundary;
import io.tributary.core.position.ShardPosition;

/**
 * One binlog event as a shard sent it, with the facts a consumer needs without decoding it.
 *
 * <p>{@link #bytes()} is the whole event: the 19-byte v4 header ({@code timestamp:4 type:1
 * server_id:4 event_size:4 log_pos:4 flags:2}, little-endian), the body and, when the shard's
 * format description says so, the CRC32 trailer (already verified by the reader). The buffer is
 * reference counted and owned by the receiver: call {@link #release()} once done.
 *
 * @param shard the shard's configured name
 * @param type event type code (header byte 4)
 * @param timestamp seconds since the epoch (header)
 * @param serverId the server that wrote the event (header)
 * @param eventSize total length in bytes, equal to {@code bytes().readableBytes()}
 * @param logPos end offset of the event in its binlog file (header; 0 for artificial events)
 * @param flags header flags ({@code 0x20} = artificial, e.g. the fake ROTATE at stream start)
 * @param hasChecksum whether the last 4 bytes are a CRC32 trailer
 * @param position where the shard's binlog stands after this event
 * @param restartPosition where a reader resumes after this event: equal to {@code position} at a
 *        transaction end or outside transactions, the last transaction end inside one
 * @param transactionStart whether this event opens a transaction (a GTID event, BEGIN outside a transaction, a
 *        DDL outside one, which also ends it), as the reader's framer found it
 * @param transactionEnd whether this event ends a transaction (XID, COMMIT, a DDL, XA PREPARE, XA COMMIT)
 * @param boundary what the event is to transaction framing, as the reader's
 *        {@link io.tributary.core.framing.TransactionFramer} found it; {@code null} for an event that
 *        did not come through a reader (its consumer frames it itself)
 */
public record ShardEvent(String shard, int type, long timestamp, long serverId, long eventSize, long logPos,
                         int flags, boolean hasChecksum, ShardPosition position, ShardPosition restartPosition,
                         boolean transactionStart, boolean transactionEnd, ByteBuf bytes, Boundary boundary) {

    /**
     * An event that did not come through a reader's framer (tests, benchmarks): no {@link #boundary()}, and
     * {@link #transactionStart()} false; its consumer frames it itself.
     */
    public ShardEvent(String shard, int type, long timestamp, long serverId, long eventSize, long logPos,
            int flags, boolean hasChecksum, ShardPosition position, ShardPosition restartPosition,
            boolean transactionEnd, ByteBuf bytes) {
        this(shard, type, timestamp, serverId, eventSize, logPos, flags, hasChecksum, position, restartPosition,
                false, transactionEnd, bytes, null);
    }

    /** Header flag {@code LOG_EVENT_ARTIFICIAL_F}. */
    public static final int ARTIFICIAL_FLAG = 0x20;

    public boolean artificial() {
        return (flags & ARTIFICIAL_FLAG) != 0;
    }

    /** A copy of the event bytes, for consumers that keep events on the heap. */
    public byte[] toByteArray() {
        byte[] b = new byte[bytes.readableBytes()];
        bytes.getBytes(bytes.readerIndex(), b);
        return b;
    }

    /** Releases the event bytes. */
    public void release() {
        bytes.release();
    }

    @Override
    public String toString() {
        return "ShardEvent[shard=" + shard + ", type=" + type + ", size=" + eventSize + ", logPos=" + logPos
                + ", serverId=" + serverId + ", ts=" + timestamp + (artificial() ? ", artificial" : "")
                + (transactionEnd ? ", txnEnd" : "") + ", position=" + position + ", restart=" + restartPosition + "]";
    }
}
