package io.tributary.storage.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.transaction.DdlHistory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointFileTest {

    @Test
    void theSortersClockOfEveryShardSurvivesARestart(@TempDir Path dir) throws Exception {
        Map<String, ShardCheckpoint> shards = new LinkedHashMap<>();
        shards.put("shard-0", new ShardCheckpoint("shard-0", ShardPosition.at("mariadb-bin.000002", 1_120_995),
                Set.of("0-101-42", "0-101-44"), new ShardCheckpoint.Clock(1_795_304_581_559L, 1_795_304_581_459L,
                        1_795_304_581_000_000L)));
        shards.put("shard 1", new ShardCheckpoint("shard 1", new ShardPosition("mysql-bin.000001", 4,
                "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5"), Set.of(), ShardCheckpoint.Clock.START));
        BinlogCheckpoint written = new BinlogCheckpoint("binlog.000003", 104_857, 4711, shards);
        CheckpointFile file = new CheckpointFile(dir.resolve("binlog.checkpoint"), false);
        file.write(written);
        // a restarted sorter orders re-read units as before only with the clock it had (invariant 4)
        assertThat(file.read()).contains(written);
    }

    @Test
    void theDdlHistoryIsStoredWithTheCheckpointAndADamagedLineIsNamed(@TempDir Path dir) throws Exception {
        Map<String, ShardCheckpoint> shards = Map.of("shard-0",
                ShardCheckpoint.at("shard-0", ShardPosition.at("mariadb-bin.000001", 328)));
        Map<String, Integer> copies = new LinkedHashMap<>();
        copies.put("src-A_1", 2);
        copies.put("srcB", 1);
        DdlHistory ddl = new DdlHistory(List.of(new DdlHistory.Statement("k-1_x", 2, copies),
                new DdlHistory.Statement("k2", 1, Map.of("srcC", 1))));
        BinlogCheckpoint written = new BinlogCheckpoint("binlog.000001", 4096, 9, shards, ddl);
        Path p = dir.resolve("binlog.checkpoint");
        CheckpointFile file = new CheckpointFile(p, false);
        file.write(written);
        assertThat(file.read()).contains(written);
        assertThat(file.read().orElseThrow().ddl().statements().get(0).copies()).containsExactlyEntriesOf(copies);

        String text = Files.readString(p).replace(" src-A_1 2", " src-A_1 3");
        String body = text.substring(0, text.lastIndexOf("crc "));
        CRC32 crc = new CRC32();
        crc.update(body.getBytes(StandardCharsets.UTF_8));
        Files.writeString(p, body + "crc " + crc.getValue() + "\n");
        assertThatThrownBy(file::read).isInstanceOf(java.io.IOException.class)
                .hasMessageContaining("binlog.checkpoint is damaged at line 5")
                .hasMessageContaining("source src-A_1 delivered 3 copies, expected 1..2");
    }

    @Test
    void theRolloutShapesAreStoredAfterTheDdlLinesAndAShapeLineInTheWrongPlaceIsNamed(@TempDir Path dir)
            throws Exception {
        Map<String, ShardCheckpoint> shards = Map.of("shard-0",
                ShardCheckpoint.at("shard-0", ShardPosition.at("mariadb-bin.000001", 328)));
        DdlHistory ddl = new DdlHistory(List.of(new DdlHistory.Statement("k2", 1, Map.of("srcC", 1))),
                List.of("c2hvcABvcmRlcnM", "dG9rZW4tMg"));
        BinlogCheckpoint written = new BinlogCheckpoint("binlog.000001", 4096, 9, shards, ddl);
        Path p = dir.resolve("binlog.checkpoint");
        CheckpointFile file = new CheckpointFile(p, false);
        file.write(written);
        assertThat(file.read()).contains(written);
        assertThat(Files.readString(p)).startsWith("tributary-checkpoint 4\n").contains("\nshape c2hvcABvcmRlcnM\n");

        String text = Files.readString(p).replace("ddl k2", "shape x\nddl k2");
        String body = text.substring(0, text.lastIndexOf("crc "));
        CRC32 crc = new CRC32();
        crc.update(body.getBytes(StandardCharsets.UTF_8));
        Files.writeString(p, body + "crc " + crc.getValue() + "\n");
        assertThatThrownBy(file::read).isInstanceOf(java.io.IOException.class)
                .hasMessageContaining("binlog.checkpoint is damaged at line 6")
                .hasMessageContaining("expected 'shape' or 'crc' after the 'shape' lines");
    }

    @Test
    void aVersionOneFileWithoutClocksIsStillRead(@TempDir Path dir) throws Exception {
        String body = "tributary-checkpoint 1\nbinlog binlog.000001 4096\nsequence 7\n"
                + "shard shard-0 mariadb-bin.000001 328 ! 1 0-101-9\n";
        CRC32 crc = new CRC32();
        crc.update(body.getBytes(StandardCharsets.UTF_8));
        Path p = dir.resolve("binlog.checkpoint");
        Files.writeString(p, body + "crc " + crc.getValue() + "\n");
        BinlogCheckpoint read = new CheckpointFile(p, false).read().orElseThrow();
        assertThat(read.shards().get("shard-0")).isEqualTo(new ShardCheckpoint("shard-0",
                ShardPosition.at("mariadb-bin.000001", 328), Set.of("0-101-9"), ShardCheckpoint.Clock.START));
        assertThat(read.lastSequence()).isEqualTo(7);
    }
}
