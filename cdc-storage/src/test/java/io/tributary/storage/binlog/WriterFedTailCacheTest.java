package io.tributary.storage.binlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.event.EventHeader;
import io.tributary.core.event.EventType;
import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.sorter.HeldTransaction;
import io.tributary.core.transaction.GlobalEvent;
import io.tributary.core.transaction.GlobalTransaction;
import io.tributary.storage.tail.TailCache;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The shared tail cache as the writer feeds it: the bytes of the files, only once durable, within its size. */
class WriterFedTailCacheTest {

    /**
     * A subscriber that joined the cache when it was attached sees every event the writer wrote afterwards, across
     * rotations and held transactions, byte for byte as in the files, each only once the durable mark has passed it.
     */
    @ParameterizedTest
    @EnumSource(BinlogFlavor.class)
    void shouldHoldTheDurableBytesOfTheFilesAcrossRotations(BinlogFlavor flavor, @TempDir Path dir) throws Exception {
        BinlogConfig config = GlobalBinlogWriterTest.config(dir, flavor, 4096, SyncPolicy.COMMIT);
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", GlobalBinlogWriterTest.pool(flavor));
        int total = 300;
        try (GlobalBinlogWriter w = GlobalBinlogWriterTest.open(config);
             TailCache cache = TailCache.attach(w, 64 << 20)) {
            BinlogPosition start = w.writtenPosition();
            long first = cache.find(start);
            assertThat(first).as("the attach position is the cache's end").isGreaterThanOrEqualTo(0);
            List<String> violations = new ArrayList<>();
            CompletableFuture<List<TailCache.Entry>> seen = CompletableFuture.supplyAsync(() -> {
                List<TailCache.Entry> got = new ArrayList<>();
                try {
                    for (long c = first; ; c++) {
                        TailCache.Entry e = cache.get(c, Duration.ofSeconds(2));
                        if (e == null) {
                            return got;
                        }
                        BinlogPosition durable = w.durability().current().position();
                        if (e.next().compareTo(durable) > 0) {
                            violations.add(e + " ends at " + e.next() + " beyond the durable " + durable);
                        }
                        got.add(e);
                    }
                } catch (Exception ex) {
                    throw new IllegalStateException(ex);
                }
            });
            for (int i = 0; i < total; i++) {
                w.append(feed.next(), i % 7 != 6 && i < total - 1); // held in groups of seven
                if (i % 50 == 0) {
                    Thread.sleep(20); // the subscriber catches up and waits
                }
            }
            assertThat(w.durability().awaitSequence(total, Duration.ofSeconds(10))).isTrue();
            List<TailCache.Entry> entries = seen.get(30, TimeUnit.SECONDS);
            assertThat(violations).isEmpty();
            assertThat(w.index().entries().size()).isGreaterThan(5);
            assertSameAsFiles(dir, start, entries, w.durability().current().position());
            assertThat(entries.stream().filter(e -> e.type() == EventType.ROTATE).count())
                    .isEqualTo(w.index().entries().size() - 1);
            assertThat(entries.stream().filter(e -> e.type() == EventType.GTID || e.type() == EventType.MARIA_GTID).count())
                    .isEqualTo(total);
        }
    }

