package io.tributary.test.clients;

import io.tributary.test.shard.ShardCluster;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes row changes on two live shards under one logical table: the physical databases {@code <db>_0} and
 * {@code <db>_1} ({@code <db>_0.orders}, {@code <db>_1.orders}) are the logical {@code <db>.orders}. Each batch has
 * single-row autocommit inserts, a multi-row transaction, an update and a delete on each shard, and XA
 * transactions over both shards (one gtrid, a branch on each, prepared on both, then committed on both), whose
 * rows the global binlog must carry as one transaction. What was written is recorded as the changes a client must
 * deliver ({@link ChangeRow#change()}) and, per XA transaction, the changes that belong together.
 */
final class ShardWrites {
    private final ShardCluster shards;
    private final String db;
    private final List<String> changes = new ArrayList<>();
    private final List<List<String>> xaTransactions = new ArrayList<>();
    private int batches;
    private final List<Long> defaulted = new ArrayList<>();

    ShardWrites(ShardCluster shards, String db) {
        this.shards = shards;
        this.db = db;
    }

    /** Creates the physical databases and tables (the same shape on both shards). */
    ShardWrites createTables() throws SQLException {
        for (int shard = 0; shard < 2; shard++) {
            try (Connection c = shards.info(shard).openAdminConnection(); Statement st = c.createStatement()) {
                st.execute("CREATE DATABASE " + db + "_" + shard);
                st.execute("CREATE TABLE " + db + "_" + shard + ".orders (id BIGINT PRIMARY KEY, note VARCHAR(100),"
                        + " qty INT NOT NULL)");
            }
        }
        return this;
    }

    /**
     * One batch: 2 x (8 inserts, a 4-row transaction, 2 updates, 1 delete) plus 3 XA transactions of 2 + 2 rows;
     * returns its changes.
     */
    List<String> batch() throws SQLException {
        int b = ++batches;
        int before = changes.size();
        for (int shard = 0; shard < 2; shard++) {
            try (Connection c = shards.info(shard).openAdminConnection(); Statement st = c.createStatement()) {
                String table = db + "_" + shard + ".orders";
                long base = id(b, shard, 0);
                for (int i = 1; i <= 8; i++) {
                    st.execute("INSERT INTO " + table + " VALUES (" + (base + i) + ", 'order " + (base + i) + "', " + i + ")");
                    changes.add(change("c", base + i));
                }
                c.setAutoCommit(false);
                for (int i = 9; i <= 12; i++) {
                    st.execute("INSERT INTO " + table + " VALUES (" + (base + i) + ", 'batch', " + i + ")");
                    changes.add(change("c", base + i));
                }
                c.commit();
                c.setAutoCommit(true);
                st.execute("UPDATE " + table + " SET qty = qty + 100 WHERE id IN (" + (base + 2) + ", " + (base + 3) + ")");
                changes.add(change("u", base + 2));
                changes.add(change("u", base + 3));
                st.execute("DELETE FROM " + table + " WHERE id = " + (base + 5));
                changes.add(change("d", base + 5));
            }
        }
        try (Connection c0 = shards.info(0).openAdminConnection(); Connection c1 = shards.info(1).openAdminConnection()) {
            List<Connection> branches = List.of(c0, c1);
            for (int x = 1; x <= 3; x++) {
                String gtrid = "'" + db + "-xa-" + b + "-" + x + "'";
                List<String> together = new ArrayList<>();
                for (int shard = 0; shard < 2; shard++) {
                    String xid = gtrid + ",'b" + shard + "'";
                    long base = id(b, shard, 50 + 10 * x);
                    try (Statement st = branches.get(shard).createStatement()) {
                        st.execute("XA START " + xid);
                        for (int i = 1; i <= 2; i++) {
                            st.execute("INSERT INTO " + db + "_" + shard + ".orders VALUES (" + (base + i) + ", 'xa " + gtrid
                                    .replace("'", "") + "', " + i + ")");
                            together.add(change("c", base + i));
                        }
                        st.execute("XA END " + xid);
                        st.execute("XA PREPARE " + xid);
                    }
                }
                for (int shard = 0; shard < 2; shard++) {
                    try (Statement st = branches.get(shard).createStatement()) {
                        st.execute("XA COMMIT " + gtrid + ",'b" + shard + "'");
                    }
                }
                changes.addAll(together);
                xaTransactions.add(together);
            }
        }
        return List.copyOf(changes.subList(before, changes.size()));
    }

    /**
     * A DDL rolled out one shard at a time, as issue 16 asks a client to come through: {@code ADD COLUMN c INT
     * DEFAULT 7}, then {@code DROP COLUMN note}, shard 0 first, with an insert on each shard (in that shard's shape)
     * after each step. The rows a shard wrote while it had no {@code c} but the logical table had are in
     * {@link #defaulted()}; the batches' positional inserts no longer fit afterwards. Returns the changes.
     */
    List<String> rollout() throws SQLException {
        int b = ++batches;
        int before = changes.size();
        String[] ddl = {"ADD COLUMN c INT DEFAULT 7", "DROP COLUMN note"};
        int[] state = new int[2];
        int row = 0;
        for (int step = 0; step < ddl.length; step++) {
            for (int altered = 0; altered < 2; altered++) {
                if (step > 0 && altered == 0) {
                    // shard 1's last row precedes shard 0's next DDL in real time, but within one heartbeat window
                    // of whole-second MariaDB timestamps the global order puts shard 0 first (invariant 4): wait
                    // for a heartbeat cut (at most cdc.heartbeat.idleInterval, 1 s) so the expected shape holds
                    try {
                        Thread.sleep(1_500);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(e);
                    }
                }
                try (Connection c = shards.info(altered).openAdminConnection(); Statement st = c.createStatement()) {
                    st.execute("ALTER TABLE " + db + "_" + altered + ".orders " + ddl[step]);
                }
                state[altered] = step + 1;
                for (int shard = 0; shard < 2; shard++) {
                    long id = id(b, shard, ++row);
                    String t = db + "_" + shard + ".orders";
                    try (Connection c = shards.info(shard).openAdminConnection(); Statement st = c.createStatement()) {
                        st.execute(switch (state[shard]) {
                            case 0 -> "INSERT INTO " + t + " (id, note, qty) VALUES (" + id + ", 'rollout', 1)";
                            case 1 -> "INSERT INTO " + t + " (id, note, qty, c) VALUES (" + id + ", 'rollout', 1, 70)";
                            default -> "INSERT INTO " + t + " (id, qty, c) VALUES (" + id + ", 1, 70)";
                        });
                    }
                    if (state[shard] == 0) {
                        defaulted.add(id);
                    }
                    changes.add(change("c", id));
                }
            }
        }
        return List.copyOf(changes.subList(before, changes.size()));
    }

    /** Rows of {@link #rollout()} written by a shard not yet altered after the logical table had {@code c}. */
    List<Long> defaulted() {
        return List.copyOf(defaulted);
    }

    /** Row ids: unique per batch, shard and row. */
    private static long id(int batch, int shard, int row) {
        return batch * 100_000L + shard * 10_000L + row;
    }

    private String change(String op, long id) {
        return op + " " + db + ".orders " + id;
    }

    /** Every change written so far, as {@link ChangeRow#change()} prints it. */
    List<String> changes() {
        return List.copyOf(changes);
    }

    /** The changes of each XA transaction written so far. */
    List<List<String>> xaTransactions() {
        return List.copyOf(xaTransactions);
    }

    String logicalDatabase() {
        return db;
    }
}
