package io.tributary.daemon.config;

import io.tributary.core.position.ShardPosition;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/**
 * SQL connections to a shard with its account and TLS setting: the preflight checks, the heartbeats and the
 * start positions all connect through here.
 */
public final class ShardJdbc {

    private ShardJdbc() {
    }

    public static Connection connect(ShardConfig shard) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", shard.user());
        props.setProperty("password", shard.password());
        props.setProperty("connectTimeout", "5000");
        if (shard.tls()) {
            props.setProperty("sslMode", "verify-full");
        } else {
            // MySQL 8's default caching_sha2_password needs the server's RSA key without TLS
            props.setProperty("allowPublicKeyRetrieval", "true");
        }
        return DriverManager.getConnection("jdbc:mariadb://" + shard.host() + ":" + shard.port() + "/", props);
    }

    /** Where {@code cdc.shards[i].start} says the shard's reader begins, asked of the shard itself. */
    public static ShardPosition resolve(ShardConfig shard) throws SQLException {
        ShardStart start = shard.start();
        if (start.kind() == ShardStart.Kind.POSITION) {
            return start.position();
        }
        try (Connection c = connect(shard); Statement s = c.createStatement()) {
            if (start.kind() == ShardStart.Kind.EARLIEST) {
                try (ResultSet rs = s.executeQuery("SHOW BINARY LOGS")) {
                    if (rs.next()) {
                        return ShardPosition.at(rs.getString(1), ShardPosition.FIRST_EVENT);
                    }
                }
                throw new SQLException("shard " + shard.name() + " lists no binary log (SHOW BINARY LOGS is empty):"
                        + " is log_bin on?");
            }
            try (ResultSet rs = status(s)) {
                if (rs.next()) {
                    return ShardPosition.at(rs.getString(1), rs.getLong(2));
                }
            }
            throw new SQLException("shard " + shard.name() + " reports no binlog position (SHOW MASTER STATUS is empty):"
                    + " is log_bin on?");
        }
    }

    private static ResultSet status(Statement s) throws SQLException {
        try {
            return s.executeQuery("SHOW MASTER STATUS");
        } catch (SQLException e) {
            if (e.getErrorCode() == 1064) { // MySQL 8.4 renamed it
                return s.executeQuery("SHOW BINARY LOG STATUS");
            }
            throw e;
        }
    }
}
