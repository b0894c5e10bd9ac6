package io.tributary.storage.binlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.event.EventType;
import io.tributary.core.sorter.HeldTransaction;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class BinlogFileReaderTest {

    /**
     * A subscriber that started before anything was written follows the writer across rotations, wakes
     * up when new data becomes durable, and never receives an event beyond the durable mark.
     */
    @ParameterizedTest
    @EnumSource(BinlogFlavor.class)
    void shouldTailAcrossRotationsWithoutReadingPastTheDurableMark(BinlogFlavor flavor, @TempDir Path dir) throws Exception {
        BinlogConfig config = GlobalBinlogWriterTest.config(dir, flavor, 4096, SyncPolicy.COMMIT);
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", GlobalBinlogWriterTest.pool(flavor));
        int total = 300;
        try (GlobalBinlogWriter w = GlobalBinlogWriterTest.open(config);
             BinlogFileReader reader = BinlogFileReader.at(w, new BinlogPosition("binlog.000001", 4))) {
            List<String> violations = new ArrayList<>();
            CompletableFuture<List<Long>> seen = CompletableFuture.supplyAsync(() -> {
                List<Long> gtids = new ArrayList<>();
                try {
                    while (gtids.size() < total) {
                        BinlogEvent e = reader.next(Duration.ofSeconds(20));
                        if (e == null) {
                            break;
                        }
                        BinlogPosition end = new BinlogPosition(reader.position().file(), e.offset() + e.length());
                        if (e.type() != EventType.ROTATE && end.compareTo(w.durability().current().position()) > 0) {
                            violations.add(e.type() + " ending at " + end + " beyond " + w.durability().current());
                        }
                        long s = BinlogDirectory.sequence(e.body() == null ? decodeFull(e, reader) : e);
                        if (s >= 0) {
                            gtids.add(s);
                        }
                    }
                } catch (Exception ex) {
                    throw new IllegalStateException(ex);
                }
                return gtids;
            });
            for (int i = 0; i < total; i++) {
                w.append(feed.next());
                if (i % 50 == 0) {
                    Thread.sleep(20); // let the reader catch up and block
                }
            }
            assertThat(seen.get(30, TimeUnit.SECONDS))
                    .isEqualTo(java.util.stream.LongStream.rangeClosed(1, total).boxed().toList());
            assertThat(violations).isEmpty();
            assertThat(w.index().entries().size()).isGreaterThan(5);
        }
    }

    @ParameterizedTest
    @EnumSource(BinlogFlavor.class)
    void shouldStartAfterTheSubscribersGtidSetInTheFileTheIndexNames(BinlogFlavor flavor, @TempDir Path dir) throws Exception {
        BinlogConfig config = GlobalBinlogWriterTest.config(dir, flavor, 4096, SyncPolicy.NONE);
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", GlobalBinlogWriterTest.pool(flavor));
        try (GlobalBinlogWriter w = GlobalBinlogWriterTest.open(config)) {
            for (int i = 0; i < 200; i++) {
                w.append(feed.next());
            }
            assertThat(w.durability().awaitSequence(200, Duration.ofSeconds(10))).isTrue();
            for (long have : new long[] {0, 1, 137, 199, 200}) {
                String set = flavor.isMariaDb() ? "0-7-" + have : have == 0 ? "" : w.serverUuid() + ":1-" + have;
                BinlogIndex.Entry expectedFile = w.index().entries().stream()
                        .filter(e -> e.previousSequence() <= have).reduce((a, b) -> b).orElseThrow();
                try (BinlogFileReader r = BinlogFileReader.fromGtids(w, set)) {
                    assertThat(r.position().file()).isEqualTo(expectedFile.file());
                    List<Long> gtids = new ArrayList<>();
                    for (BinlogEvent e = r.next(Duration.ofMillis(50)); e != null; e = r.next(Duration.ofMillis(50))) {
                        long s = BinlogDirectory.sequence(decodeFull(e, r));
                        if (s >= 0) {
                            gtids.add(s);
                        }
                    }
                    assertThat(gtids).as("GTIDs after [%s]", set)
                            .isEqualTo(java.util.stream.LongStream.rangeClosed(have + 1, 200).boxed().toList());
                }
            }
        }
    }

    @Test
    void shouldRefuseAGtidSetWhoseMissingTransactionsWerePurged(@TempDir Path dir) throws Exception {
        BinlogConfig config = BinlogConfig.parse(Map.of("binlog.dir", dir.toString(), "binlog.file.size", "4096",
                "binlog.retention.size", "16384", "binlog.sync", "none"));
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", GlobalBinlogWriterTest.pool(BinlogFlavor.MYSQL));
        try (GlobalBinlogWriter w = GlobalBinlogWriterTest.open(config)) {
            for (int i = 0; i < 200; i++) {
                w.append(feed.next());
            }
            assertThat(w.index().entries().get(0).file()).isNotEqualTo("binlog.000001");
            assertThatThrownBy(() -> BinlogFileReader.fromGtids(w, w.serverUuid() + ":1-5"))
                    .isInstanceOf(NoSuchFileException.class).hasMessageContaining("purged");
            assertThatThrownBy(() -> BinlogFileReader.at(w, new BinlogPosition("binlog.000001", 4)))
                    .isInstanceOf(NoSuchFileException.class).hasMessageContaining("binlog.000001");
        }
    }

    /**
     * The dump server's path, events as bytes without an object each, hands over exactly the events {@link
     * BinlogFileReader#next} returns, byte for byte, across rotations and after a GTID set (skipping included).
     */
    @ParameterizedTest
    @EnumSource(BinlogFlavor.class)
    void shouldHandOverTheSameEventBytesWithoutEventObjects(BinlogFlavor flavor, @TempDir Path dir) throws Exception {
        BinlogConfig config = GlobalBinlogWriterTest.config(dir, flavor, 4096, SyncPolicy.NONE);
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", GlobalBinlogWriterTest.pool(flavor));
        try (GlobalBinlogWriter w = GlobalBinlogWriterTest.open(config)) {
            for (int i = 0; i < 200; i++) {
                w.append(feed.next());
            }
            assertThat(w.durability().awaitSequence(200, Duration.ofSeconds(10))).isTrue();
            assertThat(w.index().entries().size()).isGreaterThan(5);
            for (long have : new long[] {0, 137}) {
                String set = flavor.isMariaDb() ? "0-7-" + have : have == 0 ? "" : w.serverUuid() + ":1-" + have;
                List<String> objects = new ArrayList<>();
                try (BinlogFileReader r = BinlogFileReader.fromGtids(w, set)) {
                    for (BinlogEvent e = r.next(Duration.ofMillis(50)); e != null; e = r.next(Duration.ofMillis(50))) {
                        objects.add(java.util.HexFormat.of().formatHex(e.buffer(), e.bufferOffset(),
                                e.bufferOffset() + e.length()));
                    }
                }
                List<String> bytes = new ArrayList<>();
                List<Integer> types = new ArrayList<>();
                try (BinlogFileReader r = BinlogFileReader.fromGtids(w, set)) {
                    while (r.nextEvents((type, b, at, length) -> {
                        types.add(type);
                        bytes.add(io.netty.buffer.ByteBufUtil.hexDump(b, at, length));
                    }, 1000, Duration.ofMillis(50)) > 0) {
                        // batches of about 1000 bytes
                    }
                }
                assertThat(bytes).as("events after [%s]", set).hasSize(objects.size()).isEqualTo(objects);
                assertThat(types).contains(EventType.ROTATE.code(), EventType.FORMAT_DESCRIPTION.code());
            }
        }
    }

    /**
     * The bytes path hands over slices of the direct buffers the file is read into: a sink that retains them (as the
     * dump server does while a batch waits in a subscriber's socket queue) still reads the same bytes after the
     * reader moved on through later chunks and was closed, and once released nothing stays held.
     */
    @Test
    void shouldKeepRetainedEventBytesValidAfterTheReaderMovesOn(@TempDir Path dir) throws Exception {
        BinlogConfig config = GlobalBinlogWriterTest.config(dir, BinlogFlavor.MYSQL, 64L << 20, SyncPolicy.NONE);
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", GlobalBinlogWriterTest.pool(BinlogFlavor.MYSQL));
        try (GlobalBinlogWriter w = GlobalBinlogWriterTest.open(config)) {
            int transactions = 0;
            while (transactions % 100 != 0
                    || java.nio.file.Files.size(dir.resolve("binlog.000001")) < 2 * BinlogEventScanner.RAW_CHUNK + 4096) {
                w.append(feed.next());
                transactions++;
            }
            assertThat(w.durability().awaitSequence(transactions, Duration.ofSeconds(10))).isTrue();
            List<String> objects = new ArrayList<>();
            try (BinlogFileReader r = BinlogFileReader.at(w, new BinlogPosition("binlog.000001", 4))) {
                for (BinlogEvent e = r.next(Duration.ofMillis(50)); e != null; e = r.next(Duration.ofMillis(50))) {
                    objects.add(java.util.HexFormat.of().formatHex(e.buffer(), e.bufferOffset(),
                            e.bufferOffset() + e.length()));
                }
            }
            List<io.netty.buffer.ByteBuf> kept = new ArrayList<>();
            try (BinlogFileReader r = BinlogFileReader.at(w, new BinlogPosition("binlog.000001", 4))) {
                while (r.nextEvents((type, b, at, length) -> kept.add(b.retainedSlice(at, length)), 64 * 1024,
                        Duration.ofMillis(50)) > 0) {
                    // batches of 64 KB, across several chunks
                }
            }
            assertThat(kept.stream().map(b -> java.util.HexFormat.of().formatHex(io.netty.buffer.ByteBufUtil.getBytes(b)))
                    .toList()).isEqualTo(objects);
            kept.forEach(io.netty.buffer.ByteBuf::release);
            assertThat(kept.subList(1, kept.size())).as("the events after the format description (a heap copy)")
                    .allSatisfy(b -> assertThat(b.refCnt()).isZero());
        }
    }

    /**
     * The time the bytes path spends reading the files (what tells the dump server a disk read from a page-cache one)
     * counts the reads only: it grows with them, across files, and not while the caller does something else.
     */
    @Test
    void shouldCountTheTimeSpentReadingTheFilesOnly(@TempDir Path dir) throws Exception {
        BinlogConfig config = GlobalBinlogWriterTest.config(dir, BinlogFlavor.MARIADB, 4096, SyncPolicy.NONE);
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", GlobalBinlogWriterTest.pool(BinlogFlavor.MARIADB));
        try (GlobalBinlogWriter w = GlobalBinlogWriterTest.open(config)) {
            appendDurably(w, feed, 200);
            assertThat(w.index().entries().size()).as("several files").isGreaterThan(3);
            try (BinlogFileReader r = BinlogFileReader.at(w, new BinlogPosition("binlog.000001", 4))) {
                assertThat(r.readNanos()).isZero();
                r.nextEvents((type, b, at, length) -> { }, 16 * 1024, Duration.ofMillis(50));
                long first = r.readNanos();
                assertThat(first).as("after the first batch").isPositive();
                Thread.sleep(300);
                assertThat(r.readNanos()).as("nothing read while the caller slept").isEqualTo(first);
                drain(r);
                assertThat(r.readNanos()).as("the other files' reads added")
                        .isGreaterThan(first).isLessThan(java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(300));
            }
        }
    }

    /**
     * A damaged event in a file is refused with the file, the offset and what is wrong, on the bytes path too: a
     * damaged body by its checksum, a damaged size because the event would run past the durable end (where a
     * subscriber used to wait forever for bytes that would never come).
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(ints = {11, 40})
    void shouldRefuseADamagedEventWithWhereItIs(int damagedByte, @TempDir Path dir) throws Exception {
        BinlogConfig config = GlobalBinlogWriterTest.config(dir, BinlogFlavor.MYSQL, 1 << 20, SyncPolicy.NONE);
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", GlobalBinlogWriterTest.pool(BinlogFlavor.MYSQL));
        try (GlobalBinlogWriter w = GlobalBinlogWriterTest.open(config)) {
            appendDurably(w, feed, 20);
            Path file = dir.resolve("binlog.000001");
            long middle = java.nio.file.Files.size(file) / 2;
            long eventStart = -1;
            try (BinlogFileReader r = BinlogFileReader.at(w, new BinlogPosition("binlog.000001", 4))) {
                for (BinlogEvent e = r.next(Duration.ofMillis(50)); e != null && eventStart < 0; e = r.next(Duration.ofMillis(50))) {
                    if (e.offset() >= middle && e.length() > 60) {
                        eventStart = e.offset();
                    }
                }
            }
            flipByte(file, eventStart + damagedByte);
            try (BinlogFileReader r = BinlogFileReader.at(w, new BinlogPosition("binlog.000001", 4))) {
                assertThatThrownBy(() -> {
                    while (r.nextEvents((type, b, at, length) -> { }, 1 << 20, Duration.ofMillis(50)) > 0) {
                        // read until the damage
                    }
                }).isInstanceOf(io.tributary.core.event.BinlogFormatException.class)
                        .hasMessageContaining("binlog.000001").hasMessageContaining(Long.toString(eventStart))
                        .hasMessageContaining(damagedByte == 11 ? "past the durable end" : "checksum");
            }
        }
    }

    /**
     * {@code dump.checksums}: with first-read, an event one subscriber's reader checked is not checked again for the
     * next, but a damaged event no reader had got to is refused to every subscriber that reaches it, each time; with
     * every-read, also a byte damaged after a first subscriber read it.
     */
    @Test
    void shouldCheckEachEventOnceForAllReadersOrForEveryReaderWhenAsked(@TempDir Path dir) throws Exception {
        BinlogConfig config = GlobalBinlogWriterTest.config(dir, BinlogFlavor.MYSQL, 1 << 20, SyncPolicy.NONE);
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", GlobalBinlogWriterTest.pool(BinlogFlavor.MYSQL));
        try (GlobalBinlogWriter w = GlobalBinlogWriterTest.open(config)) {
            appendDurably(w, feed, 40);
            Path file = dir.resolve("binlog.000001");
            long size = java.nio.file.Files.size(file);
            long firstReaderEnd;
            try (BinlogFileReader first = BinlogFileReader.at(w, new BinlogPosition("binlog.000001", 4))) {
                first.nextEvents((type, b, at, length) -> { }, size / 2, Duration.ofMillis(50));
                firstReaderEnd = first.position().position();
            }
            assertThat(w.verifiedChecksums().file(1).end()).as("what the first reader checked, shared")
                    .isEqualTo(firstReaderEnd);
            long checkedEvent = -1;
            long uncheckedEvent = -1;
            try (BinlogFileReader r = BinlogFileReader.at(w, new BinlogPosition("binlog.000001", 4))) {
                for (BinlogEvent e = r.next(Duration.ofMillis(50)); e != null; e = r.next(Duration.ofMillis(50))) {
                    if (e.length() > 60 && e.offset() > 4 && e.type() != EventType.FORMAT_DESCRIPTION) {
                        if (checkedEvent < 0 && e.offset() + e.length() <= firstReaderEnd) {
                            checkedEvent = e.offset();
                        } else if (uncheckedEvent < 0 && e.offset() >= firstReaderEnd) {
                            uncheckedEvent = e.offset();
                        }
                    }
                }
            }
            assertThat(checkedEvent).isPositive();
            assertThat(uncheckedEvent).isPositive();
            flipByte(file, checkedEvent + 40);
            flipByte(file, uncheckedEvent + 40);

            for (int i = 0; i < 2; i++) {
                try (BinlogFileReader r = BinlogFileReader.at(w, new BinlogPosition("binlog.000001", 4))) {
                    assertThatThrownBy(() -> drain(r)).as("first-read, subscriber %d", i + 2)
                            .isInstanceOf(io.tributary.core.event.BinlogFormatException.class)
                            .hasMessageContaining("binlog.000001").hasMessageContaining(Long.toString(uncheckedEvent))
                            .hasMessageContaining("checksum");
                }
            }
            assertThat(w.verifiedChecksums().file(1).end()).as("a damaged event never becomes verified")
                    .isEqualTo(uncheckedEvent);
            try (BinlogFileReader r = BinlogFileReader.at(w, new BinlogPosition("binlog.000001", 4),
                    ChecksumPolicy.EVERY_READ)) {
                assertThatThrownBy(() -> drain(r)).as("every-read")
                        .isInstanceOf(io.tributary.core.event.BinlogFormatException.class)
                        .hasMessageContaining(Long.toString(checkedEvent)).hasMessageContaining("checksum");
            }
        }
    }

    private static void appendDurably(GlobalBinlogWriter w, Iterator<HeldTransaction> feed, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            w.append(feed.next());
        }
        assertThat(w.durability().awaitSequence(n, Duration.ofSeconds(10))).isTrue();
    }

    private static void drain(BinlogFileReader r) throws Exception {
        while (r.nextEvents((type, b, at, length) -> { }, 1 << 20, Duration.ofMillis(50)) > 0) {
            // read to the durable end
        }
    }

    private static void flipByte(Path file, long offset) throws java.io.IOException {
        try (var ch = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.READ,
                java.nio.file.StandardOpenOption.WRITE)) {
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(1);
            ch.read(b, offset);
            ch.write(java.nio.ByteBuffer.wrap(new byte[] {(byte) (b.get(0) ^ 0x55)}), offset);
        }
    }

    private static BinlogEvent decodeFull(BinlogEvent e, BinlogFileReader r) {
        if (e.type() != EventType.GTID && e.type() != EventType.MARIA_GTID) {
            return e;
        }
        return io.tributary.core.event.BinlogEventDecoder.continuing("test", r.formatDescriptionEvent()
                        .body(io.tributary.core.event.FormatDescription.class), e.offset(), e.buffer(), e.bufferOffset(),
                e.length(), io.tributary.core.event.DecoderOptions.FULL).next();
    }
}
