package io.tributary.storage.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.BinlogEventEncoder;
import io.tributary.core.event.BinlogEventRecord;
import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.event.DecoderOptions;
import io.tributary.core.event.EventType;
import io.tributary.core.event.RowsEvent;
import io.tributary.core.event.TableMapEvent;
import io.tributary.core.naming.GlobalTableRegistry;
import io.tributary.core.naming.LogicalNames;
import io.tributary.core.transaction.GlobalEvent;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The buffer's accounting and each persist mode, with real RocksDB in a temp directory and events made
 * from a real corpus table map / rows event.
 */
class TransactionBufferTest {

    private static final int KB = 1024;

    @TempDir
    Path dir;

    private RowsEventTemplate template;
    private SpillStore store;
    private LivePersistSettings live;
    private TransactionBuffer buffer;

    @BeforeEach
    void setUp() {
        template = RowsEventTemplate.load();
        store = SpillStore.open(dir.resolve("spill"));
    }

    @AfterEach
    void tearDown() {
        if (buffer != null) {
            buffer.close();
        }
        store.close();
    }

    private void start(Map<String, String> values) {
        Map<String, String> all = new HashMap<>(Map.of("storage.path", dir.resolve("spill").toString()));
        all.putAll(values);
        live = new LivePersistSettings(new PersistConfig(1L << 30), all);
        buffer = new TransactionBuffer(live, store);
    }

    private BinlogEvent event(long i, int size) {
        return template.event(i, size, DecoderOptions.FULL);
    }

    private static long cost(BinlogEvent e) {
        return e.length() + TransactionBuffer.EVENT_OVERHEAD;
    }

    /**
     * The transaction's events, each copied as it is read (bytes, and a decoded body decoded again from the copy): an
     * event read back from disk, and a rows body decoded from it, are valid only until the iterator has moved on
     * twice ({@link BufferedTransaction.EventIterator}), so whoever keeps events copies them.
     */
    private List<BinlogEvent> readBack(BufferedTransaction t) {
        List<BinlogEvent> out = new ArrayList<>();
        try (BufferedTransaction.EventIterator it = t.events()) {
            it.forEachRemaining(e -> {
                byte[] copy = new byte[BinlogEventRecord.sizeOf(e)];
                BinlogEventRecord.write(e, copy, 0);
                out.add(BinlogEventRecord.read(copy, 0, copy.length, template.fde, "copy"));
            });
        }
        return out;
    }

