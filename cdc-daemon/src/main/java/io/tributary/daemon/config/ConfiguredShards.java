package io.tributary.daemon.config;

import io.tributary.core.naming.LogicalNames;
import io.tributary.daemon.dump.ShardSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * The configured shards ({@code cdc.shards}) as the dump server reads them for a {@code SELECT} over a logical table:
 * connections with each shard's account ({@link ShardJdbc#connect}), set read-only, and the naming rules
 * ({@code cdc.naming.*}). Immutable and thread-safe.
 */
public final class ConfiguredShards implements ShardSource {

    private final List<ShardConfig> shards;
    private final LogicalNames names;

    public ConfiguredShards(List<ShardConfig> shards, LogicalNames names) {
        this.shards = List.copyOf(shards);
        this.names = names;
    }

    @Override
    public List<String> shards() {
        return shards.stream().map(ShardConfig::name).toList();
    }

    @Override
    public Connection connectReadOnly(String shard) throws SQLException {
        ShardConfig config = shards.stream().filter(s -> s.name().equals(shard)).findFirst()
                .orElseThrow(() -> new SQLException("no shard " + shard + " is configured"));
        Connection c = ShardJdbc.connect(config);
        try {
            c.setReadOnly(true);
        } catch (SQLException e) {
            c.close();
            throw e;
        }
        return c;
    }

    @Override
    public LogicalNames names() {
        return names;
    }
}
