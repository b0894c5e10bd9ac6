package io.tributary.daemon.status;

import io.tributary.daemon.TributaryApplication;
import io.tributary.daemon.dump.DumpServer;
import io.tributary.daemon.dump.DumpSubscriber;
import io.tributary.daemon.runtime.ShardBacklog;
import io.tributary.daemon.runtime.TributaryMetrics;
import io.tributary.daemon.runtime.TributaryRuntime;
import io.tributary.storage.binlog.BinlogHealth;
import io.tributary.storage.binlog.BinlogPosition;
import io.tributary.storage.binlog.DurableMark;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.storage.buffer.TransactionBuffer;
import io.tributary.storage.pipeline.GlobalBinlogPipeline;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a {@link DaemonStatus} from the running daemon's components, each through its own read accessors (the ones
 * the health endpoint, the metrics and the status line use). Nothing here is on the data path: it runs once per
 * request of the page.
 */
final class StatusSnapshot {

    private static final String VERSION = TributaryApplication.version();

    private StatusSnapshot() {
    }

    static DaemonStatus of(TributaryRuntime runtime, TributaryMetrics metrics, ThroughputHistory history,
            int sampleSeconds) {
        GlobalBinlogPipeline p = runtime.pipeline();
        GlobalBinlogWriter w = runtime.writer();
        TransactionBuffer b = runtime.buffer();
        DumpServer d = runtime.dump();
        List<DaemonStatus.Shard> shards = new ArrayList<>();
        for (int i = 0; i < runtime.config().shards().size(); i++) {
            String name = runtime.config().shards().get(i).name();
            double delay = metrics.delayMillis(i);
            ShardBacklog.Behind behind = runtime.backlog() == null ? null : runtime.backlog().current().get(i);
            Long behindBytes = behind == null || behind.bytes() < 0 ? null : behind.bytes();
            boolean catchingUp = behind != null && behind.catchingUp();
            shards.add(p == null ? new DaemonStatus.Shard(name, "NOT STARTED", null, null, 0, null, false)
                    : new DaemonStatus.Shard(name, p.readerState(i).name(), String.valueOf(p.readerPosition(i)),
                            Double.isNaN(delay) ? null : delay, Math.max(0, p.readerConnections(i) - 1), behindBytes,
                            catchingUp));
        }
        DaemonStatus.GlobalBinlog binlog = null;
        if (w != null) {
            DurableMark durable = w.durability().current();
            BinlogHealth h = w.health();
            binlog = new DaemonStatus.GlobalBinlog(runtime.config().binlog().dir().toAbsolutePath().toString(),
                    position(w.writtenPosition()), position(durable.position()), durable.lastSequence(),
                    w.index().entries().size(), h.up(), h.detail());
        }
        DaemonStatus.Buffer buffer = b == null ? null : new DaemonStatus.Buffer(b.openTransactions(), b.memoryUsed(),
                b.settings().memoryLimitBytes(), b.spilledTransactions(), b.spilledBytes(), b.spillStoreBytes());
        DaemonStatus.Dump dump = null;
        if (d != null) {
            List<DaemonStatus.Subscriber> subscribers = new ArrayList<>();
            for (DumpSubscriber s : d.subscribers()) {
                subscribers.add(subscriber(s));
            }
            dump = new DaemonStatus.Dump(d.port(), d.connectionCount(), subscribers);
        }
        return new DaemonStatus(Instant.now().toString(), VERSION,
                runtime.config().binlog().flavor().toString().toLowerCase(java.util.Locale.ROOT),
                p == null || p.failure() == null ? null : p.failure().toString(), shards, binlog,
                new DaemonStatus.Throughput(sampleSeconds, history.samples()), buffer, dump);
    }

    private static DaemonStatus.Subscriber subscriber(DumpSubscriber s) {
        return new DaemonStatus.Subscriber(s.connectionId(), s.user(), s.remoteAddress(), s.connectedSince().toString(),
                s.request(), s.sentPosition() == null ? null : position(s.sentPosition()), s.behindBytes(),
                s.behindTransactions(), s.queuedBytes());
    }

    private static DaemonStatus.Position position(BinlogPosition p) {
        return new DaemonStatus.Position(p.file(), p.position());
    }
}