    private static void assertSameEvents(List<BinlogEvent> actual, List<BinlogEvent> expected) {
        assertThat(actual).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            BinlogEvent a = actual.get(i);
            BinlogEvent e = expected.get(i);
            assertThat(a.rawBytes()).as("raw bytes of event %d", i).isEqualTo(e.rawBytes());
            assertThat(a).as("event %d", i).isEqualTo(e);
            assertThat(a.body()).as("body of event %d", i).isEqualTo(e.body());
        }
    }

    @Test
    void smallTransactionStaysInMemoryAndIsCountedByItsOwnBytes() {
        start(Map.of("storage.memoryLimit", "10MB"));
        BufferedTransaction t = buffer.begin("shard-0", "0-101-1", template.fde);
        List<BinlogEvent> written = new ArrayList<>();
        long expected = 0;
        for (int i = 0; i < 50; i++) {
            BinlogEvent e = event(i, 2 * KB);
            written.add(e);
            expected += cost(e);
            t.append(e);
        }
        t.append(template.tableMap);
        written.add(template.tableMap);
        expected += cost(template.tableMap);
        t.seal();
        assertThat(buffer.memoryUsed()).isEqualTo(expected).isEqualTo(t.memoryBytes());
        assertThat(t.eventsOnDisk()).isZero();
        assertThat(buffer.spilledBytes()).isZero();
        assertSameEvents(readBack(t), written);
        t.release();
        assertThat(buffer.memoryUsed()).isZero();
        assertThat(buffer.openTransactions()).isZero();
        assertThat(store.isEmpty()).isTrue();
    }

    @Test
    void aReleasedTransactionsChunksServeTheNextOnesWhichReadBackOnlyTheirOwnEvents() {
        start(Map.of("storage.memoryLimit", "16MB"));
        // a large transaction fills chunks of 4 to 64 KB with its events; released, they are kept
        BufferedTransaction first = buffer.begin("shard-0", "0-101-1", template.fde);
        for (int i = 0; i < 40; i++) {
            first.append(event(i, 3 * KB));
        }
        first.seal();
        readBack(first);
        first.release();
        long spare = buffer.spareBytes();
        assertThat(spare).as("chunks kept from the released transaction").isGreaterThanOrEqualTo(64 * KB);

        // the next transactions take them (smaller events, so a stale byte would show) and read back exactly theirs
        List<BufferedTransaction> next = new ArrayList<>();
        List<List<BinlogEvent>> written = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            BufferedTransaction x = buffer.begin("shard-0", "0-101-" + (t + 2), template.fde);
            List<BinlogEvent> events = new ArrayList<>();
            for (int i = 0; i < 5 + t; i++) {
                BinlogEvent e = event(1000 * t + i, 700 + 97 * i);
                events.add(e);
                x.append(e);
            }
            x.seal();
            next.add(x);
            written.add(events);
        }
        assertThat(buffer.spareBytes()).as("spares taken").isLessThan(spare);
        for (int t = 0; t < next.size(); t++) {
            assertSameEvents(readBack(next.get(t)), written.get(t));
            next.get(t).release();
        }
        assertThat(buffer.memoryUsed()).isZero();
        assertThat(buffer.spareBytes()).as("within an eighth of the memory limit").isLessThanOrEqualTo(2L << 20);
    }

    @Test
    void autoSpillsATransactionLargerThanTheTransactionThresholdWhateverTheMemoryUse() {
        start(Map.of("storage.memoryLimit", "100MB", "storage.txnPersistThreshold", "64KB"));
        BufferedTransaction t = buffer.begin("shard-1", "binlog.000003:4711", template.fde);
        List<BinlogEvent> written = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            BinlogEvent e = event(i, KB);
            written.add(e);
            t.append(e);
            if (t.bytes() <= 64 * KB) {
                assertThat(t.eventsOnDisk()).as("below the threshold after %d events", i + 1).isZero();
            }
        }
        t.seal();
        assertThat(t.eventsOnDisk()).as("every event, including those before the threshold").isEqualTo(200);
        assertThat(buffer.memoryUsed()).isZero();
        assertThat(buffer.spilledBytes()).isGreaterThan(200L * KB);
        assertSameEvents(readBack(t), written);
        t.release();
        assertThat(buffer.spilledBytes()).isZero();
        assertThat(store.isEmpty()).isTrue();
    }

    @Test
    void autoSendsNewDataToDiskAboveTheNewThresholdAndKeepsOldDataInMemory() {
        start(Map.of("storage.memoryLimit", "1MB", "storage.persistNewThreshold", "0.5",
                "storage.persistAllThreshold", "0.95"));
        BufferedTransaction a = buffer.begin("shard-0", "a", template.fde);
        while (buffer.memoryUsed() < 512 * KB) {
            a.append(event(a.eventCount(), 4 * KB));
            assertThat(a.eventCount()).as("events needed to reach the new threshold").isLessThan(200);
        }
        assertThat(a.eventsOnDisk()).as("what came before the threshold stays in memory").isZero();
        for (int i = 0; i < 10; i++) {
            a.append(event(a.eventCount(), 4 * KB));
        }
        assertThat(a.eventsOnDisk()).as("a's new data goes to disk too").isEqualTo(10);
        long aInMemory = a.memoryBytes();
        BufferedTransaction b = buffer.begin("shard-1", "b", template.fde);
        List<BinlogEvent> written = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            BinlogEvent e = event(i, 4 * KB);
            written.add(e);
            b.append(e);
        }
        b.seal();
        assertThat(b.eventsOnDisk()).isEqualTo(40);
        assertThat(a.memoryBytes()).isEqualTo(aInMemory);
        assertThat(buffer.memoryUsed()).isLessThanOrEqualTo((long) (0.95 * (1 << 20)));
        assertSameEvents(readBack(b), written);
        b.release();
        a.release();
        assertThat(store.isEmpty()).isTrue();
        assertThat(buffer.memoryUsed()).isZero();
    }

    @Test
    void autoMovesBufferedDataToDiskAboveTheAllThreshold() {
        start(Map.of("storage.memoryLimit", "1MB", "storage.persistNewThreshold", "0.9",
                "storage.persistAllThreshold", "0.9"));
        BufferedTransaction a = buffer.begin("shard-0", "a", template.fde);
        BufferedTransaction b = buffer.begin("shard-1", "b", template.fde);
        List<BinlogEvent> wa = new ArrayList<>();
        List<BinlogEvent> wb = new ArrayList<>();
        long limit = 1 << 20;
        int i = 0;
        while (a.eventsOnDisk() == 0) {
            assertThat(i).as("events needed to pass the all threshold").isLessThan(1000);
            BinlogEvent e = event(i++, 3 * KB);
            (i % 2 == 0 ? wa : wb).add(e);
            (i % 2 == 0 ? a : b).append(e);
            assertThat(buffer.memoryUsed()).isLessThanOrEqualTo((long) (0.9 * limit));
        }
        assertThat(i * 3L * KB).isGreaterThan((long) (0.8 * limit));
        assertThat(a.memoryBytes()).as("all of a moved").isZero();
        assertThat(b.memoryBytes()).as("all of b moved").isZero();
        assertThat(a.eventsOnDisk()).isEqualTo(a.eventCount());
        // Below the thresholds again: new data goes to memory.
        BinlogEvent more = event(i, 3 * KB);
        wa.add(more);
        a.append(more);
        assertThat(a.memoryBytes()).isEqualTo(cost(more));
        a.seal();
        b.seal();
        assertSameEvents(readBack(a), wa);
        assertSameEvents(readBack(b), wb);
        a.release();
        b.release();
        assertThat(store.isEmpty()).isTrue();
        assertThat(buffer.memoryUsed()).isZero();
    }

    @Test
    void forcePutsEveryTransactionOnDisk() {
        start(Map.of("storage.persist.mode", "FORCE", "storage.memoryLimit", "10MB"));
        BufferedTransaction t = buffer.begin("shard-0", "0-101-9", template.fde);
        List<BinlogEvent> written = new ArrayList<>(List.of(template.tableMap));
        t.append(template.tableMap);
        for (int i = 0; i < 30; i++) {
            BinlogEvent e = event(i, 700);
            written.add(e);
            t.append(e);
            assertThat(buffer.memoryUsed()).as("only the open chunk").isEqualTo(buffer.chunkBytes());
        }
        t.seal();
        assertThat(buffer.memoryUsed()).isZero();
        assertThat(t.eventsOnDisk()).isEqualTo(31);
        assertThat(buffer.spillStoreBytes()).isPositive();
        assertSameEvents(readBack(t), written);
        t.release();
        assertThat(store.isEmpty()).isTrue();
    }

    @Test
    void withPersistOffATransactionThatDoesNotFitFailsClearlyAndFreesItsMemory() {
        start(Map.of("storage.isPersistOn", "false", "storage.memoryLimit", "256KB"));
        BufferedTransaction other = buffer.begin("shard-0", "0-101-1", template.fde);
        other.append(event(0, 10 * KB));
        long otherCost = buffer.memoryUsed();
        BufferedTransaction big = buffer.begin("shard-2", "0-103-77", template.fde);
        assertThatThrownBy(() -> {
            for (int i = 0; i < 1000; i++) {
                big.append(event(i, 8 * KB));
            }
        }).isInstanceOf(TransactionBufferFullException.class)
                .hasMessageStartingWith("shard shard-2: transaction 0-103-77 does not fit the buffer: storage.memoryLimit=256KB"
                        + " (262144 bytes)")
                .hasMessageContaining("storage.isPersistOn=false forbids spilling to disk")
                .satisfies(e -> {
                    TransactionBufferFullException f = (TransactionBufferFullException) e;
                    assertThat(f.shard()).isEqualTo("shard-2");
                    assertThat(f.transaction()).isEqualTo("0-103-77");
                    assertThat(f.limitBytes()).isEqualTo(256 * KB);
                });
        assertThat(big.state()).isEqualTo(BufferedTransaction.State.FAILED);
        assertThat(buffer.memoryUsed()).isEqualTo(otherCost);
        assertThatThrownBy(() -> big.append(event(0, KB))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("transaction 0-103-77: it is FAILED");
        other.seal();
        assertThat(readBack(other)).hasSize(1);
        other.release();
        assertThat(store.isEmpty()).isTrue();
    }

    @Test
    void editsApplyToDataBufferedAfterThemAndLoweringTheAllThresholdMovesEverything() {
        start(Map.of("storage.memoryLimit", "4MB"));
        BufferedTransaction t = buffer.begin("shard-0", "0-101-5", template.fde);
        List<BinlogEvent> written = new ArrayList<>();
        int i = 0;
        for (; i < 20; i++) {
            written.add(event(i, 2 * KB));
            t.append(written.get(i));
        }
        assertThat(t.eventsOnDisk()).isZero();
        live.apply(Map.of("storage.persist.mode", "FORCE"));
        for (; i < 40; i++) {
            written.add(event(i, 2 * KB));
            t.append(written.get(i));
        }
        assertThat(t.eventsOnDisk()).as("only what came after the edit").isEqualTo(20);
        live.apply(Map.of("storage.isPersistOn", "false"));
        for (; i < 60; i++) {
            written.add(event(i, 2 * KB));
            t.append(written.get(i));
        }
        assertThat(t.eventsOnDisk()).isEqualTo(20);
        live.apply(Map.of("storage.isPersistOn", "true", "storage.persist.mode", "AUTO"));
        assertThat(t.eventsOnDisk()).as("use is far below the thresholds").isEqualTo(20);
        long use = buffer.memoryUsed();
        String lowered = Double.toString((double) use / (4 << 20) / 2);
        live.apply(Map.of("storage.persistNewThreshold", lowered, "storage.persistAllThreshold", lowered));
        assertThat(t.eventsOnDisk()).as("everything, at once").isEqualTo(60);
        assertThat(buffer.memoryUsed()).isZero();
        t.seal();
        assertSameEvents(readBack(t), written);
        t.release();
        assertThat(store.isEmpty()).isTrue();
    }

    @Test
    void aSpilledTransactionReadsBackAsGlobalEventsForTheWriter() {
        start(Map.of("storage.persist.mode", "FORCE"));
        BufferedTransaction t = buffer.begin("shard-0", "0-101-3", template.fde);
        t.append(template.tableMap);
        for (int i = 0; i < 5; i++) {
            t.append(event(i, 4 * KB));
        }
        t.seal();
        GlobalTableRegistry registry = new GlobalTableRegistry(
                LogicalNames.defaults(), c -> { });
        List<GlobalEvent> global = new ArrayList<>();
        try (BufferedTransaction.EventIterator it = t.events()) {
            while (it.hasNext()) {
                BinlogEvent e = it.next();
                global.add(e.type() == EventType.TABLE_MAP ? registry.tableMap("shard-0", e)
                        : registry.rows("shard-0", e));
            }
        }
        t.release();
        assertThat(global).hasSize(6);
        GlobalEvent.TableMap map = (GlobalEvent.TableMap) global.get(0);
        TableMapEvent source = template.tableMap.body(TableMapEvent.class);
        assertThat(map.database()).isEqualTo(LogicalNames.defaults().database(source.database()));
        assertThat(global.subList(1, 6)).allSatisfy(g -> assertThat(((GlobalEvent.Rows) g).tableId())
                .isEqualTo(map.tableId()));
        // The writer re-encodes them; what it writes decodes to the same rows under the global id.
        BinlogEventEncoder encoder = new BinlogEventEncoder(
                BinlogFlavor.MYSQL, 1);
        ByteBuf out = Unpooled.buffer();
        try {
            out.writeBytes(BinlogEventDecoder.MAGIC);
            long pos = 4 + encoder.formatDescription(out, 0);
            pos += encoder.tableMap(out, pos, map.source(), map.tableId(), map.database(), map.table());
            GlobalEvent.Rows rows = (GlobalEvent.Rows) global.get(1);
            encoder.rows(out, pos, rows.source(), rows.tableId());
            byte[] bytes = new byte[out.readableBytes()];
            out.readBytes(bytes);
            List<BinlogEvent> written = new ArrayList<>();
            new BinlogEventDecoder("global", bytes, DecoderOptions.FULL).forEachRemaining(written::add);
            RowsEvent back = written.get(2).body(RowsEvent.class);
            assertThat(back.tableId()).isEqualTo(map.tableId());
            assertThat(back.rows()).isEqualTo(event(0, 4 * KB).body(RowsEvent.class).rows());
        } finally {
            out.release();
        }
        assertThat(store.isEmpty()).isTrue();
    }

    @Test
    void seededRandomHistoriesLoseNothingAndKeepTheBudget() {
        for (long seed = 1; seed <= 5; seed++) {
            runRandomHistory(seed);
        }
    }

    @Test
    void concurrentShardsAndLiveEditsLoseNothing() throws Exception {
        start(Map.of("storage.memoryLimit", "4MB", "storage.txnPersistThreshold", "512KB"));
        AtomicBoolean editing = new AtomicBoolean(true);
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        Thread editor = new Thread(() -> {
            Random r = new Random(99);
            while (editing.get()) {
                String share = String.format(Locale.ROOT, "%.2f", 0.1 + r.nextDouble() * 0.85);
                live.apply(Map.of("storage.persistNewThreshold", share, "storage.persistAllThreshold", share,
                        "storage.persist.mode", r.nextInt(3) == 0 ? "FORCE" : "AUTO"));
                Thread.onSpinWait();
            }
        }, "test-editor");
        List<Thread> shards = new ArrayList<>();
        for (int s = 0; s < 4; s++) {
            int shard = s;
            shards.add(new Thread(() -> {
                try {
                    Random r = new Random(shard);
                    for (int txn = 0; txn < 15; txn++) {
                        BufferedTransaction t = buffer.begin("shard-" + shard, shard + "-" + txn, template.fde);
                        List<BinlogEvent> written = new ArrayList<>();
                        int events = 1 + r.nextInt(120);
                        for (int i = 0; i < events; i++) {
                            BinlogEvent e = event(shard * 1_000_000L + txn * 1000L + i, 64 + r.nextInt(12 * KB));
                            written.add(e);
                            t.append(e);
                        }
                        t.seal();
                        assertSameEvents(readBack(t), written);
                        t.release();
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "test-shard-" + s));
        }
        editor.start();
        shards.forEach(Thread::start);
        for (Thread t : shards) {
            t.join(60_000);
        }
        editing.set(false);
        editor.join(10_000);
        assertThat(failures).isEmpty();
        assertThat(buffer.memoryUsed()).isZero();
        assertThat(buffer.spilledBytes()).isZero();
        assertThat(buffer.openTransactions()).isZero();
        assertThat(store.isEmpty()).isTrue();
    }

    private void runRandomHistory(long seed) {
        if (buffer != null) {
            buffer.close();
        }
        start(Map.of("storage.memoryLimit", "2MB", "storage.txnPersistThreshold", "256KB"));
        Random r = new Random(seed);
        Map<BufferedTransaction, List<BinlogEvent>> open = new HashMap<>();
        long n = 0;
        for (int step = 0; step < 600; step++) {
            int op = r.nextInt(100);
            if (op < 8 || open.isEmpty()) {
                open.put(buffer.begin("shard-" + r.nextInt(4), "seed" + seed + "-" + step, template.fde), new ArrayList<>());
            } else if (op < 12) {
                String share = String.format(Locale.ROOT, "%.2f", 0.05 + r.nextDouble() * 0.9);
                live.apply(Map.of("storage.persistNewThreshold", share, "storage.persistAllThreshold", share,
                        "storage.persist.mode", r.nextInt(4) == 0 ? "FORCE" : "AUTO"));
            } else if (op < 18) {
                BufferedTransaction t = open.keySet().stream().sorted(Comparator.comparing(BufferedTransaction::key))
                        .toList().get(r.nextInt(open.size()));
                t.seal();
                assertSameEvents(readBack(t), open.remove(t));
                t.release();
            } else {
                BufferedTransaction t = open.keySet().stream().sorted(Comparator.comparing(BufferedTransaction::key))
                        .toList().get(r.nextInt(open.size()));
                BinlogEvent e = event(n++, 64 + r.nextInt(16 * KB));
                t.append(e);
                open.get(t).add(e);
            }
            long sum = open.keySet().stream().mapToLong(BufferedTransaction::memoryBytes).sum();
            assertThat(buffer.memoryUsed()).as("seed %d step %d: accounting", seed, step).isEqualTo(sum);
            assertThat(buffer.memoryUsed()).as("seed %d step %d: budget", seed, step)
                    .isLessThanOrEqualTo(live.current().allThresholdBytes() + open.size() * (long) buffer.chunkBytes());
        }
        for (Map.Entry<BufferedTransaction, List<BinlogEvent>> e : open.entrySet()) {
            e.getKey().seal();
            assertSameEvents(readBack(e.getKey()), e.getValue());
            e.getKey().release();
        }
        assertThat(buffer.memoryUsed()).isZero();
        assertThat(buffer.spilledBytes()).isZero();
        assertThat(store.isEmpty()).as("seed %d: RocksDB empty after release", seed).isTrue();
    }
}
