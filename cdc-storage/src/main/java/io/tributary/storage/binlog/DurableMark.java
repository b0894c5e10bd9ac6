package io.tributary.storage.binlog;

/**
 * The end of what is durable in the global binlog: subscribers read up to {@code position}, and
 * {@code lastSequence} is the GTID sequence number of the last durable transaction.
 */
public record DurableMark(BinlogPosition position, long lastSequence) {
    @Override
    public String toString() {
        return position + " seq=" + lastSequence;
    }
}
