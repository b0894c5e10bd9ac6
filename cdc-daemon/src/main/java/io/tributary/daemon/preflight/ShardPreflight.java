package io.tributary.daemon.preflight;

import io.tributary.daemon.config.ShardConfig;
import io.tributary.daemon.config.ShardJdbc;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Checks, before anything starts, that a shard can feed Tributary: the account can log in, the binlog
 * is on, in ROW format with FULL row images and FULL row metadata, and the account holds the replication
 * privileges. Each problem says which shard, what was found, and what to change.
 *
 * <p>Uses a plain JDBC side connection (the MariaDB driver also talks to MySQL). Stateless.
 */
public final class ShardPreflight {

    private ShardPreflight() {
    }

    /** The problems found on {@code shard}; empty when it is ready. */
    public static List<String> check(ShardConfig shard) {
        List<String> problems = new ArrayList<>();
        String where = "shard " + shard.name() + " (" + shard.host() + ":" + shard.port() + ")";
        try (Connection c = ShardJdbc.connect(shard); Statement s = c.createStatement()) {
            String version = single(s, "SELECT VERSION()");
            boolean mariaDb = version.toLowerCase(Locale.ROOT).contains("mariadb");
            expect(problems, where, "log_bin", single(s, "SELECT @@GLOBAL.log_bin"), "1",
                    "turn the binary log on: log_bin in the shard's my.cnf, then restart it");
            expect(problems, where, "binlog_format", single(s, "SELECT @@GLOBAL.binlog_format"), "ROW",
                    "set binlog_format=ROW in the shard's my.cnf (or SET GLOBAL binlog_format='ROW')");
            expect(problems, where, "binlog_row_image", single(s, "SELECT @@GLOBAL.binlog_row_image"), "FULL",
                    "set binlog_row_image=FULL in the shard's my.cnf (or SET GLOBAL binlog_row_image='FULL')");
            expect(problems, where, "binlog_row_metadata", single(s, "SELECT @@GLOBAL.binlog_row_metadata"), "FULL",
                    "set binlog_row_metadata=FULL in the shard's my.cnf (or SET GLOBAL binlog_row_metadata='FULL'),"
                            + " so table maps carry column names");
            String grants = grants(s).toUpperCase(Locale.ROOT);
            boolean all = grants.contains("ALL PRIVILEGES ON *.*");
            if (!all && !grants.contains("REPLICATION SLAVE") && !grants.contains("REPLICATION REPLICA")) {
                problems.add(where + ": account " + shard.user() + " lacks REPLICATION SLAVE; run GRANT REPLICATION SLAVE"
                        + " ON *.* TO '" + shard.user() + "'@'%'");
            }
            String monitor = mariaDb ? "BINLOG MONITOR" : "REPLICATION CLIENT";
            if (!all && !grants.contains("REPLICATION CLIENT") && !grants.contains("BINLOG MONITOR")) {
                problems.add(where + ": account " + shard.user() + " lacks " + monitor + "; run GRANT " + monitor
                        + " ON *.* TO '" + shard.user() + "'@'%'");
            }
        } catch (SQLException e) {
            String reason = e.getErrorCode() == 1045
                    ? "access denied for " + shard.user() + ": check cdc.shards[" + shard.index() + "].user and its password"
                    : "cannot connect: " + e.getMessage();
            problems.add(where + ": " + reason);
        }
        return problems;
    }

    private static void expect(List<String> problems, String where, String variable, String found, String wanted,
                               String action) {
        if (!wanted.equalsIgnoreCase(found)) {
            problems.add(where + ": " + variable + " is " + found + ", Tributary needs " + wanted + "; " + action);
        }
    }

    private static String single(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    private static String grants(Statement s) throws SQLException {
        StringBuilder b = new StringBuilder();
        try (ResultSet rs = s.executeQuery("SHOW GRANTS")) {
            while (rs.next()) {
                b.append(rs.getString(1)).append('\n');
            }
        }
        return b.toString();
    }
}
