package io.tributary.test.e2e;

import io.tributary.test.load.OltpWriteOnlyLoad;
import io.tributary.test.shard.ShardInfo;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether the replica's logical tables equal the union of the shards' physical tables, the way a user would
 * check it with {@code CHECKSUM TABLE}: the union of shard {@code s}'s {@code <prefix>_<s>.sbtest<k>_<s>} is
 * copied into a scratch database on the replica ({@code sql_log_bin=0}, so the replica's own binlog and GTID
 * position stay untouched), into a table made {@code LIKE} the replicated one, and both are checksummed on
 * the same server. On a difference, the first differing rows are named.
 */
final class UnionComparison {

    /** One logical table's result. */
    record Result(String table, long replicaRows, long unionRows, long replicaChecksum, long unionChecksum,
            List<String> differences) {
        boolean equal() {
            return replicaRows == unionRows && replicaChecksum == unionChecksum && differences.isEmpty();
        }

        @Override
        public String toString() {
            return table + ": replica " + replicaRows + " rows, checksum " + replicaChecksum + "; union of the shards "
                    + unionRows + " rows, checksum " + unionChecksum + (differences.isEmpty() ? "" : "; differences " + differences);
        }
    }

    private UnionComparison() {
    }

    static List<Result> compare(List<ShardInfo> shards, OltpWriteOnlyLoad load, TributaryReplica replica)
            throws SQLException {
        String scratch = "e2e_union_" + load.logicalDatabase();
        List<Result> results = new ArrayList<>();
        try (Connection r = replica.openConnection(); Statement st = r.createStatement()) {
            st.execute("SET SESSION sql_log_bin = 0");
            st.execute("DROP DATABASE IF EXISTS " + scratch);
            st.execute("CREATE DATABASE " + scratch);
            for (int k = 1; k <= load.options().tables(); k++) {
                String logical = load.logicalDatabase() + ".sbtest" + k;
                String copy = scratch + ".sbtest" + k;
                st.execute("CREATE TABLE " + copy + " LIKE " + logical);
                for (int s = 0; s < shards.size(); s++) {
                    copyRows(shards.get(s), load.database(s) + "." + load.table(s, k), r, copy);
                }
                long replicaRows = count(st, logical);
                long unionRows = count(st, copy);
                long replicaSum = checksum(st, logical);
                long unionSum = checksum(st, copy);
                List<String> diff = replicaSum == unionSum && replicaRows == unionRows ? List.of() : differences(st, logical, copy);
                results.add(new Result(logical, replicaRows, unionRows, replicaSum, unionSum, diff));
            }
            st.execute("DROP DATABASE " + scratch);
        }
        return results;
    }

    /**
     * The same for any logical table {@code logical} whose shard {@code s} holds {@code physical.apply(s)}: all its
     * columns copied as they are; a difference is named by counts and checksums only.
     */
    static Result compare(List<ShardInfo> shards, TributaryReplica replica, String logical,
            java.util.function.IntFunction<String> physical) throws SQLException {
        String scratch = "e2e_union_any";
        try (Connection r = replica.openConnection(); Statement st = r.createStatement()) {
            st.execute("SET SESSION sql_log_bin = 0");
            st.execute("DROP DATABASE IF EXISTS " + scratch);
            st.execute("CREATE DATABASE " + scratch);
            String copy = scratch + ".t";
            st.execute("CREATE TABLE " + copy + " LIKE " + logical);
            for (int s = 0; s < shards.size(); s++) {
                try (Connection c = shards.get(s).openAdminConnection(); Statement sst = c.createStatement();
                        ResultSet rs = sst.executeQuery("SELECT * FROM " + physical.apply(s))) {
                    int columns = rs.getMetaData().getColumnCount();
                    String marks = String.join(", ", java.util.Collections.nCopies(columns, "?"));
                    try (PreparedStatement ins = r.prepareStatement("INSERT INTO " + copy + " VALUES (" + marks + ")")) {
                        while (rs.next()) {
                            for (int i = 1; i <= columns; i++) {
                                ins.setObject(i, rs.getObject(i));
                            }
                            ins.executeUpdate();
                        }
                    }
                }
            }
            Result result = new Result(logical, count(st, logical), count(st, copy), checksum(st, logical),
                    checksum(st, copy), List.of());
            st.execute("DROP DATABASE " + scratch);
            return result;
        }
    }

    private static void copyRows(ShardInfo shard, String physical, Connection replica, String into) throws SQLException {
        try (Connection c = shard.openAdminConnection(); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT id, k, c, pad FROM " + physical);
                PreparedStatement ins = replica.prepareStatement("INSERT INTO " + into + " (id, k, c, pad) VALUES (?, ?, ?, ?)")) {
            int batched = 0;
            while (rs.next()) {
                ins.setInt(1, rs.getInt(1));
                ins.setInt(2, rs.getInt(2));
                ins.setString(3, rs.getString(3));
                ins.setString(4, rs.getString(4));
                ins.addBatch();
                if (++batched % 1000 == 0) {
                    ins.executeBatch();
                }
            }
            ins.executeBatch();
        }
    }

    private static long count(Statement st, String table) throws SQLException {
        try (ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static long checksum(Statement st, String table) throws SQLException {
        try (ResultSet rs = st.executeQuery("CHECKSUM TABLE " + table)) {
            rs.next();
            return rs.getLong(2);
        }
    }

    /** Up to 10 rows present on one side only or different (id and which side). */
    private static List<String> differences(Statement st, String replica, String union) throws SQLException {
        List<String> out = new ArrayList<>();
        String sql = "SELECT 'only on the replica' AS side, a.id FROM " + replica + " a LEFT JOIN " + union
                + " b ON a.id = b.id WHERE b.id IS NULL"
                + " UNION ALL SELECT 'missing on the replica', b.id FROM " + union + " b LEFT JOIN " + replica
                + " a ON a.id = b.id WHERE a.id IS NULL"
                + " UNION ALL SELECT 'different', a.id FROM " + replica + " a JOIN " + union
                + " b ON a.id = b.id WHERE a.k <> b.k OR a.c <> b.c OR a.pad <> b.pad LIMIT 10";
        try (ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1) + " id " + rs.getInt(2));
            }
        }
        return out;
    }
}
