package io.tributary.test.load;

import io.tributary.test.shard.ShardInfo;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A small sharded write load: database {@code shop_<i>} on shard i with tables {@code orders_0000} and
 * {@code orders_0001} (so the logical table is {@code shop.orders}), single-shard transactions, and
 * every {@code xaEvery}-th step an XA transaction with one branch on every shard (two-phase: XA START,
 * insert, XA END, XA PREPARE on all, then XA COMMIT on all; one in five is rolled back instead).
 *
 * <p>Deterministic for a given seed. Not thread-safe: one thread drives one load.
 */
public final class SampleLoad implements AutoCloseable {

    private final List<ShardInfo> shards;
    private final List<Connection> connections = new ArrayList<>();
    private final Random random;
    private final int xaEvery;
    private final AtomicLong singleShardCommits = new AtomicLong();
    private final AtomicLong xaCommits = new AtomicLong();
    private final AtomicLong xaRollbacks = new AtomicLong();
    private long step;

    public SampleLoad(List<ShardInfo> shards, long seed, int xaEvery) throws SQLException {
        this.shards = List.copyOf(shards);
        this.random = new Random(seed);
        this.xaEvery = xaEvery;
        for (ShardInfo shard : shards) {
            connections.add(shard.openAdminConnection());
        }
    }

    /** Creates the sharded schema on every shard (idempotent). */
    public void createSchema() throws SQLException {
        for (int i = 0; i < shards.size(); i++) {
            try (Statement s = connections.get(i).createStatement()) {
                s.execute("CREATE DATABASE IF NOT EXISTS shop_" + i);
                for (int t = 0; t < 2; t++) {
                    s.execute("CREATE TABLE IF NOT EXISTS shop_" + i + ".orders_000" + t
                            + " (id BIGINT PRIMARY KEY, customer VARCHAR(64) NOT NULL, amount DECIMAL(12,2) NOT NULL,"
                            + " note VARCHAR(255), created TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6))"
                            + " ENGINE=InnoDB");
                }
            }
        }
    }

    /** Runs one step: a single-shard transaction, or every {@code xaEvery}-th step an XA transaction. */
    public void step() throws SQLException {
        step++;
        if (shards.size() > 1 && xaEvery > 0 && step % xaEvery == 0) {
            xaTransaction();
        } else {
            singleShardTransaction();
        }
    }

    private void singleShardTransaction() throws SQLException {
        int shard = random.nextInt(shards.size());
        Connection c = connections.get(shard);
        c.setAutoCommit(false);
        try {
            int rows = 1 + random.nextInt(3);
            for (int r = 0; r < rows; r++) {
                insert(c, shard, step * 10 + r);
            }
            if (random.nextInt(4) == 0) {
                try (Statement s = c.createStatement()) {
                    s.executeUpdate("UPDATE shop_" + shard + ".orders_000" + (step % 2)
                            + " SET amount = amount + 1 ORDER BY id DESC LIMIT 1");
                }
            }
            c.commit();
            singleShardCommits.incrementAndGet();
        } catch (SQLException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }

    private void xaTransaction() throws SQLException {
        String gtrid = "'tx-" + step + "'";
        boolean rollback = random.nextInt(5) == 0;
        for (int i = 0; i < shards.size(); i++) {
            try (Statement s = connections.get(i).createStatement()) {
                String xid = gtrid + ",'branch-" + i + "'";
                s.execute("XA START " + xid);
                insert(connections.get(i), i, step * 10 + i);
                s.execute("XA END " + xid);
                s.execute("XA PREPARE " + xid);
            }
        }
        for (int i = 0; i < shards.size(); i++) {
            try (Statement s = connections.get(i).createStatement()) {
                s.execute((rollback ? "XA ROLLBACK " : "XA COMMIT ") + gtrid + ",'branch-" + i + "'");
            }
        }
        (rollback ? xaRollbacks : xaCommits).incrementAndGet();
    }

    private void insert(Connection c, int shard, long id) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("INSERT INTO shop_" + shard + ".orders_000" + (id % 2)
                + " (id, customer, amount, note) VALUES (?, ?, ?, ?)")) {
            p.setLong(1, id);
            p.setString(2, "customer-" + random.nextInt(1000));
            p.setBigDecimal(3, java.math.BigDecimal.valueOf(random.nextInt(100_000), 2));
            p.setString(4, random.nextInt(3) == 0 ? null : "note " + Long.toHexString(random.nextLong()));
            p.executeUpdate();
        }
    }

    public long singleShardCommits() {
        return singleShardCommits.get();
    }

    public long xaCommits() {
        return xaCommits.get();
    }

    public long xaRollbacks() {
        return xaRollbacks.get();
    }

    @Override
    public void close() throws SQLException {
        SQLException first = null;
        for (Connection c : connections) {
            try {
                c.close();
            } catch (SQLException e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
