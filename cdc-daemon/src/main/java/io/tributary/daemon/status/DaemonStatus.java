package io.tributary.daemon.status;

import java.util.List;

/**
 * What {@code GET /status.json} answers and the status page shows: one snapshot of the running daemon. Each figure
 * is read at {@code time} from the component that owns it (the pipeline, the writer, the buffer, the dump server),
 * as the health endpoint and the status line read them. Immutable.
 *
 * @param time          when the snapshot was taken (ISO-8601, UTC)
 * @param version       the daemon's version
 * @param flavor        {@code binlog.flavor}
 * @param failure       why the pipeline stopped; null while it runs
 * @param shards        one entry per configured shard, in configuration order
 * @param globalBinlog  the writer's positions
 * @param throughput    the rates of the last minutes
 * @param buffer        the transaction buffer and its spill
 * @param dump          the dump server's connections and subscribers
 */
public record DaemonStatus(String time, String version, String flavor, String failure, List<Shard> shards,
        GlobalBinlog globalBinlog, Throughput throughput, Buffer buffer, Dump dump) {

    /**
     * @param state      the reader's state: NEW, CONNECTING, STREAMING, BACKING_OFF, STOPPED, FAILED
     * @param position   where the reader is in the shard's binlog ({@code file:pos}, with the GTID set when known)
     * @param delayMs    now minus the time up to which the shard's commits are durable in the global binlog (the status
     *                   line's delay); null before the shard's first heartbeat went through
     * @param reconnects reconnections of the reader
     * @param behindBytes  shard binlog bytes not yet durable in the global binlog (docs/operating.md, "Catching up");
     *                     null when unknown
     * @param catchingUp   whether the shard is catching up (bytes behind and more than 5 s behind)
     */
    public record Shard(String name, String state, String position, Double delayMs, long reconnects, Long behindBytes,
            boolean catchingUp) {
    }

    /** A global binlog position. */
    public record Position(String file, long position) {
    }

    /**
     * @param written      where the next transaction goes
     * @param durable      what is synced (and what subscribers may read)
     * @param lastSequence the GTID sequence number of the last durable transaction
     * @param files        files in {@code binlog.index}
     * @param up           false while the writer cannot write or sync (e.g. a full disk)
     * @param detail       the writer's health detail
     */
    public record GlobalBinlog(String directory, Position written, Position durable, long lastSequence, int files,
            boolean up, String detail) {
    }

    /** {@code samples}: one per {@code sampleSeconds}, oldest first. */
    public record Throughput(int sampleSeconds, List<Sample> samples) {
    }

    /**
     * One period's rates of what was written to the global binlog, per second: events (EPS), row events (DML EPS),
     * bytes (BPS) and transactions (TPS); {@code time}: when the period ended (epoch milliseconds).
     */
    public record Sample(long time, double eps, double dmlEps, double bytesPerSecond, double tps) {
    }

    public record Buffer(int openTransactions, long memoryBytes, long memoryLimitBytes, int spilledTransactions,
            long spilledBytes, long spillStoreBytes) {
    }

    /** {@code connections}: every open connection; {@code subscribers}: those receiving the binlog. */
    public record Dump(int port, int connections, List<Subscriber> subscribers) {
    }

    /**
     * @param sent               position up to which events were handed to its connection
     * @param behindBytes        bytes of the global binlog between {@code sent} and the durable end (null when unknown)
     * @param behindTransactions transactions between the last one it was sent and the last durable one (null before the
     *                           first transaction it was sent)
     * @param queuedBytes        bytes queued in memory for it
     */
    public record Subscriber(long id, String user, String remoteAddress, String connectedSince, String request,
            Position sent, Long behindBytes, Long behindTransactions, long queuedBytes) {
    }
}
