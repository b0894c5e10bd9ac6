package io.tributary.daemon.dump;

import io.tributary.core.naming.LogicalNames;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * The shards behind the logical tables, as the dump server reads them to answer a {@code SELECT} over a logical table
 * ({@link TableSelect}): their names in configuration order, a read-only JDBC connection to one with the shard's
 * account, and the naming rules that map physical databases and tables to logical ones. Implementations are
 * thread-safe; each call opens a new connection, which the caller closes.
 */
public interface ShardSource {

    /** No shards: a {@code SELECT} over a logical table gets error 1235 saying the daemon has none configured. */
    ShardSource NONE = new ShardSource() {
        @Override
        public List<String> shards() {
            return List.of();
        }

        @Override
        public Connection connectReadOnly(String shard) throws SQLException {
            throw new SQLException("no shard " + shard + " is configured");
        }

        @Override
        public LogicalNames names() {
            return LogicalNames.defaults();
        }
    };

    /** The shard names, in configuration order. */
    List<String> shards();

    /** A new read-only connection to the shard (no default database). */
    Connection connectReadOnly(String shard) throws SQLException;

    /** Physical to logical names ({@code cdc.naming.*}). */
    LogicalNames names();
}
