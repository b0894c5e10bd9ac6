package io.tributary.test.bench;

import io.netty.buffer.Unpooled;
import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.DecoderOptions;
import io.tributary.core.event.EventType;
import io.tributary.core.event.MariaGtidEvent;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.reader.ShardEvent;
import io.tributary.core.sorter.ShardUnit;
import io.tributary.storage.merge.MergeStage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32;

/**
 * Shard streams of large transactions for the merge stage, as the pipeline's readers would deliver them: the real
 * format description, TABLE_MAP and 512 KB WRITE_ROWS event of a MariaDB 10.11 binlog ({@link LargeRowBinlogGenerator}),
 * framed by MariaDB GTID, XID, XA_PREPARE_LOG and {@code XA COMMIT} events made here (header, body, CRC32), and
 * heartbeat units offered directly. Used by {@link LargeXaTransactionRun} and {@link LargeTransactionBenchmark}.
 */
final class SyntheticShardEvents {

    /** The real events the large transactions are made of. */
    record Sample(byte[] fde, byte[] tableMap, byte[] rows) {
    }

    static final String FILE = "mariadb-bin.000001";
    private static final byte[] GTRID = "large-xa-1".getBytes(StandardCharsets.US_ASCII);

    private SyntheticShardEvents() {
    }

    /** FDE, a TABLE_MAP and its 512 KB WRITE_ROWS from the first MB of the generated large-row binlog. */
    static Sample sample(PrintStream progress) throws IOException {
        Path source = LargeRowBinlogGenerator.binlogWithRows(128, progress).get(0);
        byte[] fde = null;
        byte[] tableMap = null;
        byte[] rows = null;
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
        return new Sample(fde, tableMap, rows);
    }

    static void beat(Feed[] feeds, long value) {
        for (Feed f : feeds) {
            f.beat(value);
        }
    }

    /** One shard's stream: events get consecutive file offsets. */
    static final class Feed {
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
            ShardPosition after = ShardPosition.at(FILE, end);
            int type = event[4] & 0xFF;
            stage.accept(shard, new ShardEvent("shard-" + shard, type, 0, 1, event.length, end, 0, true, after, after, false,
                    Unpooled.wrappedBuffer(event)));
            pos = end;
        }

        void beat(long value) {
            hbSeq = Math.max(hbSeq + 1, (1L << 40) | (pos - 1));
            ShardPosition at = ShardPosition.at(FILE, pos);
            stage.offer(new ShardUnit<>(shard, hbSeq, ShardUnit.Kind.HEARTBEAT, 0, null, value, "hb-" + value, at, at, null));
        }
    }

    private static byte[] bqual(int shard) {
        return ("b" + shard).getBytes(StandardCharsets.US_ASCII);
    }

    /** A MariaDB GTID event with no xid (seq_no 8, domain 4, flags 1, 6 bytes unused). */
    static byte[] gtid(int shard, long seq, int flags) {
        ByteBuffer b = ByteBuffer.allocate(8 + 4 + 1 + 6).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(seq).putInt(0).put((byte) flags);
        return event(EventType.MARIA_GTID.code(), 100 + shard, b.array());
    }

    /** A MariaDB GTID event with the XA xid of this shard's branch (seq_no 8, domain 4, flags 1, format id 4, lengths 1+1, data). */
    static byte[] xaGtid(int shard, long seq, int flags) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        ByteBuffer fixed = ByteBuffer.allocate(8 + 4 + 1 + 4 + 2).order(ByteOrder.LITTLE_ENDIAN);
        byte[] bq = bqual(shard);
        fixed.putLong(seq).putInt(0).put((byte) flags).putInt(1).put((byte) GTRID.length).put((byte) bq.length);
        b.writeBytes(fixed.array());
        b.writeBytes(GTRID);
        b.writeBytes(bq);
        return event(EventType.MARIA_GTID.code(), 100 + shard, b.toByteArray());
    }

    /** XID: the transaction id, 8 bytes. */
    static byte[] xid(int shard, long id) {
        ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(id);
        return event(EventType.XID.code(), 100 + shard, b.array());
    }

    /** XA_PREPARE_LOG of this shard's branch: one_phase 0, format id 4, gtrid length 4, bqual length 4, data. */
    static byte[] xaPrepare(int shard) {
        byte[] bq = bqual(shard);
        ByteBuffer b = ByteBuffer.allocate(1 + 12 + GTRID.length + bq.length).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) 0).putInt(1).putInt(GTRID.length).putInt(bq.length).put(GTRID).put(bq);
        return event(EventType.XA_PREPARE_LOG.code(), 100 + shard, b.array());
    }

    /**
     * Commits the XA branch prepared on every feed's shard: heartbeat 2 on all of them, then on each its GTID group
     * with the {@code XA COMMIT}.
     */
    static void commitXa(Feed[] feeds) {
        beat(feeds, 2);
        for (Feed f : feeds) {
            f.send(xaGtid(f.shard, 11, MariaGtidEvent.FL_COMPLETED_XA | MariaGtidEvent.FL_STANDALONE));
            f.send(xaCommit(f.shard));
        }
    }

    /** The {@code XA COMMIT} of this shard's branch. */
    private static byte[] xaCommit(int shard) {
        return query(shard, "XA COMMIT X'" + hex(GTRID) + "',X'" + hex(bqual(shard)) + "',1");
    }

    private static String hex(byte[] b) {
        return java.util.HexFormat.of().formatHex(b);
    }

    /** QUERY: thread id 4, exec time 4, db length 1, error 2, status length 2 (0), db "" + NUL, SQL. */
    private static byte[] query(int shard, String sql) {
        byte[] text = sql.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(13 + 1 + text.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(1).putInt(0).put((byte) 0).putShort((short) 0).putShort((short) 0).put((byte) 0).put(text);
        return event(EventType.QUERY.code(), 100 + shard, b.array());
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
