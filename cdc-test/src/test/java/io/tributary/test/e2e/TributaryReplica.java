package io.tributary.test.e2e;

import io.tributary.test.daemon.DaemonProcess;
import io.tributary.test.shard.ShardCluster;
import io.tributary.test.shard.ShardClusterConfig;
import io.tributary.test.shard.ShardFlavor;
import io.tributary.test.shard.ShardInfo;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A real MariaDB server (started by the harness, apart from the shards) replicating from the Tributary
 * daemon's dump port with {@code MASTER_USE_GTID=slave_pos}, as a user would set one up. It retries a lost
 * connection every second ({@code MASTER_CONNECT_RETRY=1}), so it reconnects by itself when the daemon
 * comes back.
 */
final class TributaryReplica implements AutoCloseable {

    /** server_id of the replica: distinct from the shards (101...) and the global binlog's (1). */
    static final long SERVER_ID = 201;

    private final ShardCluster server;
    private final Connection connection;

    private TributaryReplica(ShardCluster server) throws SQLException {
        this.server = server;
        this.connection = server.info(0).openAdminConnection();
    }

    static TributaryReplica start() throws SQLException {
        return start(List.of());
    }

    /**
     * A replica started with extra server options, e.g. {@code --log-slave-updates}: it then writes what it applies
     * to its own binlog ({@link #binlogDirectory}), in the order applied, under the GTIDs it received.
     */
    static TributaryReplica start(List<String> serverOptions) throws SQLException {
        ShardClusterConfig d = ShardClusterConfig.defaults();
        ShardCluster server = ShardCluster.start(new ShardClusterConfig(1, ShardFlavor.MARIADB_10_11, d.baseDir(),
                Duration.ofSeconds(120), SERVER_ID, serverOptions));
        try {
            return new TributaryReplica(server);
        } catch (SQLException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    ShardInfo info() {
        return server.info(0);
    }

    /** CHANGE MASTER TO the daemon's dump port by GTID, then START SLAVE. */
    void follow(DaemonProcess daemon) throws SQLException {
        follow(daemon.dumpPort());
    }

    /**
     * CHANGE MASTER TO {@code 127.0.0.1:port} (a daemon's dump port, or a front door such as HAProxy) by GTID
     * ({@code MASTER_USE_GTID=slave_pos}: it continues after what it has applied), then START SLAVE. A replica already
     * running is stopped first: this is how a user moves a replica to another twin by hand.
     */
    synchronized void follow(int port) throws SQLException {
        try (Statement st = connection.createStatement()) {
            st.execute("STOP SLAVE");
            st.execute("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=" + port
                    + ", MASTER_USER='" + DaemonProcess.DUMP_USER + "', MASTER_PASSWORD='" + DaemonProcess.DUMP_PASSWORD
                    + "', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1, MASTER_HEARTBEAT_PERIOD=1");
            st.execute("START SLAVE");
        }
    }

    /** {@code SHOW SLAVE STATUS} as column to value. */
    synchronized Map<String, String> status() throws SQLException {
        Map<String, String> out = new LinkedHashMap<>();
        try (Statement st = connection.createStatement(); ResultSet rs = st.executeQuery("SHOW SLAVE STATUS")) {
            if (rs.next()) {
                for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                    out.put(rs.getMetaData().getColumnLabel(i), rs.getString(i));
                }
            }
        }
        return out;
    }

    synchronized String gtidSlavePos() throws SQLException {
        try (Statement st = connection.createStatement(); ResultSet rs = st.executeQuery("SELECT @@gtid_slave_pos")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** An applier error, or null: what a replica that stopped applying would show. */
    static String sqlError(Map<String, String> status) {
        String errno = status.get("Last_SQL_Errno");
        return errno == null || "0".equals(errno) ? null : "Last_SQL_Error " + errno + ": " + status.get("Last_SQL_Error");
    }

    /**
     * Waits until the replica has applied {@code gtid} and both threads run without error.
     *
     * @return the final {@code SHOW SLAVE STATUS}
     */
    Map<String, String> awaitApplied(String gtid, Duration timeout) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Map<String, String> status = status();
            String sqlError = sqlError(status);
            if (sqlError != null) {
                throw new AssertionError("the replica stopped applying: " + sqlError + "; status " + status);
            }
            if (gtid.equals(gtidSlavePos()) && "Yes".equals(status.get("Slave_IO_Running"))
                    && "Yes".equals(status.get("Slave_SQL_Running"))) {
                return status;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the replica did not apply " + gtid + " within " + timeout + "; gtid_slave_pos "
                        + gtidSlavePos() + ", status " + status);
            }
            Thread.sleep(100);
        }
    }

    /** A connection to the replica as its admin (the caller closes it). */
    Connection openConnection() throws SQLException {
        return server.info(0).openAdminConnection();
    }

    /** The global binlog's GTID position as the daemon's dump port reports it ({@code @@global.gtid_binlog_pos}). */
    static String globalGtidPosition(DaemonProcess daemon) throws SQLException {
        String url = "jdbc:mysql://127.0.0.1:" + daemon.dumpPort() + "/?sslMode=DISABLED&allowPublicKeyRetrieval=true";
        try (Connection c = DriverManager.getConnection(url, DaemonProcess.DUMP_USER, DaemonProcess.DUMP_PASSWORD);
                Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT @@global.gtid_binlog_pos")) {
            rs.next();
            return rs.getString(1);
        }
    }

    Path directory() {
        return server.directory();
    }

    /** Where the replica's own binlog files are ({@code mariadb-bin.NNNNNN}). */
    Path binlogDirectory() {
        return ((io.tributary.test.shard.EmbeddedMariaDbShard) server.shard(0)).binlogDirectory();
    }

    @Override
    public void close() {
        try (Statement st = connection.createStatement()) {
            st.execute("STOP SLAVE");
        } catch (SQLException ignored) {
            // stopping the server anyway
        }
        try {
            connection.close();
        } catch (SQLException ignored) {
            // the server goes away next
        }
        server.close();
    }
}
