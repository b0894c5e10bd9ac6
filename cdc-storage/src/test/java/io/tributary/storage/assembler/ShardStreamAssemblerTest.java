package io.tributary.storage.assembler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.DecoderOptions;
import io.tributary.core.event.EventType;
import io.tributary.core.event.MariaGtidEvent;
import io.tributary.core.event.TableMapEvent;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.reader.ShardEvent;
import io.tributary.core.sorter.ShardUnit;
import io.tributary.storage.buffer.BufferedTransaction;
import io.tributary.storage.buffer.LivePersistSettings;
import io.tributary.storage.buffer.PersistConfig;
import io.tributary.storage.buffer.SpillStore;
import io.tributary.storage.buffer.TransactionBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The assembler on a real MariaDB 10.0 binlog of the corpus, fed event by event as a shard reader delivers
 * it: one unit per GTID group with the group's GTID as key and its TABLE_MAP and rows events buffered; and
 * a reader rewind in the middle of a transaction (the reader reconnected) gives exactly the same units, and so
 * does a rewind to before a transaction already complete (it is delivered again).
 */
class ShardStreamAssemblerTest {

    private static final String FILE = "tiflow__mariadb-mysql-bin.000001";

    @TempDir
    Path dir;

    /** A unit as a test compares it: kind, key, positions and the number of buffered events. */
    private record Seen(ShardUnit.Kind kind, String key, ShardPosition start, ShardPosition end, long events) {
    }

    private static byte[] corpus() throws Exception {
        return corpus("mariadb-10.x/" + FILE);
    }

    private static byte[] corpus(String path) throws Exception {
        String shared = System.getProperty("tributary.shared.dir");
        Path p = shared == null ? null : Path.of(shared, "testdata", "binlog").resolve(path);
        assumeTrue(p != null && Files.isRegularFile(p), "binlog corpus not found (tributary.shared.dir=" + shared
                + "); assembler test on real events skipped");
        return Files.readAllBytes(p);
    }

    private static ShardEvent shardEvent(BinlogEvent e) {
        return shardEvent(FILE, e, Unpooled.wrappedBuffer(e.rawBytes()));
    }

    private static ShardEvent shardEvent(String file, BinlogEvent e, ByteBuf bytes) {
        ShardPosition after = ShardPosition.at(file, e.header().logPos());
        return new ShardEvent("s0", e.header().typeCode(), e.header().timestamp(), e.header().serverId(), e.length(),
                e.header().logPos(), e.header().flags(), e.checksumLength() > 0, after, after, false, bytes);
    }

    /**
     * What a transaction's buffer gives back is the shard's events as the decoder reads them from the file (header,
     * position, raw bytes, decoded table maps), whether the reader's bytes are on the heap (as in tests) or in
     * direct memory (as Netty gives them to a live reader), and whether an event took the decoder's path or went
     * into the buffer as sent (plain rows events, table maps seen before). Every event's bytes are released.
     */
    @ParameterizedTest
    @ValueSource(strings = {"mariadb-10.x/tiflow__mariadb-mysql-bin.000001", "mariadb-10.x/rmc__mariadb-bin.000001",
            "mysql-8.0/rmc__transaction_compression.000001", "mysql-5.7/canal__tsdb-mysql-bin.000002"})
    void bufferedEventsAreTheShardsEventsWhereverTheReaderKeepsItsBytes(String path) throws Exception {
        byte[] bytes = corpus(path);
        String file = Path.of(path).getFileName().toString();
        List<BinlogEvent> events = new ArrayList<>();
        new BinlogEventDecoder(file, bytes, DecoderOptions.FULL).forEachRemaining(events::add);
        Map<String, BinlogEvent> byPlace = new HashMap<>();
        long tableMapsAndRows = 0;
        for (BinlogEvent e : events) {
            byPlace.put(e.offset() + "+" + e.innerOffset(), e);
            if (e.type() == EventType.TABLE_MAP || e.type() != null && e.type().isRows()) {
                tableMapsAndRows++;
            }
        }
        // the outer events as a reader delivers them (a compressed payload is one event there)
        List<BinlogEvent> outer = new ArrayList<>();
        new BinlogEventDecoder(file, bytes, DecoderOptions.HEADERS_ONLY.withExpand(false)).forEachRemaining(outer::add);
        Map<String, String> values = new HashMap<>(Map.of("storage.path", dir.resolve("spill").toString()));
        for (boolean direct : new boolean[] {false, true}) {
            try (SpillStore store = SpillStore.open(dir.resolve("spill-" + direct));
                    TransactionBuffer buffer = new TransactionBuffer(new LivePersistSettings(new PersistConfig(1L << 30),
                            values), store)) {
                List<BinlogEvent> buffered = new ArrayList<>();
                // read events are valid until their transaction is released (its memory serves the next ones), so
                // the transactions are released once the events are compared
                List<BufferedTransaction> read = new ArrayList<>();
                ShardStreamAssembler a = new ShardStreamAssembler(0, "s0", ShardPosition.at(file, 4), buffer, u -> {
                    if (u.payload() != null) {
                        u.payload().events().forEachRemaining(buffered::add);
                        read.add(u.payload());
                    }
                });
                List<ByteBuf> sent = new ArrayList<>();
                for (BinlogEvent e : outer) {
                    ByteBuf b = direct ? Unpooled.directBuffer(e.length()).writeBytes(e.buffer(), e.bufferOffset(), e.length())
                            : Unpooled.wrappedBuffer(e.rawBytes());
                    sent.add(b);
                    a.accept(shardEvent(file, e, b));
                }
                a.close();
                String where = path + (direct ? ", direct buffers" : ", heap buffers");
                assertThat(sent).as("reader bytes released, %s", where).allSatisfy(b -> assertThat(b.refCnt()).isZero());
                assertThat(buffered.stream().filter(e -> e.type() == EventType.TABLE_MAP || e.type().isRows()).count())
                        .as("table maps and rows events buffered, %s", where).isEqualTo(tableMapsAndRows);
                for (BinlogEvent got : buffered) {
                    BinlogEvent expected = byPlace.get(got.offset() + "+" + got.innerOffset());
                    assertThat(got).as("buffered event at %d, %s", got.offset(), where).isEqualTo(expected);
                    assertThat(got.originalTypeCode()).isEqualTo(expected.originalTypeCode());
                    assertThat(got.checksumLength()).isEqualTo(expected.checksumLength());
                    if (expected.body() instanceof TableMapEvent m) {
                        assertThat(got.body()).as("table map at %d, %s", got.offset(), where).isEqualTo(m);
                    }
                }
                read.forEach(BufferedTransaction::release);
                assertThat(buffer.openTransactions()).isZero();
                assertThat(buffer.memoryUsed()).isZero();
            }
        }
    }

