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
     * No snapshot at all ({@code configuration_based} with the schema and data snapshots off): the connector reads
     * the global binlog from its start, learning the tables from the DDL in it, also through an {@code ADD COLUMN}
     * and a {@code DROP COLUMN} rolled out one shard at a time (issue 16). (Restarts: see no_data.)
     */
    @Test
    void withoutSnapshotsItStreamsEveryRowOnceAlsoThroughAShardByShardRollout(ShardCluster shards) throws Exception {
        DebeziumScenario.firstStreamingThroughARollout(shards, dir, "mysql", "debezium-mysql", CONNECTOR, "dbzmy", 5401, Map.of(
                "snapshot.mode", "configuration_based",
                "snapshot.mode.configuration.based.snapshot.schema", "false",
                "snapshot.mode.configuration.based.snapshot.data", "false",
                "snapshot.mode.configuration.based.start.stream", "true"));
    }

    /** {@code snapshot.mode=no_data}: the schema snapshot reads the logical schema from the dump port. */
    @Test
    void noDataModeStreamsEveryRowOnceAcrossAClientRestartAndADaemonKill9(ShardCluster shards) throws Exception {
        DebeziumScenario.run(shards, dir, "mysql", "debezium-mysql", CONNECTOR, "dbzmyn", 5403,
                Map.of("snapshot.mode", "no_data"));
    }
}
