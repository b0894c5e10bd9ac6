package io.tributary.test.dump;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.daemon.dump.DumpServer;
import io.tributary.daemon.dump.DumpServerConfig;
import io.tributary.daemon.dump.DumpUser;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.test.junit.WithShards;
import io.tributary.test.shard.ShardCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real MariaDB replica replicates from the dump server. Shard 0 produces real row transactions (inserts,
 * updates, deletes on {@code shop.orders}); they are relayed into a MariaDB-flavor global binlog as
 * {@code logical_shop.orders}, after the DDL that creates it. Shard 1 becomes a replica of Tributary with
 * {@code CHANGE MASTER TO ... MASTER_USE_GTID=slave_pos}, then again by file/position; each time its
 * {@code CHECKSUM TABLE} equals the source table's and {@code SHOW SLAVE STATUS} shows no error.
 */
@WithShards(count = 2)
class MariaDbReplicaIT {
    private static final String TABLE = "(id INT PRIMARY KEY, note VARCHAR(100), amount DECIMAL(10,2), created DATETIME)";

    @TempDir
    Path dir;

    @Test
    void aMariaDbReplicaAppliesTheGlobalBinlogByGtidAndByFilePosition(ShardCluster shards) throws Exception {
        long sourceChecksum;
        byte[] binlog;
        try (Connection c = shards.info(0).openAdminConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE shop");
            st.execute("CREATE TABLE shop.orders " + TABLE);
            for (int i = 1; i <= 60; i++) {
                st.execute("INSERT INTO shop.orders VALUES (" + i + ", 'order " + i + "', " + (i * 3.25) + ", NOW())");
            }
            st.execute("UPDATE shop.orders SET note = CONCAT(note, ' paid') WHERE id % 3 = 0");
            st.execute("DELETE FROM shop.orders WHERE id % 7 = 0");
            sourceChecksum = checksum(st, "shop.orders");
            binlog = shardBinlog(st);
        }
        CorpusBinlog rows = CorpusBinlog.fromBytes("shard-0 binlog", binlog, "shop"::equals);
        assertThat(rows.size()).isEqualTo(62);

        try (GlobalBinlogWriter writer = CorpusBinlog.openWriter(dir, BinlogFlavor.MARIADB, 8192, "0")) {
            CorpusBinlog.appendDdl(writer, "", "CREATE DATABASE logical_shop");
            CorpusBinlog.appendDdl(writer, "logical_shop", "CREATE TABLE orders " + TABLE);
            rows.append(writer, rows.size());
            assertThat(writer.index().entries().size()).isGreaterThan(1);
            try (DumpServer server = new DumpServer(DumpServerConfig.defaults(BinlogFlavor.MARIADB, 7,
                    List.of(DumpUser.withPassword("repl", "repl-pass"))).withPort(0), () -> writer).start();
                 Connection replica = shards.info(1).openAdminConnection(); Statement st = replica.createStatement()) {
                st.execute("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=" + server.port()
                        + ", MASTER_USER='repl', MASTER_PASSWORD='repl-pass', MASTER_USE_GTID=slave_pos,"
                        + " MASTER_HEARTBEAT_PERIOD=1");
                st.execute("START SLAVE");
                Map<String, String> status = awaitCaughtUp(st, "0-7-64");
                assertThat(status.get("Using_Gtid")).isEqualTo("Slave_Pos");
                assertThat(checksum(st, "logical_shop.orders")).isEqualTo(sourceChecksum);

                // again by file/position, from an empty replica
                st.execute("STOP SLAVE");
                st.execute("RESET SLAVE ALL");
                st.execute("SET GLOBAL gtid_slave_pos = ''");
                st.execute("DROP DATABASE logical_shop");
                st.execute("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=" + server.port()
                        + ", MASTER_USER='repl', MASTER_PASSWORD='repl-pass', MASTER_USE_GTID=no,"
                        + " MASTER_LOG_FILE='binlog.000001', MASTER_LOG_POS=4");
                st.execute("START SLAVE");
                status = awaitCaughtUp(st, "0-7-64");
                assertThat(status.get("Using_Gtid")).isEqualTo("No");
                assertThat(checksum(st, "logical_shop.orders")).isEqualTo(sourceChecksum);
                st.execute("STOP SLAVE");
            }
        }
    }

    private static Map<String, String> awaitCaughtUp(Statement st, String gtid) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            Map<String, String> status = slaveStatus(st);
            assertThat(status.get("Last_IO_Errno")).as("Last_IO_Error: " + status.get("Last_IO_Error")).isEqualTo("0");
            assertThat(status.get("Last_SQL_Errno")).as("Last_SQL_Error: " + status.get("Last_SQL_Error")).isEqualTo("0");
            if (gtid.equals(status.get("Gtid_IO_Pos")) || gtidSlavePos(st).equals(gtid)) {
                if (gtidSlavePos(st).equals(gtid)) {
                    assertThat(status.get("Slave_IO_Running")).isEqualTo("Yes");
                    assertThat(status.get("Slave_SQL_Running")).isEqualTo("Yes");
                    return status;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("replica did not reach " + gtid + ": " + status);
            }
            Thread.sleep(50);
        }
    }

    private static String gtidSlavePos(Statement st) throws SQLException {
        try (ResultSet rs = st.executeQuery("SELECT @@gtid_slave_pos")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static Map<String, String> slaveStatus(Statement st) throws SQLException {
        Map<String, String> out = new LinkedHashMap<>();
        try (ResultSet rs = st.executeQuery("SHOW SLAVE STATUS")) {
            if (rs.next()) {
                for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                    out.put(rs.getMetaData().getColumnLabel(i), rs.getString(i));
                }
            }
        }
        return out;
    }

    private static long checksum(Statement st, String table) throws SQLException {
        try (ResultSet rs = st.executeQuery("CHECKSUM TABLE " + table)) {
            assertThat(rs.next()).isTrue();
            return rs.getLong(2);
        }
    }

    private static byte[] shardBinlog(Statement st) throws Exception {
        String base;
        try (ResultSet rs = st.executeQuery("SELECT @@log_bin_basename")) {
            rs.next();
            base = rs.getString(1);
        }
        String file;
        long end;
        try (ResultSet rs = st.executeQuery("SHOW MASTER STATUS")) {
            rs.next();
            file = rs.getString(1);
            end = rs.getLong(2);
        }
        byte[] all = Files.readAllBytes(Path.of(base).resolveSibling(file));
        return Arrays.copyOf(all, (int) Math.min(all.length, end));
    }
}
