package io.tributary.test.clients;

import io.tributary.test.junit.WithShards;
import io.tributary.test.shard.ShardCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

/**
 * Issue 16: Debezium's MariaDB connector 3.5.0 (embedded engine; MariaDB Connector/J; the newest published),
 * unmodified, streams from the dump port of a daemon serving the MariaDB flavor over two live MariaDB shards
 * ({@link DebeziumScenario}: rows once under logical names, each XA one transaction, resumed after a client restart
 * and after the daemon's {@code kill -9}).
 */
@WithShards(count = 2)
class DebeziumMariaDbIT {
    static final String CONNECTOR = "io.debezium.connector.mariadb.MariaDbConnector";

    @TempDir
    Path dir;

    /**
     * {@code snapshot.mode=no_data} (the schema snapshot reads the logical schema from the dump port): every row once
     * across a client restart over the daemon's {@code kill -9} (a running client reconnecting by itself:
     * {@code DebeziumMySqlIT}), then through an {@code ADD COLUMN} and a
     * {@code DROP COLUMN} rolled out one shard at a time (issue 16). {@code initial}: {@code SnapshotClientsIT}.
     */
    @Test
    void noDataModeStreamsEveryRowOnceAcrossARestartOverAKill9AndAShardByShardRollout(ShardCluster shards)
            throws Exception {
        DebeziumScenario.run(shards, dir, "mariadb", "debezium-mariadb", CONNECTOR, "dbzman", 5404,
                Map.of("snapshot.mode", "no_data"), false);
    }
}
