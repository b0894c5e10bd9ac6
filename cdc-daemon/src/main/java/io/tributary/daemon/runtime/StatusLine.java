package io.tributary.daemon.runtime;

import io.tributary.daemon.config.ShardConfig;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.storage.binlog.WriteCounters;
import io.tributary.storage.buffer.TransactionBuffer;
import io.tributary.storage.pipeline.GlobalBinlogPipeline;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The status line logged every {@code cdc.status.interval}: the headline figures of the metrics, as rates over
 * the last interval. For example:
 * <pre>
 * status: EPS 41,230 (DML 30,100) | 6.2 MB/s | TPS 5,120 | FPM 0 | delay max 140 ms (shard-0 90, shard-1 140)
 *   | buffered 12 txns 3.1 MB, spilled 0 txns 0 B (RocksDB 0 B) | global binlog.000003:1234567 | dump connections 2
 *   | readers 2/2 streaming
 * </pre>
 * While the daemon is catching up ({@link ShardBacklog}), after the delays:
 * {@code | CATCHING UP (ETA 42 s): shard-0 120.3 MB, 85 s behind; shard-2 3.1 MB, 12 s behind}.
 */
public final class StatusLine implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger("io.tributary.status");

    private final TributaryMetrics metrics;
    private final List<ShardConfig> shards;
    private final Duration interval;
    private ScheduledExecutorService scheduler;
    private WriteCounters last;
    private long lastNanos;

    public StatusLine(TributaryMetrics metrics, List<ShardConfig> shards, Duration interval) {
        this.metrics = metrics;
        this.shards = List.copyOf(shards);
        this.interval = interval;
    }

    public synchronized void start() {
        last = metrics.counters();
        lastNanos = System.nanoTime();
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "status-line");
            t.setDaemon(true);
            return t;
        });
        long ms = interval.toMillis();
        scheduler.scheduleAtFixedRate(() -> {
            try {
                log.info(next());
            } catch (RuntimeException e) {
                log.warn("status line failed: {}", e.toString());
            }
        }, ms, ms, TimeUnit.MILLISECONDS);
    }

    /** The line for the interval since the previous call. */
    synchronized String next() {
        WriteCounters now = metrics.counters();
        long nanos = System.nanoTime();
        double seconds = Math.max(1e-3, (nanos - lastNanos) / 1e9);
        WriteCounters d = new WriteCounters(now.transactions() - last.transactions(), now.events() - last.events(),
                now.rowsEvents() - last.rowsEvents(), now.bytes() - last.bytes(), now.filesCreated() - last.filesCreated());
        last = now;
        lastNanos = nanos;
        TributaryRuntime r = metrics.runtime().get();
        StringBuilder b = new StringBuilder("status: ");
        b.append("EPS ").append(count(d.events() / seconds)).append(" (DML ").append(count(d.rowsEvents() / seconds))
                .append(") | ").append(bytes(d.bytes() / seconds)).append("/s | TPS ")
                .append(count(d.transactions() / seconds)).append(" | FPM ")
                .append(String.format(Locale.ROOT, "%.1f", d.filesCreated() * 60 / seconds));
        b.append(" | delay max ").append(millis(metrics.maxDelayMillis())).append(" (");
        for (int i = 0; i < shards.size(); i++) {
            b.append(i == 0 ? "" : ", ").append(shards.get(i).name()).append(' ')
                    .append(millis(metrics.delayMillis(i)).replace(" ms", ""));
        }
        b.append(')');
        ShardBacklog backlog = r == null ? null : r.backlog();
        if (backlog != null && backlog.catchingUp()) {
            b.append(catchingUp(backlog.current(), backlog.etaSeconds()));
        }
        TransactionBuffer buffer = r == null ? null : r.buffer();
        if (buffer != null) {
            b.append(" | buffered ").append(buffer.openTransactions()).append(" txns ")
                    .append(bytes(buffer.memoryUsed())).append(", spilled ").append(buffer.spilledTransactions())
                    .append(" txns ").append(bytes(buffer.spilledBytes())).append(" (RocksDB ")
                    .append(bytes(buffer.spillStoreBytes())).append(')');
        }
        GlobalBinlogWriter w = r == null ? null : r.writer();
        if (w != null) {
            b.append(" | global ").append(w.writtenPosition().file()).append(':').append(w.writtenPosition().position());
            if (!w.health().up()) {
                b.append(" DOWN: ").append(w.health().detail());
            }
        }
        if (r != null && r.dump() != null) {
            b.append(" | dump connections ").append(r.dump().connectionCount());
        }
        GlobalBinlogPipeline p = r == null ? null : r.pipeline();
        if (p != null) {
            int streaming = 0;
            StringBuilder others = new StringBuilder();
            for (int i = 0; i < p.shardCount(); i++) {
                var state = p.readerState(i);
                if (state == io.tributary.core.reader.ShardReader.State.STREAMING) {
                    streaming++;
                } else {
                    others.append(", ").append(p.shardName(i)).append(' ').append(state);
                }
            }
            b.append(" | readers ").append(streaming).append('/').append(p.shardCount()).append(" streaming").append(others);
            if (p.failure() != null) {
                b.append(" | FAILED: ").append(p.failure());
            }
        }
        return b.toString();
    }

    /** {@code " | CATCHING UP (ETA 42 s): shard-0 120.3 MB, 85 s behind; shard-2 3.1 MB, 12 s behind"}. */
    static String catchingUp(List<ShardBacklog.Behind> shards, double etaSeconds) {
        StringBuilder b = new StringBuilder(" | CATCHING UP (ETA ").append(seconds(etaSeconds)).append("):");
        String sep = " ";
        for (ShardBacklog.Behind s : shards) {
            if (s.catchingUp()) {
                b.append(sep).append(s.shard()).append(' ').append(bytes(s.bytes())).append(", ")
                        .append(seconds(s.seconds())).append(" behind");
                sep = "; ";
            }
        }
        return b.toString();
    }

    static String seconds(double v) {
        if (Double.isNaN(v)) {
            return "unknown";
        }
        long s = Math.round(v);
        return s < 120 ? s + " s" : s < 7200 ? (s / 60) + " min " + (s % 60) + " s" : (s / 3600) + " h " + (s % 3600 / 60) + " min";
    }

    static String count(double v) {
        return String.format(Locale.ROOT, "%,.0f", v);
    }

    static String millis(double v) {
        return Double.isNaN(v) ? "- ms" : String.format(Locale.ROOT, "%,.0f ms", v);
    }

    static String bytes(double v) {
        String[] units = {"B", "KB", "MB", "GB", "TB"};
        int u = 0;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return u == 0 ? String.format(Locale.ROOT, "%.0f B", v) : String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }

    @Override
    public synchronized void close() {
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
    }
}
