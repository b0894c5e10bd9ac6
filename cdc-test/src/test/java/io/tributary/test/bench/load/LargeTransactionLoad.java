package io.tributary.test.bench.load;

import io.tributary.test.shard.ShardInfo;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * One large transaction of a given size: rows of {@link #ROW_BYTES} (a server-made blob, so the client
 * link is not what is measured) inserted into {@code bench_<i>.large_<nnnn>}, {@link #ROWS_PER_STATEMENT}
 * rows per INSERT ... SELECT from MariaDB's sequence engine. Either a single transaction on one shard, or
 * an XA transaction with one branch of a quarter of the size on each of the shards (branches filled in
 * parallel, then XA PREPARE on all, then XA COMMIT on all). Returns when the last commit returned.
 *
 * <p>Row content: {@code repeat} (one letter repeated, as the figures before 2026-11-26 were made: RocksDB's LZ4
 * compresses a spilled row to almost nothing) or {@code random} (256 server-made {@code RANDOM_BYTES(1024)}
 * per row: nothing compresses, so a spill writes every byte).
 */
public final class LargeTransactionLoad {

    public static final int ROW_BYTES = 256 * 1024;
    public static final int ROWS_PER_STATEMENT = 32;

    private final List<ShardInfo> shards;
    private final String rowExpression;
    private long seq;

    public LargeTransactionLoad(List<ShardInfo> shards) {
        this(shards, "repeat");
    }

    /** {@code content}: {@code repeat} or {@code random} (see the class comment). */
    public LargeTransactionLoad(List<ShardInfo> shards, String content) {
        this.shards = List.copyOf(shards);
        this.rowExpression = switch (content) {
            case "repeat" -> "REPEAT(CHAR(65 + seq % 26), " + ROW_BYTES + ")";
            case "random" -> "CONCAT(" + String.join(", ", java.util.Collections.nCopies(ROW_BYTES / 1024,
                    "RANDOM_BYTES(1024)")) + ")";
            default -> throw new IllegalArgumentException("Invalid row content " + content + ": allowed are repeat"
                    + " and random");
        };
    }

    private static String table(int shard) {
        return ShardedSchema.qualified("large", shard, shard);
    }

    public void prepare() throws SQLException {
        ShardedSchema.createDatabases(shards);
        for (ShardInfo s : shards) {
            try (Connection c = s.openAdminConnection(); Statement st = c.createStatement()) {
                st.execute("DROP TABLE IF EXISTS " + table(s.index()));
                st.execute("CREATE TABLE " + table(s.index()) + " (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
                        + " b LONGBLOB NOT NULL) ENGINE=InnoDB");
            }
        }
    }

    /** Empties the tables again (between runs, so the shards' disks do not fill up). */
    public void truncate() throws SQLException {
        for (ShardInfo s : shards) {
            try (Connection c = s.openAdminConnection(); Statement st = c.createStatement()) {
                st.execute("TRUNCATE TABLE " + table(s.index()));
            }
        }
    }

    /** The bytes of row data a transaction of {@code bytes} inserts per branch (whole statements). */
    public static long branchRows(long bytes, int branches) {
        long perStatement = (long) ROW_BYTES * ROWS_PER_STATEMENT;
        long statements = Math.max(1, (bytes / branches + perStatement - 1) / perStatement);
        return statements * ROWS_PER_STATEMENT;
    }

    private void fill(Statement st, int shard, long rows) throws SQLException {
        for (long done = 0; done < rows; done += ROWS_PER_STATEMENT) {
            st.execute("INSERT INTO " + table(shard) + " (b) SELECT " + rowExpression + " FROM " + ShardedSchema.database(shard) + ".seq_1_to_" + ROWS_PER_STATEMENT);
        }
    }

    /** A single transaction of about {@code bytes} on shard 0; returns the row bytes inserted. */
    public long single(long bytes) throws SQLException {
        long rows = branchRows(bytes, 1);
        try (Connection c = shards.get(0).openAdminConnection(); Statement st = c.createStatement()) {
            st.execute("BEGIN");
            fill(st, 0, rows);
            st.execute("COMMIT");
        }
        return rows * ROW_BYTES;
    }

    /** An XA transaction of about {@code bytes} with a branch on every shard; returns the row bytes inserted. */
    public long xa(long bytes) throws SQLException, InterruptedException {
        long rows = branchRows(bytes, shards.size());
        String gtrid = "'large-" + (++seq) + "-" + System.nanoTime() + "'";
        List<Connection> cs = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(shards.size());
        try {
            for (ShardInfo s : shards) {
                cs.add(s.openAdminConnection());
            }
            List<Future<Void>> branches = new ArrayList<>();
            for (int i = 0; i < shards.size(); i++) {
                Connection c = cs.get(i);
                int shard = shards.get(i).index();
                String xid = gtrid + ",'b" + shard + "'"; // a branch qualifier per shard, as XA transaction managers do
                branches.add(pool.submit(() -> {
                    try (Statement st = c.createStatement()) {
                        st.execute("XA START " + xid);
                        fill(st, shard, rows);
                        st.execute("XA END " + xid);
                        st.execute("XA PREPARE " + xid);
                    }
                    return null;
                }));
            }
            for (Future<Void> f : branches) {
                try {
                    f.get();
                } catch (ExecutionException e) {
                    throw new SQLException("an XA branch of " + gtrid + " failed: " + e.getCause().getMessage(), e.getCause());
                }
            }
            for (int i = 0; i < cs.size(); i++) {
                try (Statement st = cs.get(i).createStatement()) {
                    st.execute("XA COMMIT " + gtrid + ",'b" + shards.get(i).index() + "'");
                }
            }
        } finally {
            pool.shutdownNow();
            for (Connection c : cs) {
                c.close();
            }
        }
        return rows * ROW_BYTES * shards.size();
    }
}