    /**
     * A MySQL transaction larger than the write buffer reaches the file, and the cache, in pieces: its GTID's length is
     * patched afterwards in both. One that fails after a piece was written is undone in both: the cache serves the
     * transactions around it as the file has them.
     */
    @Test
    void shouldPatchAndUndoLikeTheFile(@TempDir Path dir) throws Exception {
        BinlogConfig config = GlobalBinlogWriterTest.config(dir, BinlogFlavor.MYSQL, 64 << 20, SyncPolicy.COMMIT);
        List<HeldTransaction> txns = new ArrayList<>();
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", GlobalBinlogWriterTest.pool(BinlogFlavor.MYSQL));
        while (txns.size() < 20) {
            HeldTransaction t = feed.next();
            if (t.kind() == GlobalTransaction.Kind.ROWS) {
                txns.add(t);
            }
        }
        try (GlobalBinlogWriter w = GlobalBinlogWriterTest.open(config);
             TailCache cache = TailCache.attach(w, 64 << 20)) {
            BinlogPosition start = w.writtenPosition();
            long first = cache.find(start);
            w.append(txns.get(0), true);
            w.append(repeated(txns.get(1), GlobalBinlogWriter.FLUSH_BYTES + (64 << 10), false), true);
            w.append(txns.get(2), true);
            assertThatThrownBy(() -> w.append(repeated(txns.get(3), GlobalBinlogWriter.FLUSH_BYTES + (64 << 10), true), true))
                    .hasMessageContaining("spill store read failed");
            w.append(txns.get(4), false);
            assertThat(w.durability().awaitSequence(4, Duration.ofSeconds(10))).isTrue();
            BinlogPosition durable = w.durability().current().position();
            assertThat(durable).isEqualTo(w.writtenPosition());
            List<TailCache.Entry> entries = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            for (long c = first; entries.isEmpty() || !entries.get(entries.size() - 1).next().equals(durable); c++) {
                TailCache.Entry e = cache.get(c, Duration.ofSeconds(2));
                assertThat(e).as("entry %d", c).isNotNull();
                entries.add(e);
                assertThat(System.nanoTime()).isLessThan(deadline);
            }
            assertSameAsFiles(dir, start, entries, durable);
            assertThat(entries.stream().filter(e -> e.type() == EventType.GTID).count()).isEqualTo(4);
        }
    }

