package io.tributary.test.shard;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * How to reach one running shard: where it listens and which accounts it has.
 *
 * <p>Two accounts exist on every shard: an admin account with all privileges (tests use it to write
 * data) and a replication account with a password and the privileges a binlog reader needs
 * ({@code REPLICATION SLAVE}, {@code REPLICATION CLIENT} / {@code BINLOG MONITOR}, {@code SELECT}) plus
 * what the heartbeat writer needs on the {@code __cdc__} schema.
 *
 * @param index        0-based shard index, the order shards were configured in
 * @param name         shard name as configuration would give it ({@code shard-0}, ...)
 * @param flavor       the server kind
 * @param host         address the server listens on
 * @param port         TCP port
 * @param serverId     the server's {@code server_id}, distinct per shard
 * @param adminUser    account with all privileges
 * @param adminPassword its password
 * @param replUser     replication account
 * @param replPassword its password
 */
public record ShardInfo(
        int index,
        String name,
        ShardFlavor flavor,
        String host,
        int port,
        long serverId,
        String adminUser,
        String adminPassword,
        String replUser,
        String replPassword) {

    /** JDBC URL without credentials; pass a user and password to {@link DriverManager}. */
    public String jdbcUrl() {
        return jdbcUrl("");
    }

    /** JDBC URL for a database on this shard, without credentials. */
    public String jdbcUrl(String database) {
        String scheme = flavor.isMySql() ? "jdbc:mysql" : "jdbc:mariadb";
        return scheme + "://" + host + ":" + port + "/" + database;
    }

    /** A new connection as the admin account. The caller closes it. */
    public Connection openAdminConnection() throws SQLException {
        return DriverManager.getConnection(jdbcUrl(), adminUser, adminPassword);
    }

    /** A new connection as the replication account. The caller closes it. */
    public Connection openReplConnection() throws SQLException {
        return DriverManager.getConnection(jdbcUrl(), replUser, replPassword);
    }

    @Override
    public String toString() {
        return name + "[" + flavor + " " + host + ":" + port + " server_id=" + serverId + "]";
    }
}
