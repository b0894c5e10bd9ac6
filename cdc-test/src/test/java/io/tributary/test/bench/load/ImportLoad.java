package io.tributary.test.bench.load;

import io.tributary.test.shard.ShardInfo;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Random;

/**
 * sysbench {@code prepare}-like import: {@code tables} sharded tables {@code bench.import_<tables>} spread
 * over the shards, one client per table inserting {@link #BATCH}-row multi-row INSERTs (autocommit, each
 * statement a transaction) as fast as the shard takes them.
 */
public final class ImportLoad {

    public static final int BATCH = 100;

    private final List<ShardInfo> shards;
    private final int tables;
    private final String name;

    public ImportLoad(List<ShardInfo> shards, int tables) {
        this.shards = List.copyOf(shards);
        this.tables = tables;
        this.name = "import" + tables;
    }

    public void prepare() throws SQLException {
        ShardedSchema.createDatabases(shards);
        for (int t = 0; t < tables; t++) {
            ShardInfo s = shards.get(t % shards.size());
            try (Connection c = s.openAdminConnection(); Statement st = c.createStatement()) {
                String q = ShardedSchema.qualified(name, s.index(), t);
                st.execute("DROP TABLE IF EXISTS " + q);
                st.execute(ShardedSchema.sbtestDdl(q));
            }
        }
    }

    public Clients start(LoadCounters counters) throws SQLException {
        return Clients.start(name, tables, i -> new Client(shards.get(i % shards.size()), i, counters), counters);
    }

    private final class Client implements Clients.Client {
        private final Connection c;
        private final PreparedStatement insert;
        private final Random r;
        private final LoadCounters counters;

        Client(ShardInfo s, int t, LoadCounters counters) throws SQLException {
            this.counters = counters;
            this.r = new Random(t);
            this.c = s.openAdminConnection();
            StringBuilder sql = new StringBuilder("INSERT INTO " + ShardedSchema.qualified(name, s.index(), t)
                    + " (k, c, pad) VALUES ");
            for (int i = 0; i < BATCH; i++) {
                sql.append(i == 0 ? "(?,?,?)" : ",(?,?,?)");
            }
            this.insert = c.prepareStatement(sql.toString());
        }

        @Override
        public void step() throws SQLException {
            int p = 1;
            for (int i = 0; i < BATCH; i++) {
                insert.setInt(p++, r.nextInt(1_000_000));
                insert.setString(p++, ShardedSchema.cValue(r));
                insert.setString(p++, ShardedSchema.padValue(r));
            }
            insert.executeUpdate();
            counters.transactions.incrementAndGet();
            counters.rows.addAndGet(BATCH);
        }

        @Override
        public void close() throws SQLException {
            c.close();
        }
    }
}
