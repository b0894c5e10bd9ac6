package io.tributary.storage.binlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.event.EventType;
import io.tributary.core.event.GtidEvent;
import io.tributary.core.sorter.HeldTransaction;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Twins (issue 20): two writers given the same transactions and the same configuration write the same bytes, whatever
 * their clocks say and although one of them stops cleanly and is reopened midway.
 */
class TwinWritersTest {

    private static Clock at(String instant) {
        return Clock.fixed(Instant.parse(instant), ZoneOffset.UTC);
    }

    private static BinlogConfig config(Path dir, BinlogFlavor flavor) {
        return BinlogConfig.parse(Map.of("binlog.dir", dir.toString(), "binlog.flavor", flavor.name().toLowerCase(),
                "binlog.file.size", "64KB", "binlog.sync", "none", "binlog.server.id", "7",
                "binlog.retention.time", "0")); // purging by the (fixed) clocks would remove files
    }

    private static GlobalBinlogWriter open(BinlogConfig config, Clock clock) throws IOException {
        return GlobalBinlogWriter.open(config, BinlogRecovery.recover(config), clock);
    }

    @ParameterizedTest
    @EnumSource(BinlogFlavor.class)
    void shouldWriteTheSameBytesWhateverTheClockAndAStopInBetween(BinlogFlavor flavor, @TempDir Path root) throws Exception {
        Path a = root.resolve("a");
        Path b = root.resolve("b");
        int total = 600;
        int stopAt = 250;
        Iterator<HeldTransaction> feedA = SourceTransactions.feed("shard-0", GlobalBinlogWriterTest.pool(flavor));
        Iterator<HeldTransaction> feedB = SourceTransactions.feed("shard-0", GlobalBinlogWriterTest.pool(flavor));
        try (GlobalBinlogWriter w = open(config(a, flavor), at("2021-03-04T05:06:07Z"))) {
            for (int i = 0; i < total; i++) {
                w.append(feedA.next(), i % 7 != 0);
            }
            w.flushHeld();
            assertThat(w.durability().awaitSequence(total, Duration.ofSeconds(10))).isTrue();
        }
        try (GlobalBinlogWriter w = open(config(b, flavor), at("2033-01-01T00:00:00Z"))) {
            for (int i = 0; i < stopAt; i++) {
                w.append(feedB.next());
            }
            assertThat(w.durability().awaitSequence(stopAt, Duration.ofSeconds(10))).isTrue();
        }
        // b's last file now ends with a STOP (in-use flag clear); reopened later, it continues from before the STOP
        try (GlobalBinlogWriter w = open(config(b, flavor), at("2040-06-01T12:00:00Z"))) {
            for (int i = stopAt; i < total; i++) {
                w.append(feedB.next());
            }
            assertThat(w.durability().awaitSequence(total, Duration.ofSeconds(10))).isTrue();
        }
        List<String> filesA = BinlogIndex.read(a);
        assertThat(filesA).hasSizeGreaterThan(2).isEqualTo(BinlogIndex.read(b));
        for (String name : filesA) {
            assertThat(Files.mismatch(a.resolve(name), b.resolve(name))).as(name).isEqualTo(-1L);
        }
        assertThat(Files.readString(a.resolve(BinlogFiles.SERVER_UUID_FILE)))
                .isEqualTo(Files.readString(b.resolve(BinlogFiles.SERVER_UUID_FILE)))
                .contains(BinlogConfig.derivedServerUuid(7).toString());

        // what the writer made itself carries binlog time: 1 before the first transaction (0 would mark a server's fake
        // events, which mariadb-binlog skips), then the last one's
        Map<String, List<BinlogEvent>> events = BinlogDirectory.read(a);
        List<BinlogEvent> first = events.get(filesA.get(0));
        assertThat(first.get(0).type()).isEqualTo(EventType.FORMAT_DESCRIPTION);
        assertThat(first.get(0).header().timestamp()).isEqualTo(GlobalBinlogWriter.FIRST_BINLOG_TIME).isEqualTo(1L);
        for (String name : filesA.subList(0, filesA.size() - 1)) {
            List<BinlogEvent> file = events.get(name);
            BinlogEvent rotate = file.get(file.size() - 1);
            assertThat(rotate.type()).isEqualTo(EventType.ROTATE);
            assertThat(rotate.header().timestamp()).isEqualTo(file.get(file.size() - 2).header().timestamp())
                    .isNotIn(Instant.parse("2021-03-04T05:06:07Z").getEpochSecond(), 0L);
        }
    }

    @Test
    void shouldUseTheConfiguredServerUuidAndRefuseAnotherOneLater(@TempDir Path dir) throws Exception {
        String uuid = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
        BinlogConfig config = BinlogConfig.parse(Map.of("binlog.dir", dir.toString(), "binlog.server.uuid", uuid));
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", GlobalBinlogWriterTest.pool(BinlogFlavor.MYSQL));
        try (GlobalBinlogWriter w = open(config, Clock.systemUTC())) {
            assertThat(w.serverUuid()).hasToString(uuid);
            w.append(feed.next());
            assertThat(w.durability().awaitSequence(1, Duration.ofSeconds(10))).isTrue();
        }
        BinlogEvent gtid = BinlogDirectory.read(dir).get("binlog.000001").stream()
                .filter(e -> e.type() == EventType.GTID).findFirst().orElseThrow();
        assertThat(gtid.body(GtidEvent.class).sid()).hasToString(uuid);

        BinlogConfig other = BinlogConfig.parse(Map.of("binlog.dir", dir.toString(),
                "binlog.server.uuid", "3e11fa47-71ca-11e1-9e33-c80aa9429563"));
        assertThatThrownBy(() -> open(other, Clock.systemUTC())).isInstanceOf(BinlogRecoveryException.class)
                .hasMessageContaining("binlog.server.uuid is 3e11fa47-71ca-11e1-9e33-c80aa9429563")
                .hasMessageContaining("was written under " + uuid);
        // not set: the kept one goes on
        try (GlobalBinlogWriter w = open(BinlogConfig.defaults(dir), Clock.systemUTC())) {
            assertThat(w.serverUuid()).hasToString(uuid);
        }
    }
}
