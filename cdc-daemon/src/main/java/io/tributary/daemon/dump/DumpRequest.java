package io.tributary.daemon.dump;

import io.tributary.storage.binlog.BinlogPosition;

import java.time.Duration;

/**
 * What one subscriber asked for: where to start (a file/position, or a GTID set in the flavor's text form),
 * whether to stop at the end ({@code BINLOG_DUMP_NON_BLOCK}), the checksum it understands and its heartbeat
 * period.
 *
 * @param start           file/position to start from; null when starting from {@code gtids}
 * @param gtids           MySQL GTID set ({@code uuid:1-42}) or MariaDB GTID position ({@code 0-7-42}); null for file/position
 * @param nonBlocking     send what exists, then an EOF packet
 * @param checksumAware   the client set {@code @master_binlog_checksum} to CRC32
 * @param heartbeatPeriod zero: no heartbeats
 * @param replicaServerId the server id the client sent in the dump command
 */
record DumpRequest(BinlogPosition start, String gtids, boolean nonBlocking, boolean checksumAware,
                   Duration heartbeatPeriod, long replicaServerId) {

    /** COM_BINLOG_DUMP flag: return EOF at the end instead of waiting. */
    static final int BINLOG_DUMP_NON_BLOCK = 0x01;

    @Override
    public String toString() {
        return "DumpRequest[" + (start != null ? "from " + start : "after GTIDs [" + gtids + "]")
                + (nonBlocking ? ", non-blocking" : "") + ", checksum " + (checksumAware ? "CRC32" : "NONE")
                + ", heartbeat " + heartbeatPeriod.toMillis() + " ms, replica server_id " + replicaServerId + "]";
    }
}
