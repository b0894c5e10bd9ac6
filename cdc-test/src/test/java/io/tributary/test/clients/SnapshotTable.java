package io.tributary.test.clients;

import com.fasterxml.jackson.databind.JsonNode;
import io.tributary.test.shard.ShardCluster;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One logical table sharded over every shard of a cluster, as a snapshot test needs it: the physical tables
 * {@code <db>_<shard>.items (id BIGINT PRIMARY KEY, v INT NOT NULL, note VARCHAR(40))} are the logical
 * {@code <db>.items}; shard {@code s} holds the ids {@code 4i + s} (so the logical key range is dense and a chunked
 * reader splits it evenly), or these times a spread. It loads the rows, runs a writing load while a client snapshots (updates, inserts,
 * deletes and XA transactions over two shards), and reads the union of the shards' tables, which is what a client
 * must hold at the end: id to {@code "v|note"}.
 */
final class SnapshotTable {
    private final ShardCluster shards;
    private final String db;
    private final int shardCount;
    private final long spread;
    private final AtomicLong nextIndex = new AtomicLong();

    /** Keys dense over the shards: {@code 4i + s}. */
    SnapshotTable(ShardCluster shards, String db, int shardCount) {
        this(shards, db, shardCount, 1);
    }

    /**
     * Keys {@code (4i + s) * spread}: with a spread over 1 000 a chunked reader finds them unevenly distributed
     * (Flink CDC then asks where each chunk ends with a MAX over an ordered window).
     */
    SnapshotTable(ShardCluster shards, String db, int shardCount, long spread) {
        this.shards = shards;
        this.db = db;
        this.shardCount = shardCount;
        this.spread = spread;
    }

    String logicalDatabase() {
        return db;
    }

    /** Creates the physical tables and loads {@code rowsPerShard} rows into each, in multi-row inserts. */
    SnapshotTable load(int rowsPerShard) throws SQLException {
        for (int shard = 0; shard < shardCount; shard++) {
            try (Connection c = shards.info(shard).openAdminConnection(); Statement st = c.createStatement()) {
                st.execute("CREATE DATABASE " + db + "_" + shard);
                st.execute("CREATE TABLE " + db + "_" + shard + ".items (id BIGINT PRIMARY KEY, v INT NOT NULL,"
                        + " note VARCHAR(40))");
                for (int from = 1; from <= rowsPerShard; from += 1000) {
                    StringBuilder sql = new StringBuilder("INSERT INTO " + db + "_" + shard + ".items VALUES ");
                    for (int i = from; i < from + 1000 && i <= rowsPerShard; i++) {
                        sql.append(i == from ? "" : ",").append('(').append(id(i, shard)).append(',').append(i)
                                .append(",'row ").append(i).append("')");
                    }
                    st.execute(sql.toString());
                }
            }
        }
        nextIndex.set(rowsPerShard + 1L);
        return this;
    }

    private long id(long index, int shard) {
        return (index * shardCount + shard) * spread;
    }

    /**
     * Writes until {@code stop} is set: on a random shard an update of a random row, an insert of a new row, a
     * delete, and every fifth round an XA transaction updating a row on each of two shards (prepared on both, then
     * committed on both). Returns the number of transactions written.
     */
    long writeUntil(AtomicBoolean stop, long seed) throws SQLException {
        Random random = new Random(seed);
        long written = 0;
        long rounds = 0;
        Connection[] c = new Connection[shardCount];
        try {
            for (int s = 0; s < shardCount; s++) {
                c[s] = shards.info(s).openAdminConnection();
            }
            while (!stop.get()) {
                int shard = random.nextInt(shardCount);
                long top = nextIndex.get();
                try (Statement st = c[shard].createStatement()) {
                    String table = db + "_" + shard + ".items";
                    st.execute("UPDATE " + table + " SET v = v + 1, note = 'updated' WHERE id = "
                            + id(1 + random.nextInt((int) top - 1), shard));
                    long n = nextIndex.getAndIncrement();
                    st.execute("INSERT INTO " + table + " VALUES (" + id(n, shard) + ", " + n + ", 'inserted')");
                    st.execute("DELETE FROM " + table + " WHERE id = " + id(1 + random.nextInt((int) top - 1), shard));
                    written += 3;
                }
                if (++rounds % 5 == 0) {
                    int other = (shard + 1 + random.nextInt(shardCount - 1)) % shardCount;
                    String gtrid = "'" + db + "-xa-" + written + "'";
                    for (int s : new int[] {shard, other}) {
                        try (Statement st = c[s].createStatement()) {
                            st.execute("XA START " + gtrid + ",'b" + s + "'");
                            st.execute("UPDATE " + db + "_" + s + ".items SET v = v + 1000, note = 'xa' WHERE id = "
                                    + id(1 + random.nextInt((int) top - 1), s));
                            st.execute("XA END " + gtrid + ",'b" + s + "'");
                            st.execute("XA PREPARE " + gtrid + ",'b" + s + "'");
                        }
                    }
                    for (int s : new int[] {shard, other}) {
                        try (Statement st = c[s].createStatement()) {
                            st.execute("XA COMMIT " + gtrid + ",'b" + s + "'");
                        }
                    }
                    written++;
                }
                Thread.sleep(2);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            for (Connection x : c) {
                if (x != null) {
                    x.close();
                }
            }
        }
        return written;
    }

    /** The union of the shards' tables now: id to {@code "v|note"}. */
    Map<Long, String> union() throws SQLException {
        Map<Long, String> rows = new TreeMap<>();
        for (int shard = 0; shard < shardCount; shard++) {
            try (Connection c = shards.info(shard).openAdminConnection(); Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT id, v, note FROM " + db + "_" + shard + ".items")) {
                while (rs.next()) {
                    rows.put(rs.getLong(1), rs.getInt(2) + "|" + rs.getString(3));
                }
            }
        }
        return rows;
    }

    /**
     * What a consumer holds after applying {@code changes} in order, upserts by key ({@code r}, {@code c},
     * {@code u}: the row's after image; {@code d}: removed): id to {@code "v|note"}.
     */
    static Map<Long, String> applied(List<ChangeRow> changes) {
        Map<Long, String> rows = new TreeMap<>();
        for (ChangeRow r : changes) {
            if (r.op().equals("d")) {
                rows.remove(r.id());
            } else {
                JsonNode after = r.image();
                rows.put(r.id(), after.path("v").asInt() + "|" + after.path("note").asText());
            }
        }
        return rows;
    }
}