    /**
     * Subscribers waiting at the end all get the next transaction's events once it is durable; one interrupted while it
     * waits gets an InterruptedException, and one waiting when the cache closes leaves it (for the files).
     */
    @Test
    void shouldWakeEveryWaitingSubscriberOnePublishAddsTo(@TempDir Path dir) throws Exception {
        BinlogConfig config = GlobalBinlogWriterTest.config(dir, BinlogFlavor.MARIADB, 64 << 20, SyncPolicy.COMMIT);
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", GlobalBinlogWriterTest.pool(BinlogFlavor.MARIADB));
        try (GlobalBinlogWriter w = GlobalBinlogWriterTest.open(config);
             TailCache cache = TailCache.attach(w, 64 << 20)) {
            long first = cache.find(w.writtenPosition());
            List<CompletableFuture<TailCache.Entry>> waiting = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                waiting.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return cache.get(first, Duration.ofSeconds(20));
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, r -> new Thread(r).start()));
            }
            Thread.sleep(100); // they wait
            w.append(feed.next());
            for (CompletableFuture<TailCache.Entry> f : waiting) {
                assertThat(f.get(10, TimeUnit.SECONDS).type()).isEqualTo(EventType.MARIA_GTID);
            }
            long next = cache.find(w.durability().current().position());
            CompletableFuture<Throwable> interrupted = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    cache.get(next, Duration.ofSeconds(20));
                    interrupted.complete(null);
                } catch (Exception e) {
                    interrupted.complete(e);
                }
            });
            t.start();
            Thread.sleep(100);
            t.interrupt();
            assertThat(interrupted.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
            CompletableFuture<Throwable> closing = new CompletableFuture<>();
            new Thread(() -> {
                try {
                    cache.get(next, Duration.ofSeconds(20));
                    closing.complete(null);
                } catch (Exception e) {
                    closing.complete(e);
                }
            }).start();
            Thread.sleep(100);
            cache.close();
            assertThat(closing.get(10, TimeUnit.SECONDS)).isInstanceOf(TailCache.Evicted.class);
        }
    }

    /** A subscriber slower than the writer falls out (to the files); the cache keeps to its size. */
    @Test
    void shouldEvictTheOldestAndStayWithinItsSize(@TempDir Path dir) throws Exception {
        BinlogConfig config = GlobalBinlogWriterTest.config(dir, BinlogFlavor.MARIADB, 1 << 20, SyncPolicy.COMMIT);
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", GlobalBinlogWriterTest.pool(BinlogFlavor.MARIADB));
        long max = 16 << 10;
        try (GlobalBinlogWriter w = GlobalBinlogWriterTest.open(config);
             TailCache cache = TailCache.attach(w, max)) {
            long first = cache.find(w.writtenPosition());
            for (int i = 0; i < 400; i++) {
                w.append(feed.next());
                assertThat(cache.bytes()).isLessThanOrEqualTo(max);
            }
            assertThat(w.durability().awaitSequence(400, Duration.ofSeconds(10))).isTrue();
            BinlogPosition durable = w.durability().current().position();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (cache.find(durable) < 0) {
                assertThat(System.nanoTime()).as("the cache reaches the durable end").isLessThan(deadline);
                Thread.sleep(5);
            }
            assertThat(cache.bytes()).isLessThanOrEqualTo(max).isPositive();
            assertThatThrownBy(() -> cache.get(first, Duration.ZERO)).isInstanceOf(TailCache.Evicted.class);
        }
    }

    /**
     * Nobody asked: the writes reach the files only, not the heap. The first subscriber to ask at the end of the files
     * misses, and joins at the end of the next writes, whose entries hold the files' bytes; once no subscriber has
     * asked for the demand timeout, writes are not copied again.
     */
    @Test
    void shouldCopyWritesOnlyWhileASubscriberWantsThem(@TempDir Path dir) throws Exception {
        BinlogConfig config = GlobalBinlogWriterTest.config(dir, BinlogFlavor.MARIADB, 1 << 20, SyncPolicy.COMMIT);
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", GlobalBinlogWriterTest.pool(BinlogFlavor.MARIADB));
        try (GlobalBinlogWriter w = GlobalBinlogWriterTest.open(config);
             TailCache cache = TailCache.attach(w, 64 << 20, Duration.ofMillis(500))) {
            BinlogPosition attached = w.writtenPosition();
            for (int i = 0; i < 50; i++) {
                w.append(feed.next());
            }
            assertThat(w.durability().awaitSequence(50, Duration.ofSeconds(10))).isTrue();
            long skipped = cache.skippedWrites();
            assertThat(skipped).as("writes nobody asked for").isPositive();
            BinlogPosition end = w.durability().current().position();
            assertThat(end.file()).isEqualTo(attached.file());
            assertThat(cache.skippedBytes()).as("their bytes").isEqualTo(end.position() - attached.position());
            assertThat(cache.bytes()).isZero();
            assertThat(cache.find(end)).as("the first ask, at the end of the files: a miss").isNegative();

            for (int i = 0; i < 50; i++) {
                w.append(feed.next());
            }
            assertThat(w.durability().awaitSequence(100, Duration.ofSeconds(10))).isTrue();
            assertThat(cache.skippedWrites()).as("copied once asked").isEqualTo(skipped);
            BinlogPosition durable = w.durability().current().position();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            long cursor;
            while ((cursor = cache.find(end)) < 0) {
                assertThat(System.nanoTime()).as("the cache holds the writes after the ask").isLessThan(deadline);
                Thread.sleep(5);
            }
            List<TailCache.Entry> entries = new ArrayList<>();
            for (long c = cursor; entries.isEmpty() || !entries.get(entries.size() - 1).next().equals(durable); c++) {
                TailCache.Entry e = cache.get(c, Duration.ofSeconds(2));
                assertThat(e).as("entry %d", c).isNotNull();
                entries.add(e);
            }
            assertSameAsFiles(dir, end, entries, durable);

            Thread.sleep(700);
            w.append(feed.next());
            assertThat(cache.skippedWrites()).as("nobody asked for longer than the demand timeout").isEqualTo(skipped + 1);
        }
    }

    /**
     * Writes nobody asked for went to the files only: a subscriber that read the files up to the cache's end as it
     * stood before them must not be given a cursor there and wait for an entry that never comes (the files already
     * hold the next events). It misses, or its cursor is evicted at once, and it reads on from the files.
     */
    @Test
    void shouldNotHoldASubscriberAtAnEndTheFilesWentPast(@TempDir Path dir) throws Exception {
        BinlogConfig config = GlobalBinlogWriterTest.config(dir, BinlogFlavor.MARIADB, 1 << 20, SyncPolicy.COMMIT);
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", GlobalBinlogWriterTest.pool(BinlogFlavor.MARIADB));
        try (GlobalBinlogWriter w = GlobalBinlogWriterTest.open(config);
             TailCache cache = TailCache.attach(w, 64 << 20, Duration.ofMillis(500))) {
            BinlogPosition attached = w.writtenPosition();
            for (int i = 0; i < 20; i++) {
                w.append(feed.next());
            }
            assertThat(w.durability().awaitSequence(20, Duration.ofSeconds(10))).isTrue();
            assertThat(cache.skippedWrites()).as("writes nobody asked for").isPositive();
            assertNoWaitAtAStaleEnd(cache, attached);
        }
    }

    /**
     * A subscriber holding the cursor of the next event to come, that asked nothing for longer than the demand
     * timeout (its connection was not writable, say): the writes made meanwhile are not copied, so its cursor is
     * evicted and it goes back to the files, which hold them; the cache misses at the files' end until the next
     * copied write, whose entries hold the files' bytes.
     */
    @Test
    void shouldSendAnIdleHolderOfTheEndBackToTheFilesOnceWritesAreSkipped(@TempDir Path dir) throws Exception {
        BinlogConfig config = GlobalBinlogWriterTest.config(dir, BinlogFlavor.MARIADB, 1 << 20, SyncPolicy.COMMIT);
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", GlobalBinlogWriterTest.pool(BinlogFlavor.MARIADB));
        try (GlobalBinlogWriter w = GlobalBinlogWriterTest.open(config);
             TailCache cache = TailCache.attach(w, 64 << 20, Duration.ofMillis(300))) {
            long cursor = cache.find(w.writtenPosition());
            assertThat(cursor).as("asked at the attach position, the cache's end").isGreaterThanOrEqualTo(0);
            for (int i = 0; i < 5; i++) {
                w.append(feed.next());
            }
            assertThat(w.durability().awaitSequence(5, Duration.ofSeconds(10))).isTrue();
            BinlogPosition durable = w.durability().current().position();
            BinlogPosition at = null;
            while (at == null || !at.equals(durable)) {
                TailCache.Entry e = cache.get(cursor, Duration.ofSeconds(2));
                assertThat(e).as("entry %d of the copied writes", cursor).isNotNull();
                at = e.next();
                cursor++;
            }
            long skipped = cache.skippedWrites();

            Thread.sleep(500);
            for (int i = 0; i < 5; i++) {
                w.append(feed.next());
            }
            assertThat(w.durability().awaitSequence(10, Duration.ofSeconds(10))).isTrue();
            assertThat(cache.skippedWrites()).as("nobody asked for longer than the demand timeout").isGreaterThan(skipped);
            long held = cursor;
            assertThatThrownBy(() -> cache.get(held, Duration.ofSeconds(5)))
                    .as("the holder of the end goes back to the files, which went on past it")
                    .isInstanceOf(TailCache.Evicted.class);
            BinlogPosition filesEnd = w.durability().current().position();
            assertThat(cache.find(at)).as("the old end").isNegative();
            assertThat(cache.find(filesEnd)).as("the files' end, until a copied write restarts the entries").isNegative();

            w.append(feed.next());
            assertThat(w.durability().awaitSequence(11, Duration.ofSeconds(10))).isTrue();
            BinlogPosition durableNow = w.durability().current().position();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            long joined;
            while ((joined = cache.find(filesEnd)) < 0) {
                assertThat(System.nanoTime()).as("the entries restart with the copied write").isLessThan(deadline);
                Thread.sleep(5);
            }
            List<TailCache.Entry> entries = new ArrayList<>();
            for (long c = joined; entries.isEmpty() || !entries.get(entries.size() - 1).next().equals(durableNow); c++) {
                TailCache.Entry e = cache.get(c, Duration.ofSeconds(2));
                assertThat(e).as("entry %d", c).isNotNull();
                entries.add(e);
            }
            assertSameAsFiles(dir, filesEnd, entries, durableNow);
        }
    }

    /** At {@code end}, which the files went past without the cache: a miss, or a cursor evicted without a wait. */
    private static void assertNoWaitAtAStaleEnd(TailCache cache, BinlogPosition end) throws Exception {
        long cursor = cache.find(end);
        if (cursor >= 0) {
            long started = System.nanoTime();
            assertThatThrownBy(() -> cache.get(cursor, Duration.ofSeconds(5)))
                    .as("a cursor at an end the files went past is evicted, not left waiting")
                    .isInstanceOf(TailCache.Evicted.class);
            assertThat(System.nanoTime() - started).isLessThan(TimeUnit.SECONDS.toNanos(4));
        }
    }

    /** The entries are contiguous from {@code start} to {@code end} and hold the files' bytes. */
    static void assertSameAsFiles(Path dir, BinlogPosition start, List<TailCache.Entry> entries, BinlogPosition end)
            throws Exception {
        Map<String, byte[]> files = new HashMap<>();
        BinlogPosition at = start;
        for (TailCache.Entry e : entries) {
            assertThat(e.start()).isEqualTo(at);
            byte[] file = files.computeIfAbsent(e.start().file(), f -> {
                try {
                    return Files.readAllBytes(dir.resolve(f));
                } catch (java.io.IOException ex) {
                    throw new IllegalStateException(ex);
                }
            });
            byte[] cached = Arrays.copyOfRange(e.chunk(), e.offset(), e.offset() + e.length());
            byte[] written = Arrays.copyOfRange(file, (int) e.start().position(), (int) e.start().position() + e.length());
            if (e.type() == EventType.FORMAT_DESCRIPTION) { // the file's in-use flag was cleared when it was closed
                cached[17] &= ~EventHeader.LOG_EVENT_BINLOG_IN_USE_F;
                written[17] &= ~EventHeader.LOG_EVENT_BINLOG_IN_USE_F;
            }
            assertThat(cached).as("%s", e).isEqualTo(written);
            at = e.next();
        }
        assertThat(at).isEqualTo(end);
    }

    /**
     * {@code source}'s first table map, then its first rows event again and again until {@code bytes} of them were
     * given; with {@code fail}, an error instead of the XID.
     */
    private static GlobalTransaction repeated(HeldTransaction source, int bytes, boolean fail) {
        List<GlobalEvent> events = new ArrayList<>();
        source.events().forEachRemaining(events::add);
        GlobalEvent map = events.stream().filter(e -> e instanceof GlobalEvent.TableMap).findFirst().orElseThrow();
        GlobalEvent.Rows rows = (GlobalEvent.Rows) events.stream().filter(e -> e instanceof GlobalEvent.Rows)
                .findFirst().orElseThrow();
        int count = bytes / rows.source().length() + 1;
        return new GlobalTransaction() {
            @Override
            public Kind kind() {
                return Kind.ROWS;
            }

            @Override
            public long commitTimeMicros() {
                return source.commitTimeMicros();
            }

            @Override
            public Iterator<GlobalEvent> events() {
                return new Iterator<>() {
                    private int n;

                    @Override
                    public boolean hasNext() {
                        return fail || n <= count;
                    }

                    @Override
                    public GlobalEvent next() {
                        if (n++ == 0) {
                            return map;
                        }
                        if (n > count + 1) {
                            throw new IllegalStateException("spill store read failed (test)");
                        }
                        return rows;
                    }
                };
            }

            @Override
            public List<ShardCheckpoint> checkpoints() {
                return source.checkpoints();
            }

            @Override
            public String provenance() {
                return "repeated";
            }
        };
    }
}
