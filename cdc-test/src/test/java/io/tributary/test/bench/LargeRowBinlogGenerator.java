package io.tributary.test.bench;

import io.tributary.test.shard.ShardCluster;
import io.tributary.test.shard.ShardClusterConfig;
import io.tributary.test.shard.ShardInfo;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.List;
import java.util.Random;

/**
 * Makes a real shard binlog of large transactions for the write benchmark: one embedded MariaDB shard,
 * a table {@code bench.docs (id INT PRIMARY KEY, doc LONGBLOB)}, and {@code count} autocommit inserts of a
 * 512 KB document each (one WRITE_ROWS event of about 512 KB per transaction). Cached like
 * {@link ShardBinlogGenerator}, in {@code ~/.cache/tributary/bench/mariadb-512k-rows-<count>}.
 */
final class LargeRowBinlogGenerator {
    static final int ROW_BYTES = 512 << 10;

    private LargeRowBinlogGenerator() {
    }

    static List<Path> binlogWithRows(int count, PrintStream out) {
        Path cache = Path.of(System.getProperty("user.home"), ".cache", "tributary", "bench", "mariadb-512k-rows-" + count);
        Path marker = cache.resolve(".complete");
        try {
            if (!Files.exists(marker)) {
                generate(count, cache, out);
                Files.writeString(marker, "");
            }
            try (var files = Files.list(cache)) {
                return files.filter(p -> p.getFileName().toString().matches("mariadb-bin\\.\\d+")).sorted().toList();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("generating the large-row binlog failed: " + e.getMessage(), e);
        }
    }

    private static void generate(int count, Path cache, PrintStream out) throws IOException, java.sql.SQLException {
        out.printf("Generating %d transactions of one %d KB row (once; cached in %s)%n", count, ROW_BYTES >> 10, cache);
        ShardClusterConfig config = ShardClusterConfig.defaults().withCount(1).withServerOptions(List.of(
                "--max-binlog-size=1073741824", "--max-allowed-packet=64M", "--innodb-log-file-size=512M"));
        try (ShardCluster cluster = ShardCluster.start(config)) {
            ShardInfo shard = cluster.info(0);
            try (Connection c = shard.openAdminConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE DATABASE bench");
                s.execute("CREATE TABLE bench.docs (id INT NOT NULL PRIMARY KEY, doc LONGBLOB NOT NULL) ENGINE=InnoDB");
                Random random = new Random(512);
                byte[] doc = new byte[ROW_BYTES];
                try (PreparedStatement insert = c.prepareStatement("INSERT INTO bench.docs (id, doc) VALUES (?, ?)")) {
                    for (int i = 1; i <= count; i++) {
                        for (int b = 0; b < doc.length; b++) {
                            doc[b] = (byte) ('a' + random.nextInt(26));
                        }
                        insert.setInt(1, i);
                        insert.setBytes(2, doc);
                        insert.executeUpdate();
                    }
                }
                s.execute("FLUSH BINARY LOGS");
            }
            Files.createDirectories(cache);
            try (var files = Files.list(cluster.directory().resolve("shard-0/binlog"))) {
                List<Path> all = files.filter(p -> p.getFileName().toString().matches("mariadb-bin\\.\\d+")).sorted().toList();
                for (Path p : all.subList(0, all.size() - 1)) {
                    Files.copy(p, cache.resolve(p.getFileName()));
                }
            }
        }
    }
}
