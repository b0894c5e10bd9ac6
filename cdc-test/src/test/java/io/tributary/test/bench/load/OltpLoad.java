package io.tributary.test.bench.load;

import io.tributary.test.shard.ShardInfo;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * {@code oltp_write_only}-like load over sharded tables (the benchmark runner's own, independent of the
 * end-to-end tests' load): shard {@code i} holds {@code bench_<i>.oltp_<nnnn>} ({@link #TABLES_PER_SHARD}
 * tables of {@code rows} rows each, logical table {@code bench.oltp}). A transaction picks a shard and a
 * table and runs, as sysbench does, an index update, a non-index update, a delete and an insert of the same
 * id. A share {@code xaShare} of the transactions are XA transactions over two shards (XA START, the two
 * updates, XA END, XA PREPARE on both, then XA COMMIT on both).
 */
public final class OltpLoad {

    public static final int TABLES_PER_SHARD = 2;

    private final List<ShardInfo> shards;
    private final int rows;
    private final double xaShare;
    /** Makes XA gtrids unique across loads and levels (a gtrid is never reused). */
    private final long run = System.currentTimeMillis() % 100_000_000L;
    private final java.util.concurrent.atomic.AtomicLong xaSeq = new java.util.concurrent.atomic.AtomicLong();

    public OltpLoad(List<ShardInfo> shards, int rows, double xaShare) {
        if (xaShare < 0 || xaShare > 1) {
            throw new IllegalArgumentException("Invalid value " + xaShare + " for the XA share: must be 0 to 1");
        }
        this.shards = List.copyOf(shards);
        this.rows = rows;
        this.xaShare = shards.size() > 1 ? xaShare : 0;
    }

    private static String table(int shard, int t) {
        return ShardedSchema.qualified("oltp", shard, shard * TABLES_PER_SHARD + t);
    }

    /** Creates and fills the tables (bulk inserts of 500 rows). */
    public void prepare() throws SQLException {
        ShardedSchema.createDatabases(shards);
        Random r = new Random(1);
        for (ShardInfo s : shards) {
            try (Connection c = s.openAdminConnection(); Statement st = c.createStatement()) {
                for (int t = 0; t < TABLES_PER_SHARD; t++) {
                    String q = table(s.index(), t);
                    st.execute("DROP TABLE IF EXISTS " + q);
                    st.execute(ShardedSchema.sbtestDdl(q));
                    for (int from = 1; from <= rows; from += 500) {
                        StringBuilder sql = new StringBuilder("INSERT INTO " + q + " (id, k, c, pad) VALUES ");
                        for (int id = from; id < Math.min(rows + 1, from + 500); id++) {
                            sql.append(id == from ? "" : ",").append('(').append(id).append(',').append(r.nextInt(rows))
                                    .append(",'").append(ShardedSchema.cValue(r)).append("','")
                                    .append(ShardedSchema.padValue(r)).append("')");
                        }
                        st.execute(sql.toString());
                    }
                }
            }
        }
    }

    public Clients start(int clients, LoadCounters counters) throws SQLException {
        return Clients.start("oltp", clients, i -> new Client(i, counters), counters);
    }

    private final class Client implements Clients.Client {
        private final int id;
        private final Random r;
        private final LoadCounters counters;
        private final List<Connection> connections = new ArrayList<>();
        private final List<PreparedStatement[]> statements = new ArrayList<>();

        Client(int id, LoadCounters counters) throws SQLException {
            this.id = id;
            this.r = new Random(1000L + id);
            this.counters = counters;
            for (ShardInfo s : shards) {
                Connection c = s.openAdminConnection();
                connections.add(c);
                PreparedStatement[] ps = new PreparedStatement[TABLES_PER_SHARD * 4];
                for (int t = 0; t < TABLES_PER_SHARD; t++) {
                    String q = table(s.index(), t);
                    ps[t * 4] = c.prepareStatement("UPDATE " + q + " SET k = k + 1 WHERE id = ?");
                    ps[t * 4 + 1] = c.prepareStatement("UPDATE " + q + " SET c = ? WHERE id = ?");
                    ps[t * 4 + 2] = c.prepareStatement("DELETE FROM " + q + " WHERE id = ?");
                    ps[t * 4 + 3] = c.prepareStatement("INSERT INTO " + q + " (id, k, c, pad) VALUES (?, ?, ?, ?)");
                }
                statements.add(ps);
            }
        }

