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

    private static BinlogEvent decodeFull(BinlogEvent e, BinlogFileReader r) {
        if (e.type() != EventType.GTID && e.type() != EventType.MARIA_GTID) {
            return e;
        }
        return io.tributary.core.event.BinlogEventDecoder.continuing("test", r.formatDescriptionEvent()
                        .body(io.tributary.core.event.FormatDescription.class), e.offset(), e.buffer(), e.bufferOffset(),
                e.length(), io.tributary.core.event.DecoderOptions.FULL).next();
    }
}
