package io.tributary.test.bench;

import io.netty.buffer.Unpooled;
import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.DecoderOptions;
import io.tributary.core.event.EventType;
import io.tributary.core.event.MariaGtidEvent;
import io.tributary.core.naming.LogicalNames;
import io.tributary.core.order.ShardCheckpoint;
import io.tributary.core.order.ShardUnit;
import io.tributary.core.reader.ShardEvent;
import io.tributary.core.reader.ShardPosition;
import io.tributary.storage.binlog.BinlogConfig;
import io.tributary.storage.binlog.BinlogRecovery;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.storage.buffer.LivePersistSettings;
import io.tributary.storage.buffer.PersistConfig;
import io.tributary.storage.buffer.SpillStore;
import io.tributary.storage.buffer.TransactionBuffer;
import io.tributary.storage.merge.MergeStage;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.CRC32;

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
        Path source = LargeRowBinlogGenerator.binlogWithRows(128, System.out).get(0);
        byte[] fde = null;
        byte[] tableMap = null;
        byte[] rows = null;
        // only the first few MB are needed: FDE, a TABLE_MAP and its 512 KB WRITE_ROWS
        byte[] head;
        try (var in = Files.newInputStream(source)) {
            head = in.readNBytes(8 << 20);
        }
        BinlogEventDecoder d = new BinlogEventDecoder(source.getFileName().toString(), head, DecoderOptions.HEADERS_ONLY);
        while (d.hasNext() && rows == null) {
            BinlogEvent e;
            try {
                e = d.next();
            } catch (RuntimeException truncated) {
                break;
            }
            if (e.type() == EventType.FORMAT_DESCRIPTION) {
                fde = e.rawBytes();
            } else if (e.type() == EventType.TABLE_MAP) {
                tableMap = e.rawBytes();
            } else if (tableMap != null && e.type() != null && e.type().isRows()) {
                rows = e.rawBytes();
            }
        }
        if (fde == null || tableMap == null || rows == null) {
            throw new IllegalStateException(source + ": no FDE, TABLE_MAP and rows event in its first 8 MB");
        }
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
            Feed[] feeds = new Feed[SHARDS];
            for (int s = 0; s < SHARDS; s++) {
                feeds[s] = new Feed(stage, s);
                feeds[s].send(fde);
            }
            beat(feeds, 1);
            for (int s = 0; s < SHARDS; s++) {
                Feed f = feeds[s];
                f.send(gtid(s, 10, MariaGtidEvent.FL_PREPARED_XA | MariaGtidEvent.FL_TRANSACTIONAL, s));
                f.send(tableMap);
                for (int r = 0; r < rowsPerBranch; r++) {
                    f.send(rows);
                    peakMemory = Math.max(peakMemory, buffer.memoryUsed());
                    peakSpilled = Math.max(peakSpilled, buffer.spilledBytes());
                }
                f.send(xaPrepare(s));
            }
            beat(feeds, 2);
            for (int s = 0; s < SHARDS; s++) {
                feeds[s].send(gtid(s, 11, MariaGtidEvent.FL_COMPLETED_XA | MariaGtidEvent.FL_STANDALONE, s));
                feeds[s].send(query("XA COMMIT X'" + hex(GTRID) + "',X'" + hex(bqual(s)) + "',1"));
            }
            for (long b = 3; b <= 6; b++) {
                beat(feeds, b);
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

    private static final byte[] GTRID = "large-xa-1".getBytes(StandardCharsets.US_ASCII);

    private static byte[] bqual(int shard) {
        return ("b" + shard).getBytes(StandardCharsets.US_ASCII);
    }

    private static String hex(byte[] b) {
        return java.util.HexFormat.of().formatHex(b);
    }

    private static void beat(Feed[] feeds, long value) {
        for (Feed f : feeds) {
            f.beat(value);
        }
    }

    /** One shard's stream: events get consecutive file offsets. */
    private static final class Feed {
        final MergeStage stage;
        final int shard;
        long pos = 4;
        long hbSeq;

        Feed(MergeStage stage, int shard) {
            this.stage = stage;
            this.shard = shard;
        }

        void send(byte[] event) {
            long end = pos + event.length;
            ShardPosition after = ShardPosition.at("mariadb-bin.000001", end);
            int type = event[4] & 0xFF;
            stage.accept(shard, new ShardEvent("shard-" + shard, type, 0, 1, event.length, end, 0, true, after, after, false,
                    Unpooled.wrappedBuffer(event)));
            pos = end;
        }

        void beat(long value) {
            hbSeq = Math.max(hbSeq + 1, (1L << 40) | (pos - 1));
            ShardPosition at = ShardPosition.at("mariadb-bin.000001", pos);
            stage.offer(new ShardUnit<>(shard, hbSeq, ShardUnit.Kind.HEARTBEAT, 0, null, value, "hb-" + value, at, at, null));
        }
    }

    /** A MariaDB GTID event with an XA xid (seq_no 8, domain 4, flags 1, format id 4, lengths 1+1, data). */
    private static byte[] gtid(int shard, long seq, int flags, int s) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        ByteBuffer fixed = ByteBuffer.allocate(8 + 4 + 1 + 4 + 2).order(ByteOrder.LITTLE_ENDIAN);
        byte[] bq = bqual(s);
        fixed.putLong(seq).putInt(0).put((byte) flags).putInt(1).put((byte) GTRID.length).put((byte) bq.length);
        b.writeBytes(fixed.array());
        b.writeBytes(GTRID);
        b.writeBytes(bq);
        return event(EventType.MARIA_GTID.code(), 100 + shard, b.toByteArray());
    }

    /** XA_PREPARE_LOG: one_phase 1, format id 4, gtrid length 4, bqual length 4, data. */
    private static byte[] xaPrepare(int s) {
        byte[] bq = bqual(s);
        ByteBuffer b = ByteBuffer.allocate(1 + 12 + GTRID.length + bq.length).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) 0).putInt(1).putInt(GTRID.length).putInt(bq.length).put(GTRID).put(bq);
        return event(EventType.XA_PREPARE_LOG.code(), 100 + s, b.array());
    }

    /** QUERY: thread id 4, exec time 4, db length 1, error 2, status length 2 (0), db "" + NUL, SQL. */
    private static byte[] query(String sql) {
        byte[] text = sql.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(13 + 1 + text.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(1).putInt(0).put((byte) 0).putShort((short) 0).putShort((short) 0).put((byte) 0).put(text);
        return event(EventType.QUERY.code(), 100, b.array());
    }

    /** Header (timestamp, type, server id, size, log_pos 0, flags 0), body, CRC32. */
    private static byte[] event(int type, long serverId, byte[] body) {
        int size = 19 + body.length + 4;
        ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt((int) (System.currentTimeMillis() / 1000)).put((byte) type).putInt((int) serverId).putInt(size).putInt(0)
                .putShort((short) 0).put(body);
        CRC32 crc = new CRC32();
        crc.update(b.array(), 0, size - 4);
        b.putInt((int) crc.getValue());
        return b.array();
    }
}
