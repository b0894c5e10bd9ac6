package io.tributary.test.shard;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What a user of the harness relies on: each shard is a real server with the binlog settings Tributary
 * needs, and what a test writes on a shard shows up as row events in that shard's binlog, and only
 * there. One abstract suite, one subclass per server flavor.
 */
abstract class ShardBinlogIT {

    private static final Pattern TABLE_MAP = Pattern.compile("table_id: (\\d+) \\((.+)\\.(.+)\\)");
    private static final Pattern ROWS = Pattern.compile("table_id: (\\d+)");

    /** One row of {@code SHOW BINLOG EVENTS}. */
    record BinlogEvent(String file, long pos, String type, long serverId, String info) { }

    @Test
    void shouldRunEveryShardWithTheBinlogSettingsTributaryNeeds(List<ShardInfo> shards) throws SQLException {
        assertThat(shards).hasSize(2);
        assertThat(shards.stream().map(ShardInfo::serverId).distinct()).hasSize(2);
        assertThat(shards.stream().map(ShardInfo::port).distinct()).hasSize(2);
        for (ShardInfo shard : shards) {
            try (Connection c = shard.openReplConnection(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT @@log_bin, @@binlog_format, @@binlog_row_image, "
                         + "@@binlog_row_metadata, @@binlog_checksum, @@server_id")) {
                rs.next();
                assertThat(rs.getInt(1)).as("log_bin on %s", shard).isEqualTo(1);
                assertThat(rs.getString(2)).as("binlog_format on %s", shard).isEqualTo("ROW");
                assertThat(rs.getString(3)).as("binlog_row_image on %s", shard).isEqualTo("FULL");
                assertThat(rs.getString(4)).as("binlog_row_metadata on %s", shard).isEqualTo("FULL");
                assertThat(rs.getString(5)).as("binlog_checksum on %s", shard).isEqualTo("CRC32");
                assertThat(rs.getLong(6)).as("server_id on %s", shard).isEqualTo(shard.serverId());
            }
        }
    }

    @Test
    void shouldRecordEveryWriteAsRowEventsInTheWritingShardsBinlogOnly(List<ShardInfo> shards) throws SQLException {
        for (ShardInfo shard : shards) {
            String db = "shop_" + shard.index();
            String table = "orders_000" + shard.index();
            try (Connection c = shard.openAdminConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE DATABASE " + db);
                s.execute("CREATE TABLE " + db + "." + table
                        + " (id INT PRIMARY KEY, item VARCHAR(50) NOT NULL, qty INT NOT NULL) ENGINE=InnoDB");
                for (int id = 1; id <= 5; id++) {
                    s.execute("INSERT INTO " + db + "." + table + " VALUES (" + id + ", 'item-" + id + "', " + id + ")");
                }
                c.setAutoCommit(false);
                s.execute("INSERT INTO " + db + "." + table + " VALUES (10, 'a', 1), (11, 'b', 2), (12, 'c', 3)");
                c.commit();
                c.setAutoCommit(true);
                s.execute("UPDATE " + db + "." + table + " SET qty = qty + 100 WHERE id = 1");
                s.execute("DELETE FROM " + db + "." + table + " WHERE id = 2");
            }
        }

        for (ShardInfo shard : shards) {
            List<BinlogEvent> events = binlogEvents(shard);
            String db = "shop_" + shard.index();
            String table = "orders_000" + shard.index();
            List<String> tableIds = new ArrayList<>();
            for (BinlogEvent e : events) {
                Matcher m = TABLE_MAP.matcher(e.info());
                if (e.type().equals("Table_map") && m.find()) {
                    assertThat(m.group(2)).as("a table map on %s names only its own databases", shard).isEqualTo(db);
                    if (m.group(3).equals(table)) {
                        tableIds.add(m.group(1));
                    }
                }
            }
            assertThat(tableIds).as("table maps for %s.%s on %s", db, table, shard).hasSize(8);
            Map<String, Long> rowEvents = countRowEvents(events, tableIds);
            assertThat(rowEvents).as("row events for %s.%s in %s's binlog", db, table, shard)
                    .containsExactlyInAnyOrderEntriesOf(Map.of("Write_rows", 6L, "Update_rows", 1L, "Delete_rows", 1L));
            assertThat(events).as("every event of %s carries its server_id", shard)
                    .allSatisfy(e -> assertThat(e.serverId()).isEqualTo(shard.serverId()));
        }
    }

    private static Map<String, Long> countRowEvents(List<BinlogEvent> events, List<String> tableIds) {
        Map<String, Long> counts = new java.util.TreeMap<>();
        for (BinlogEvent e : events) {
            for (String kind : List.of("Write_rows", "Update_rows", "Delete_rows")) {
                Matcher m = ROWS.matcher(e.info());
                if (e.type().startsWith(kind) && m.find() && tableIds.contains(m.group(1))) {
                    counts.merge(kind, 1L, Long::sum);
                }
            }
        }
        return counts;
    }

    /** Every event in every binlog file of the shard, read with {@code SHOW BINLOG EVENTS} as the replication user. */
    static List<BinlogEvent> binlogEvents(ShardInfo shard) throws SQLException {
        List<BinlogEvent> events = new ArrayList<>();
        try (Connection c = shard.openReplConnection(); Statement s = c.createStatement()) {
            List<String> files = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SHOW BINARY LOGS")) {
                while (rs.next()) {
                    files.add(rs.getString(1));
                }
            }
            for (String file : files) {
                try (ResultSet rs = s.executeQuery("SHOW BINLOG EVENTS IN '" + file + "'")) {
                    while (rs.next()) {
                        events.add(new BinlogEvent(rs.getString("Log_name"), rs.getLong("Pos"),
                                rs.getString("Event_type"), rs.getLong("Server_id"), rs.getString("Info")));
                    }
                }
            }
        }
        return events;
    }
}
