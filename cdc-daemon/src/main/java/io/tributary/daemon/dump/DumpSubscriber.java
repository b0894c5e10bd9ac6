package io.tributary.daemon.dump;

import io.tributary.storage.binlog.BinlogPosition;
import java.time.Instant;

/**
 * One connection receiving the global binlog, as the status page shows it: a snapshot, read without stopping the
 * subscriber's streamer (its position is the one it published with its last batch, at most 64 KB old).
 *
 * @param connectionId  the connection id (as {@code KILL} and the dump server's log lines name it)
 * @param user          the account it logged in with
 * @param remoteAddress the client's {@code host:port}
 * @param connectedSince when it logged in
 * @param request       what it asked for (start position or GTID set, heartbeat, checksum)
 * @param sentPosition  the global binlog position up to which events were handed to its connection
 * @param sentSequence  the GTID sequence number of the last transaction started in what was sent; 0 before the first
 * @param behindBytes   bytes of the global binlog from {@code sentPosition} to the durable end; null when unknown (no
 *                      position yet, or a file between was purged while looking)
 * @param behindTransactions transactions from the last one started in what was sent to the last durable one; null
 *                      before the first one was sent
 * @param queuedBytes   bytes queued in memory for it (Netty's outbound buffer), at most {@code dump.subscriber.buffer}
 */
public record DumpSubscriber(long connectionId, String user, String remoteAddress, Instant connectedSince,
        String request, BinlogPosition sentPosition, long sentSequence, Long behindBytes, Long behindTransactions,
        long queuedBytes) {
}
