package io.tributary.storage.binlog;

/**
 * What a {@link GlobalBinlogWriter} has appended since it opened; monotonic, read by metrics from any thread
 * (the writer publishes a new value after each transaction and rotation).
 *
 * @param transactions global transactions appended (written, not necessarily durable yet)
 * @param events       events of those transactions (GTID, BEGIN, table maps, rows, XID; or GTID and query)
 * @param rowsEvents   of those, the row (DML) events
 * @param bytes        bytes of those transactions in the files
 * @param filesCreated files started by rotation
 */
public record WriteCounters(long transactions, long events, long rowsEvents, long bytes, long filesCreated) {

    static final WriteCounters ZERO = new WriteCounters(0, 0, 0, 0, 0);
}
