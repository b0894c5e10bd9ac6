package io.tributary.test.bench;

import io.tributary.core.event.MariaGtidEvent;
import io.tributary.core.naming.LogicalNames;
import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.position.ShardPosition;
import io.tributary.storage.binlog.BinlogConfig;
import io.tributary.storage.binlog.BinlogRecovery;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.storage.buffer.LivePersistSettings;
import io.tributary.storage.buffer.PersistConfig;
import io.tributary.storage.buffer.SpillStore;
import io.tributary.storage.buffer.TransactionBuffer;
import io.tributary.storage.merge.MergeStage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One XA transaction of {@code --mb} MB (default 2048) over 4 shards through the merge stage, the way the
 * pipeline's merge thread runs it: every shard's branch is a MariaDB 10.11 XA group (GTID with
 * {@code FL_PREPARED_XA}, TABLE_MAP, WRITE_ROWS events of a real 512 KB row, XA_PREPARE_LOG), then each
 * shard's {@code XA COMMIT} group, heartbeats around them. The buffer runs in {@code storage.persist.mode}
 * {@code --mode} (default AUTO) with its default budget (25% of the heap), so under {@code -Xmx512m} the
 * branches must spill to RocksDB and stream back into the global binlog.
 *
 * <p>Prints one line {@code RESULT ok ...} with the figures, or fails with an exception (exit status 1).
 * Run by {@code LargeXaTransactionIT} in a JVM of its own with {@code -Xmx512m}.
 */
public final class LargeXaTransactionRun {

    private static final int SHARDS = 4;

    private LargeXaTransactionRun() {
    }

    public static void main(String[] args) throws Exception {
        long mb = 2048;
        String mode = "AUTO";
        for (String a : args) {
            if (a.startsWith("--mb=")) {
                mb = Long.parseLong(a.substring(5));
            } else if (a.startsWith("--mode=")) {
                mode = a.substring(7);
            } else {
                throw new IllegalArgumentException("Unknown option " + a + ": allowed are --mb=N --mode=AUTO|FORCE");
            }
        }
        Path dir = Files.createTempDirectory("tributary-large-xa");
        try {
            run(mb << 20, mode, dir);
        } finally {
            try (var walk = Files.walk(dir)) {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static void run(long totalBytes, String mode, Path dir) throws Exception {
        SyntheticShardEvents.Sample sample = SyntheticShardEvents.sample(System.out);
        byte[] fde = sample.fde();
        byte[] tableMap = sample.tableMap();
        byte[] rows = sample.rows();
        long perShard = totalBytes / SHARDS;
        int rowsPerBranch = (int) Math.max(1, perShard / rows.length);

        BinlogConfig config = BinlogConfig.parse(Map.of("binlog.dir", dir.resolve("binlog").toString(),
                "binlog.sync", "none", "binlog.flavor", "mariadb"));
        Map<String, String> persist = new HashMap<>(Map.of(PersistConfig.PATH, dir.resolve("spill").toString(),
                PersistConfig.MODE, mode));
        LivePersistSettings settings = new LivePersistSettings(PersistConfig.forThisJvm(), persist);
        List<ShardCheckpoint> start = new ArrayList<>();
        for (int s = 0; s < SHARDS; s++) {
            start.add(ShardCheckpoint.at("shard-" + s, ShardPosition.at("mariadb-bin.000001", 4)));
        }
        long t0 = System.nanoTime();
        long peakMemory = 0;
        long peakSpilled = 0;
        long written;
        long outputBytes;
        boolean storeEmpty;
        try (SpillStore store = SpillStore.open(dir.resolve("spill"));
                TransactionBuffer buffer = new TransactionBuffer(settings, store);
                GlobalBinlogWriter writer = GlobalBinlogWriter.open(config, BinlogRecovery.recover(config), Clock.systemUTC())) {
            MergeStage stage = new MergeStage(start, writer, buffer, LogicalNames.defaults(), Duration.ofSeconds(60));
            SyntheticShardEvents.Feed[] feeds = new SyntheticShardEvents.Feed[SHARDS];
            for (int s = 0; s < SHARDS; s++) {
                feeds[s] = new SyntheticShardEvents.Feed(stage, s);
                feeds[s].send(fde);
            }
            SyntheticShardEvents.beat(feeds, 1);
            for (int s = 0; s < SHARDS; s++) {
                SyntheticShardEvents.Feed f = feeds[s];
                f.send(SyntheticShardEvents.xaGtid(s, 10, MariaGtidEvent.FL_PREPARED_XA | MariaGtidEvent.FL_TRANSACTIONAL));
                f.send(tableMap);
                for (int r = 0; r < rowsPerBranch; r++) {
                    f.send(rows);
                    peakMemory = Math.max(peakMemory, buffer.memoryUsed());
                    peakSpilled = Math.max(peakSpilled, buffer.spilledBytes());
                }
                f.send(SyntheticShardEvents.xaPrepare(s));
            }
            SyntheticShardEvents.commitXa(feeds);
            for (long b = 3; b <= 6; b++) {
                SyntheticShardEvents.beat(feeds, b);
                stage.drain();
            }
            written = stage.transactionsWritten();
            stage.close();
            store.compact();
            storeEmpty = store.isEmpty();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        try (var files = Files.list(dir.resolve("binlog"))) {
            outputBytes = files.filter(p -> p.getFileName().toString().matches("binlog\\.\\d+")).mapToLong(p -> p.toFile().length())
                    .sum();
        }
        long inBytes = (long) rowsPerBranch * rows.length * SHARDS;
        if (written != 1) {
            throw new IllegalStateException("expected ONE global transaction for the XA transaction, found " + written);
        }
        if (outputBytes < inBytes) {
            throw new IllegalStateException("global binlog holds " + outputBytes + " bytes, less than the " + inBytes
                    + " bytes of rows events in");
        }
        if (!storeEmpty) {
            throw new IllegalStateException("RocksDB spill store not empty after the transaction was written");
        }
        long heapLimit = Runtime.getRuntime().maxMemory();
        System.out.printf(Locale.ROOT, "RESULT ok mode=%s heap=%d MB xa_branches=%d rows_events=%d in=%.0f MB out=%.0f MB"
                + " seconds=%.1f rate=%.1f MB/s peak_buffer_memory=%d MB peak_spilled=%d MB spill_empty_after=%b%n", mode,
                heapLimit >> 20, SHARDS, rowsPerBranch * SHARDS, inBytes / 1e6, outputBytes / 1e6, seconds,
                inBytes / 1e6 / seconds, peakMemory >> 20, peakSpilled >> 20, storeEmpty);
    }

}
