package io.tributary.test.clients;

import io.tributary.test.junit.WithShards;
import io.tributary.test.shard.ShardCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

/**
 * Issue 16: Debezium's MySQL connector 3.6.1 (embedded engine; MySQL Connector/J), unmodified, streams from the dump
 * port of a daemon serving the MySQL flavor over two live MariaDB shards ({@link DebeziumScenario}: rows once under
 * logical names, each XA one transaction, resumed after a client restart and after the daemon's {@code kill -9}).
 */
@WithShards(count = 2)
class DebeziumMySqlIT {
    static final String CONNECTOR = "io.debezium.connector.mysql.MySqlConnector";

    @TempDir
    Path dir;

    /**
     * {@code snapshot.mode=no_data} (the schema snapshot reads the logical schema from the dump port): every row once
     * across a client restart and the daemon's {@code kill -9}, then through an {@code ADD COLUMN} and a
     * {@code DROP COLUMN} rolled out one shard at a time (issue 16). {@code initial}: {@code SnapshotClientsIT}.
     */
    @Test
    void noDataModeStreamsEveryRowOnceAcrossARestartAKill9AndAShardByShardRollout(ShardCluster shards)
            throws Exception {
        DebeziumScenario.run(shards, dir, "mysql", "debezium-mysql", CONNECTOR, "dbzmyn", 5403, Map.of("snapshot.mode", "no_data"));
    }
}
