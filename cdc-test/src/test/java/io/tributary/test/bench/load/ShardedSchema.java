package io.tributary.test.bench.load;

import io.tributary.test.shard.ShardInfo;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * Naming shared by the benchmark loads: shard {@code i} holds database {@code bench_<i>}, and the physical
 * tables {@code <name>_<nnnn>} of a logical table are spread over the shards (table {@code t} on shard
 * {@code t % shards}), so the global binlog shows {@code bench.<name>}.
 */
public final class ShardedSchema {

    private ShardedSchema() {
    }

    public static String database(int shard) {
        return "bench_" + shard;
    }

    public static String table(String name, int t) {
        return String.format("%s_%04d", name, t);
    }

    /** {@code bench_<shard>.<name>_<nnnn>}. */
    public static String qualified(String name, int shard, int t) {
        return database(shard) + "." + table(name, t);
    }

    /** Creates {@code bench_<i>} on every shard. */
    public static void createDatabases(List<ShardInfo> shards) throws SQLException {
        for (ShardInfo s : shards) {
            try (Connection c = s.openAdminConnection(); Statement st = c.createStatement()) {
                st.execute("CREATE DATABASE IF NOT EXISTS " + database(s.index()));
            }
        }
    }

    /** The sysbench table layout ({@code id, k, c CHAR(120), pad CHAR(60)}, index on k). */
    public static String sbtestDdl(String qualifiedName) {
        return "CREATE TABLE IF NOT EXISTS " + qualifiedName + " (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
                + " k INT NOT NULL DEFAULT 0, c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '',"
                + " KEY k_idx (k)) ENGINE=InnoDB";
    }

    /** A sysbench-like {@code c} value: 11 groups of 11 digits joined by dashes (119 characters). */
    public static String cValue(java.util.Random r) {
        StringBuilder b = new StringBuilder(120);
        for (int g = 0; g < 10; g++) {
            if (g > 0) {
                b.append('-');
            }
            for (int d = 0; d < 11; d++) {
                b.append((char) ('0' + r.nextInt(10)));
            }
        }
        return b.toString();
    }

    public static String padValue(java.util.Random r) {
        StringBuilder b = new StringBuilder(60);
        for (int g = 0; g < 5; g++) {
            if (g > 0) {
                b.append('-');
            }
            for (int d = 0; d < 11; d++) {
                b.append((char) ('0' + r.nextInt(10)));
            }
        }
        return b.toString();
    }
}
