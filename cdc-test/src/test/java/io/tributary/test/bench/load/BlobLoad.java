package io.tributary.test.bench.load;

import io.tributary.test.shard.ShardInfo;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Random;
import java.util.List;

/**
 * The reference's {@code game_blob}: {@code bench_<i>.blob_<nnnn>} on every shard with {@code rows} rows of
 * a 512 KB blob each; clients update random rows with a new 512 KB value (made by the server, so the client
 * link is not what is measured), no selects. With the FULL row image every update is a ~1 MB rows event.
 */
public final class BlobLoad {

    public static final int BLOB_BYTES = 512 * 1024;

    private final List<ShardInfo> shards;
    private final int rows;

    public BlobLoad(List<ShardInfo> shards, int rows) {
        this.shards = List.copyOf(shards);
        this.rows = rows;
    }

    private static String table(int shard) {
        return ShardedSchema.qualified("blob", shard, shard);
    }

    public void prepare() throws SQLException {
        ShardedSchema.createDatabases(shards);
        for (ShardInfo s : shards) {
            try (Connection c = s.openAdminConnection(); Statement st = c.createStatement()) {
                String q = table(s.index());
                st.execute("DROP TABLE IF EXISTS " + q);
                st.execute("CREATE TABLE " + q + " (id INT NOT NULL PRIMARY KEY, v INT NOT NULL, b MEDIUMBLOB NOT NULL)"
                        + " ENGINE=InnoDB");
                for (int id = 1; id <= rows; id++) {
                    st.execute("INSERT INTO " + q + " VALUES (" + id + ", 0, REPEAT(CHAR(65 + " + (id % 26) + "), "
                            + BLOB_BYTES + "))");
                }
            }
        }
    }

    public Clients start(int clients, LoadCounters counters) throws SQLException {
        return Clients.start("blob", clients, i -> new Clients.Client() {
            private final ShardInfo s = shards.get(i % shards.size());
            private final Connection c = s.openAdminConnection();
            private final PreparedStatement update = c.prepareStatement("UPDATE " + table(s.index())
                    + " SET v = v + 1, b = REPEAT(CHAR(65 + ?), " + BLOB_BYTES + ") WHERE id = ?");
            private final Random r = new Random(i);

            @Override
            public void step() throws SQLException {
                update.setInt(1, r.nextInt(26));
                update.setInt(2, 1 + r.nextInt(rows));
                update.executeUpdate();
                counters.transactions.incrementAndGet();
                counters.rows.incrementAndGet();
            }

            @Override
            public void close() throws SQLException {
                c.close();
            }
        }, counters);
    }
}
