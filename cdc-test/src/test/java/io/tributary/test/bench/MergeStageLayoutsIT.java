package io.tributary.test.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pipeline's layout (appends on their own thread, small transactions held in the writer's buffer until the
 * ring is empty) writes the same global binlog, byte for byte, as the merge thread appending each transaction
 * itself: the same real MariaDB OLTP stream (8 MB of it) replayed as 4 shards with heartbeats, writer clock fixed.
 */
class MergeStageLayoutsIT {

    @Test
    void appendThreadWritesTheSameGlobalBinlogAsTheMergeThreadAlone(@TempDir Path dir) throws Exception {
        PrintStream out = System.out;
        Path file = ShardBinlogGenerator.binlogOfAtLeast(48L << 20, out).get(0);
        byte[] bytes = Files.readAllBytes(file);
        String name = file.getFileName().toString();
        List<MergeBenchmark.Slice> slices = MergeBenchmark.slices(name, bytes, 32L << 20, 8L << 20);
        Clock clock = Clock.fixed(Instant.parse("2026-11-22T00:00:00Z"), ZoneOffset.UTC);

        MergeBenchmark.Result alone = MergeBenchmark.replay(dir.resolve("alone"), clock, 4, name, bytes, slices, 50, false);
        MergeBenchmark.Result ring = MergeBenchmark.replay(dir.resolve("ring"), clock, 4, name, bytes, slices, 50, true);

        assertThat(alone.written()).as("global transactions").isGreaterThan(1000);
        assertThat(ring.written()).isEqualTo(alone.written());
        List<String> files = binlogFiles(dir.resolve("alone/binlog"));
        assertThat(binlogFiles(dir.resolve("ring/binlog"))).isEqualTo(files);
        for (String f : files) {
            assertThat(Files.mismatch(dir.resolve("alone/binlog").resolve(f), dir.resolve("ring/binlog").resolve(f)))
                    .as("first differing byte of %s (-1: none)", f).isEqualTo(-1L);
        }
    }

    private static List<String> binlogFiles(Path binlog) throws Exception {
        try (Stream<Path> list = Files.list(binlog)) {
            return list.map(p -> p.getFileName().toString()).filter(n -> n.matches("binlog\\.\\d+")).sorted().toList();
        }
    }
}
