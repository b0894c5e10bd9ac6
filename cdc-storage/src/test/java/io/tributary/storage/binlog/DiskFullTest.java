package io.tributary.storage.binlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.sorter.HeldTransaction;
import io.tributary.storage.tail.TailCache;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A really full disk: the binlog lives on a 2 MB tmpfs mostly taken by a ballast file. Writing must stop
 * with health DOWN naming the error, leave no partial event in the file, publish nothing undurable, and
 * resume by itself once the ballast is deleted; afterwards every transaction is there exactly once.
 * Skipped when tmpfs cannot be mounted (needs root).
 */
class DiskFullTest {
    @TempDir
    Path mountPoint;
    private boolean mounted;

    @BeforeEach
    void mountTmpfs() throws Exception {
        Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", mountPoint.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        mounted = p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        assumeTrue(mounted, "cannot mount a 2 MB tmpfs to fill (needs root): " + out.strip());
    }

    @AfterEach
    void unmount() throws Exception {
        if (mounted) {
            new ProcessBuilder("umount", mountPoint.toString()).start().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void shouldGoDownWithoutAPartialEventAndResumeWhenSpaceIsFreed() throws Exception {
        Path dir = mountPoint.resolve("binlog");
        Path ballast = mountPoint.resolve("ballast");
        BinlogConfig config = nearlyFullDisk(dir, ballast);
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", GlobalBinlogWriterTest.pool(BinlogFlavor.MYSQL));
        int total = 2500;
        try (GlobalBinlogWriter w = GlobalBinlogWriterTest.open(config);
             Ballast freed = new Ballast(ballast)) {
            CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> {
                try {
                    for (int i = 0; i < total; i++) {
                        w.append(feed.next());
                    }
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (w.health().up() && !writing.isDone() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            BinlogHealth down = w.health();
            assertThat(down.up()).as("health while the disk is full: %s", down).isFalse();
            assertThat(down.detail()).contains("No space left on device");
            assertThat(writing).isNotDone();
            Thread.sleep(300); // a few retries
            DurableMark durable = w.durability().current();
            // the file holds only whole events, and nothing durable lies beyond what is in it
            byte[] bytes = Files.readAllBytes(dir.resolve(durable.position().file()));
            List<BinlogEvent> events = new ArrayList<>();
            new BinlogEventDecoder("full " + durable.position().file(), bytes).forEachRemaining(events::add);
            assertThat(bytes.length).isGreaterThanOrEqualTo((int) durable.position().position());
            assertThat(durable.lastSequence()).isLessThan(total);

            freed.close();
            writing.get(60, TimeUnit.SECONDS);
            assertThat(w.durability().awaitSequence(total, Duration.ofSeconds(20))).isTrue();
            assertThat(w.health().up()).as("health after space was freed: %s", w.health()).isTrue();
        }
        RecoveredBinlog recovered = BinlogRecovery.recover(config);
        assertThat(recovered.nextSequence()).isEqualTo(total + 1);
        assertThat(BinlogDirectory.sequences(BinlogDirectory.read(dir)))
                .isEqualTo(java.util.stream.LongStream.rangeClosed(1, total).boxed().toList());
    }

    /** The tail cache the writer feeds holds, after the outage, exactly the durable bytes of the files. */
    @Test
    void shouldFeedTheTailCacheOnlyWhatReachedTheFilesWhileTheDiskIsFull() throws Exception {
        Path dir = mountPoint.resolve("binlog");
        Path ballast = mountPoint.resolve("ballast");
        BinlogConfig config = nearlyFullDisk(dir, ballast);
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", GlobalBinlogWriterTest.pool(BinlogFlavor.MYSQL));
        int total = 2500;
        try (GlobalBinlogWriter w = GlobalBinlogWriterTest.open(config);
             TailCache cache = TailCache.attach(w, 64 << 20);
             Ballast freed = new Ballast(ballast)) {
            BinlogPosition start = w.writtenPosition();
            long first = cache.find(start);
            CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> {
                try {
                    for (int i = 0; i < total; i++) {
                        w.append(feed.next(), i % 5 != 4 && i < total - 1);
                    }
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (w.health().up() && !writing.isDone() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(w.health().up()).as("health while the disk is full").isFalse();
            Thread.sleep(300); // a few retries
            freed.close();
            writing.get(60, TimeUnit.SECONDS);
            assertThat(w.durability().awaitSequence(total, Duration.ofSeconds(20))).isTrue();
            BinlogPosition durable = w.durability().current().position();
            List<io.tributary.storage.tail.TailCache.Entry> entries = new ArrayList<>();
            for (long c = first; entries.isEmpty() || !entries.get(entries.size() - 1).next().equals(durable); c++) {
                io.tributary.storage.tail.TailCache.Entry e = cache.get(c, Duration.ofSeconds(5));
                assertThat(e).as("entry %d", c).isNotNull();
                entries.add(e);
            }
            WriterFedTailCacheTest.assertSameAsFiles(dir, start, entries, durable);
        }
    }

    /**
     * The file that fills the disk, deleted when closed. Declared after the writer in try-with-resources so that it
     * is closed first: a failed assertion while the disk is full then fails the test instead of leaving the writer's
     * close retrying its flush for good.
     */
    private record Ballast(Path file) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            Files.deleteIfExists(file);
        }
    }

    /** Fills the small file system but for about 300 KB and configures a writer of 1 MB files in {@code dir}. */
    private static BinlogConfig nearlyFullDisk(Path dir, Path ballast) throws IOException {
        Files.write(ballast, new byte[1700 << 10]);
        return BinlogConfig.parse(Map.of("binlog.dir", dir.toString(), "binlog.file.size", "1MB",
                "binlog.sync", "commit", "binlog.io.retry.interval", "100ms"));
    }
}
