package io.tributary.storage.binlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.sorter.HeldTransaction;
import io.tributary.storage.checkpoint.BinlogCheckpoint;
import io.tributary.storage.checkpoint.CheckpointFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class BinlogRecoveryTest {

    /**
     * Kafka's testRecoveryWithCorruptMessage for the global binlog: after a clean stop, random garbage,
     * a torn copy of a real transaction, or a half-written next file is appended; recovery drops exactly
     * that, the valid prefix survives byte for byte, and writing continues with the next GTID.
     */
    @ParameterizedTest
    @EnumSource(BinlogFlavor.class)
    void shouldTruncateACorruptTailAndKeepTheValidPrefix(BinlogFlavor flavor, @TempDir Path root) throws Exception {
        Random random = new Random(20261121L + flavor.ordinal());
        for (int round = 0; round < 10; round++) {
            Path dir = root.resolve("r" + round);
            BinlogConfig config = GlobalBinlogWriterTest.config(dir, flavor, 16 << 10, SyncPolicy.COMMIT);
            Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", GlobalBinlogWriterTest.pool(flavor));
            int count = 5 + random.nextInt(60);
            try (GlobalBinlogWriter w = GlobalBinlogWriterTest.open(config)) {
                for (int i = 0; i < count; i++) {
                    w.append(feed.next());
                }
            }
            Map<String, byte[]> before = contents(dir);
            String last = before.keySet().stream().max(String::compareTo).orElseThrow();
            byte[] lastBytes = before.get(last);
            // a clean stop ends the last file with a STOP after the checkpoint, which recovery removes to append
            BinlogCheckpoint cp = new CheckpointFile(dir.resolve(BinlogFiles.CHECKPOINT_FILE), false).read().orElseThrow();
            assertThat(cp.file()).isEqualTo(last);
            List<BinlogEvent> lastEvents = BinlogDirectory.read(dir).get(last);
            assertThat(lastEvents.get(lastEvents.size() - 1).type()).as("last event after a clean stop")
                    .isEqualTo(io.tributary.core.event.EventType.STOP);
            assertThat(lastEvents.get(lastEvents.size() - 1).offset()).isEqualTo(cp.position());
            Map<String, byte[]> expected = new java.util.TreeMap<>(before);
            expected.put(last, Arrays.copyOf(lastBytes, (int) cp.position()));
            int kind = random.nextInt(3);
            if (kind == 0) {
                byte[] garbage = new byte[1 + random.nextInt(4000)];
                random.nextBytes(garbage);
                Files.write(dir.resolve(last), garbage, StandardOpenOption.APPEND);
            } else if (kind == 1) {
                // a torn write: the first part of a real transaction from the middle of the file
                int from = 200 + random.nextInt(Math.max(1, lastBytes.length - 400));
                int len = 1 + random.nextInt(Math.min(2000, lastBytes.length - from));
                Files.write(dir.resolve(last), Arrays.copyOfRange(lastBytes, from, from + len), StandardOpenOption.APPEND);
            } else {
                String next = BinlogFiles.fileName(BinlogFiles.requireFileNumber(last) + 1);
                Files.write(dir.resolve(next), Arrays.copyOf(lastBytes, 1 + random.nextInt(lastBytes.length)));
            }

            RecoveredBinlog recovered = BinlogRecovery.recover(config);
            assertThat(recovered.actions()).as("round %d kind %d", round, kind)
                    .anyMatch(a -> a.startsWith("truncated " + last) || a.startsWith("deleted binlog."));
            Map<String, byte[]> after = contents(dir);
            assertThat(after.keySet()).isEqualTo(before.keySet());
            for (String name : before.keySet()) {
                assertThat(after.get(name)).as("%s survives recovery byte for byte (up to the STOP)", name)
                        .isEqualTo(expected.get(name));
            }
            assertThat(recovered.nextSequence()).isEqualTo(count + 1);
            try (GlobalBinlogWriter w = GlobalBinlogWriter.open(config, recovered, java.time.Clock.systemUTC())) {
                assertThat(w.append(feed.next())).isEqualTo(count + 1);
            }
            assertThat(BinlogDirectory.sequences(BinlogDirectory.read(dir)))
                    .isEqualTo(LongStream.rangeClosed(1, count + 1).boxed().toList());
        }
    }

    /**
     * A crash after transactions were written (even fsynced and rotated) but before their checkpoint was
     * stored: recovery drops them, and the shard positions it returns are those of the last checkpointed
     * transaction, so the shards deliver the dropped transactions again, exactly once.
     */
    @Test
    void shouldDropWhatFollowsTheCheckpointAndResumeShardsFromIt(@TempDir Path dir) throws Exception {
        BinlogConfig config = GlobalBinlogWriterTest.config(dir, BinlogFlavor.MYSQL, 4096, SyncPolicy.COMMIT);
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", GlobalBinlogWriterTest.pool(BinlogFlavor.MYSQL));
        ShardCheckpoint twentieth = null;
        try (GlobalBinlogWriter w = GlobalBinlogWriterTest.open(config)) {
            for (int i = 0; i < 20; i++) {
                HeldTransaction t = feed.next();
                w.append(t);
                twentieth = t.checkpoints().get(0);
            }
        }
        byte[] checkpointAt20 = Files.readAllBytes(dir.resolve(BinlogFiles.CHECKPOINT_FILE));
        BinlogCheckpoint cp20 = new CheckpointFile(dir.resolve(BinlogFiles.CHECKPOINT_FILE), false).read().orElseThrow();
        Map<String, byte[]> at20 = contents(dir);
        try (GlobalBinlogWriter w = GlobalBinlogWriterTest.open(config)) {
            for (int i = 0; i < 30; i++) {
                w.append(feed.next());
            }
            assertThat(w.index().entries().size()).isGreaterThan(at20.size());
        }
        Files.write(dir.resolve(BinlogFiles.CHECKPOINT_FILE), checkpointAt20);

        RecoveredBinlog recovered = BinlogRecovery.recover(config);
        assertThat(recovered.shardCheckpoints()).containsExactly(Map.entry("shard-0", twentieth));
        assertThat(recovered.nextSequence()).isEqualTo(21);
        assertThat(recovered.actions()).anyMatch(a -> a.startsWith("deleted binlog.") && a.contains("after the checkpoint"));
        Map<String, byte[]> after = contents(dir);
        assertThat(after.keySet()).isEqualTo(at20.keySet());
        assertThat(after.get(cp20.file())).hasSize((int) cp20.position());
        assertThat(BinlogIndex.read(dir)).containsExactlyElementsOf(at20.keySet());
        assertThat(BinlogDirectory.sequences(BinlogDirectory.read(dir)))
                .isEqualTo(LongStream.rangeClosed(1, 20).boxed().toList());
    }

    @Test
    void shouldRefuseFilesWithoutACheckpointRatherThanGuessShardPositions(@TempDir Path dir) throws Exception {
        BinlogConfig config = GlobalBinlogWriterTest.config(dir, BinlogFlavor.MYSQL, 4096, SyncPolicy.NONE);
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", GlobalBinlogWriterTest.pool(BinlogFlavor.MYSQL));
        try (GlobalBinlogWriter w = GlobalBinlogWriterTest.open(config)) {
            for (int i = 0; i < 30; i++) {
                w.append(feed.next());
            }
        }
        Files.delete(dir.resolve(BinlogFiles.CHECKPOINT_FILE));
        assertThatThrownBy(() -> BinlogRecovery.recover(config)).isInstanceOf(BinlogRecoveryException.class)
                .hasMessageContaining("binlog.checkpoint is missing but").hasMessageContaining("binlog.000001 .. binlog.0000");
    }

    @Test
    void shouldRefuseToInventANewServerUuidForExistingFiles(@TempDir Path dir) throws Exception {
        BinlogConfig config = GlobalBinlogWriterTest.config(dir, BinlogFlavor.MYSQL, 4096, SyncPolicy.NONE);
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", GlobalBinlogWriterTest.pool(BinlogFlavor.MYSQL));
        try (GlobalBinlogWriter w = GlobalBinlogWriterTest.open(config)) {
            w.append(feed.next());
        }
        Files.delete(dir.resolve(BinlogFiles.SERVER_UUID_FILE));
        assertThatThrownBy(() -> GlobalBinlogWriterTest.open(config)).isInstanceOf(BinlogRecoveryException.class)
                .hasMessageContaining("auto.cnf is missing but binlog files exist");
    }

    @Test
    void shouldReportDamageInsideTheDurablePartWithFileAndOffset(@TempDir Path dir) throws Exception {
        BinlogConfig config = GlobalBinlogWriterTest.config(dir, BinlogFlavor.MYSQL, 1 << 20, SyncPolicy.COMMIT);
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", GlobalBinlogWriterTest.pool(BinlogFlavor.MYSQL));
        try (GlobalBinlogWriter w = GlobalBinlogWriterTest.open(config)) {
            for (int i = 0; i < 10; i++) {
                w.append(feed.next());
            }
        }
        Path file = dir.resolve("binlog.000001");
        byte[] bytes = Files.readAllBytes(file);
        List<BinlogEvent> events = BinlogDirectory.read(dir).get("binlog.000001");
        BinlogEvent victim = events.get(events.size() / 2);
        bytes[(int) victim.offset() + 19] ^= 0x5A;
        Files.write(file, bytes);
        assertThatThrownBy(() -> BinlogRecovery.recover(config)).isInstanceOf(BinlogRecoveryException.class)
                .hasMessageContaining("durable part of").hasMessageContaining("binlog.000001")
                .hasMessageContaining(Long.toString(victim.offset()));
    }

    static Map<String, byte[]> contents(Path dir) throws java.io.IOException {
        Map<String, byte[]> m = new java.util.TreeMap<>();
        try (var list = Files.list(dir)) {
            for (Path p : list.toList()) {
                if (BinlogFiles.fileNumber(p.getFileName().toString()).isPresent()) {
                    m.put(p.getFileName().toString(), Files.readAllBytes(p));
                }
            }
        }
        return m;
    }
}