        @Override
        public void step() throws SQLException {
            if (xaShare > 0 && r.nextDouble() < xaShare) {
                xa();
            } else {
                single();
            }
        }

        private void updates(PreparedStatement[] ps, int t, int row) throws SQLException {
            ps[t * 4].setInt(1, row);
            ps[t * 4].executeUpdate();
            ps[t * 4 + 1].setString(1, ShardedSchema.cValue(r));
            ps[t * 4 + 1].setInt(2, row);
            ps[t * 4 + 1].executeUpdate();
        }

        private void single() throws SQLException {
            int s = r.nextInt(shards.size());
            int t = r.nextInt(TABLES_PER_SHARD);
            int row = 1 + r.nextInt(rows);
            Connection c = connections.get(s);
            PreparedStatement[] ps = statements.get(s);
            try (Statement st = c.createStatement()) {
                st.execute("BEGIN");
                try {
                    updates(ps, t, row);
                    ps[t * 4 + 2].setInt(1, row);
                    ps[t * 4 + 2].executeUpdate();
                    PreparedStatement ins = ps[t * 4 + 3];
                    ins.setInt(1, row);
                    ins.setInt(2, r.nextInt(rows));
                    ins.setString(3, ShardedSchema.cValue(r));
                    ins.setString(4, ShardedSchema.padValue(r));
                    ins.executeUpdate();
                    st.execute("COMMIT");
                } catch (SQLException e) {
                    st.execute("ROLLBACK");
                    throw e;
                }
            }
            counters.transactions.incrementAndGet();
            counters.rows.addAndGet(4);
        }

        private void xa() throws SQLException {
            int a = r.nextInt(shards.size());
            int b = (a + 1 + r.nextInt(shards.size() - 1)) % shards.size();
            // one gtrid, a branch qualifier per shard, as XA transaction managers do
            String gtrid = "'bx-" + run + "-" + xaSeq.incrementAndGet() + "'";
            int[] branch = {a, b};
            int started = 0;
            boolean prepared = false;
            try {
                for (int s : branch) {
                    String xid = gtrid + ",'b" + s + "'";
                    try (Statement st = connections.get(s).createStatement()) {
                        st.execute("XA START " + xid);
                        started++;
                        updates(statements.get(s), r.nextInt(TABLES_PER_SHARD), 1 + r.nextInt(rows));
                        st.execute("XA END " + xid);
                        st.execute("XA PREPARE " + xid);
                    }
                }
                prepared = true;
                for (int s : branch) {
                    try (Statement st = connections.get(s).createStatement()) {
                        st.execute("XA COMMIT " + gtrid + ",'b" + s + "'");
                    }
                }
            } catch (SQLException e) {
                if (!prepared) {
                    for (int i = 0; i < started; i++) {
                        String xid = gtrid + ",'b" + branch[i] + "'";
                        try (Statement st = connections.get(branch[i]).createStatement()) {
                            try {
                                st.execute("XA END " + xid);
                            } catch (SQLException ignored) {
                                // already ended or rolled back by the deadlock
                            }
                            st.execute("XA ROLLBACK " + xid);
                        } catch (SQLException ignored) {
                            // the branch is gone already
                        }
                    }
                }
                throw e;
            }
            counters.transactions.incrementAndGet();
            counters.xaTransactions.incrementAndGet();
            counters.rows.addAndGet(4);
        }

        @Override
        public void close() throws SQLException {
            for (Connection c : connections) {
                c.close();
            }
        }
    }
}
