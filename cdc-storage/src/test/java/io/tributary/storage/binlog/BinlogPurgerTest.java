package io.tributary.storage.binlog;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.sorter.HeldTransaction;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BinlogPurgerTest {

    @Test
    void shouldKeepAllFilesTogetherUnderTheRetentionSizeAndNeverPurgeTheCurrentFile(@TempDir Path dir) throws Exception {
        BinlogConfig config = BinlogConfig.parse(Map.of("binlog.dir", dir.toString(), "binlog.file.size", "4096",
                "binlog.retention.size", "20000", "binlog.sync", "none"));
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", GlobalBinlogWriterTest.pool(BinlogFlavor.MYSQL));
        try (GlobalBinlogWriter w = GlobalBinlogWriterTest.open(config)) {
            for (int i = 0; i < 400; i++) {
                w.append(feed.next());
                List<String> listed = w.index().entries().stream().map(BinlogIndex.Entry::file).toList();
                assertThat(BinlogRecoveryTest.contents(dir).keySet()).containsExactlyElementsOf(listed);
                long total = 0;
                for (String f : listed) {
                    total += Files.size(dir.resolve(f));
                }
                // the newest file may push the total over the limit until the next rotation
                long withoutNewest = total - Files.size(dir.resolve(listed.get(listed.size() - 1)));
                assertThat(withoutNewest).isLessThanOrEqualTo(20000);
                assertThat(listed).contains(w.writtenPosition().file());
            }
            assertThat(w.index().entries().get(0).number()).isGreaterThan(10);
            assertThat(BinlogIndex.read(dir)).containsExactlyElementsOf(
                    w.index().entries().stream().map(BinlogIndex.Entry::file).toList());
        }
    }

    @Test
    void shouldPurgeFilesLastWrittenLongerAgoThanTheRetentionTime(@TempDir Path dir) throws Exception {
        BinlogConfig config = BinlogConfig.parse(Map.of("binlog.dir", dir.toString(), "binlog.file.size", "4096",
                "binlog.retention.time", "1h", "binlog.sync", "none"));
        Instant now = Instant.parse("2026-11-21T12:00:00Z");
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", GlobalBinlogWriterTest.pool(BinlogFlavor.MYSQL));
        try (GlobalBinlogWriter w = GlobalBinlogWriter.open(config, BinlogRecovery.recover(config),
                Clock.fixed(now, ZoneOffset.UTC))) {
            while (w.index().entries().size() < 6) {
                w.append(feed.next());
            }
            List<BinlogIndex.Entry> files = w.index().entries();
            for (int i = 0; i < files.size(); i++) {
                Instant written = i < 3 ? now.minusSeconds(7200) : now.minusSeconds(60);
                Files.setLastModifiedTime(dir.resolve(files.get(i).file()), FileTime.from(written));
            }
            // the current file is kept even when it is old
            Files.setLastModifiedTime(dir.resolve(w.writtenPosition().file()), FileTime.from(now.minusSeconds(9999)));
            assertThat(w.durability().awaitSequence(w.lastSequence(), java.time.Duration.ofSeconds(10))).isTrue();
            assertThat(w.purge()).containsExactly("binlog.000001", "binlog.000002", "binlog.000003");
            assertThat(w.index().entries().get(0).file()).isEqualTo("binlog.000004");
            assertThat(Files.exists(dir.resolve("binlog.000003"))).isFalse();
        }
    }
}