    private List<Seen> run(List<BinlogEvent> events, int rewindAt, TransactionBuffer buffer) {
        List<Seen> seen = new ArrayList<>();
        List<BufferedTransaction> payloads = new ArrayList<>();
        ShardStreamAssembler a = new ShardStreamAssembler(0, "s0", ShardPosition.at(FILE, 4), buffer, u -> {
            long n = u.payload() == null ? 0 : u.payload().eventCount();
            seen.add(new Seen(u.kind(), u.key(), u.start(), u.end(), n));
            if (u.payload() != null) {
                payloads.add(u.payload());
            }
        });
        int groupStart = -1;
        for (int i = 0; i < events.size(); i++) {
            BinlogEvent e = events.get(i);
            if (e.type() == EventType.MARIA_GTID) {
                groupStart = i;
            }
            a.accept(shardEvent(e));
            if (i == rewindAt) {
                // the reader lost its connection inside the transaction: it resumes at the group's start
                ShardPosition restart = ShardPosition.at(FILE, events.get(groupStart - 1).header().logPos());
                a.rewind(restart);
                i = groupStart - 1;
                rewindAt = -1;
            }
        }
        assertThat(buffer.openTransactions()).as("buffers: one per unit with a payload, the partial one freed")
                .isEqualTo(payloads.size());
        payloads.forEach(BufferedTransaction::release);
        a.close();
        return seen;
    }

    @Test
    void everyGtidGroupBecomesOneUnitAndARewindInsideATransactionChangesNothing() throws Exception {
        byte[] bytes = corpus();
        List<BinlogEvent> events = new ArrayList<>();
        BinlogEventDecoder d = new BinlogEventDecoder(FILE, bytes, DecoderOptions.FULL);
        d.forEachRemaining(events::add);
        List<String> gtids = new ArrayList<>();
        List<Long> bufferedPerGroup = new ArrayList<>();
        int midRows = -1;
        int xidAfter = -1;
        for (int i = 0; i < events.size(); i++) {
            BinlogEvent e = events.get(i);
            if (e.body() instanceof MariaGtidEvent g) {
                gtids.add(g.gtid());
                bufferedPerGroup.add(0L);
            } else if (!gtids.isEmpty() && (e.type() == EventType.TABLE_MAP || e.type().isRows())) {
                bufferedPerGroup.set(gtids.size() - 1, bufferedPerGroup.get(gtids.size() - 1) + 1);
                if (e.type().isRows() && midRows < 0 && gtids.size() > 2) {
                    midRows = i;
                }
            }
            if (e.type() == EventType.XID && xidAfter < 0 && gtids.size() > 3) {
                xidAfter = i;
            }
        }
        assertThat(midRows).as("a rows event to rewind at").isPositive();
        Map<String, String> values = new HashMap<>(Map.of("storage.path", dir.resolve("spill").toString()));
        try (SpillStore store = SpillStore.open(dir.resolve("spill"));
                TransactionBuffer buffer = new TransactionBuffer(new LivePersistSettings(new PersistConfig(1L << 30), values),
                        store)) {
            List<Seen> plain = run(events, -1, buffer);
            assertThat(plain).extracting(Seen::key).containsExactlyElementsOf(gtids);
            assertThat(plain).allSatisfy(u -> assertThat(u.kind()).isEqualTo(ShardUnit.Kind.TRANSACTION));
            for (int k = 0; k < plain.size(); k++) {
                Seen u = plain.get(k);
                // DML: its table maps and rows; DDL: its one statement
                assertThat(u.events()).as("events buffered for %s", u.key())
                        .isEqualTo(bufferedPerGroup.get(k) == 0 ? 1 : bufferedPerGroup.get(k));
                if (k > 0) {
                    assertThat(u.start()).as("unit %s starts where the previous ended", u.key()).isEqualTo(plain.get(k - 1).end());
                }
            }
            List<Seen> rewound = run(events, midRows, buffer);
            assertThat(rewound).isEqualTo(plain);
            // a restart position lagging behind a transaction already complete here: delivered again, skipped
            assertThat(xidAfter).as("an XID to rewind after").isPositive();
            assertThat(run(events, xidAfter, buffer)).isEqualTo(plain);
            assertThat(buffer.openTransactions()).isZero();
        }
    }
}
