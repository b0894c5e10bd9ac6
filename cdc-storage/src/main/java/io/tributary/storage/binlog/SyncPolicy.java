package io.tributary.storage.binlog;

/**
 * When written binlog bytes become durable, and therefore visible to subscribers ({@code binlog.sync}).
 */
public enum SyncPolicy {
    /**
     * fsync before a transaction counts as durable. Transactions written while an fsync is running are
     * covered together by the next one (group commit).
     */
    COMMIT,
    /** fsync every {@code binlog.sync.interval}; a crash of the machine loses at most that much. */
    INTERVAL,
    /**
     * Never fsync: bytes count as durable once handed to the operating system. Survives {@code kill -9}
     * of the daemon, not a crash of the machine.
     */
    NONE
}
