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
     * No snapshot at all ({@code configuration_based} with the schema and data snapshots off): the connector reads
     * the global binlog from its start, learning the tables from the DDL in it; then a DDL rolled out shard by shard
     * (issue 16), whose rows arrive once in the logical shape. (Restarts: see no_data.)
     */
    @Test
    void withoutSnapshotsItStreamsEveryRowOnceAlsoThroughAShardByShardRollout(ShardCluster shards) throws Exception {
        DebeziumScenario.firstStreamingThroughARollout(shards, dir, "mariadb", "debezium-mariadb", CONNECTOR, "dbzma", 5402, Map.of(
                "snapshot.mode", "configuration_based",
                "snapshot.mode.configuration.based.snapshot.schema", "false",
                "snapshot.mode.configuration.based.snapshot.data", "false",
                "snapshot.mode.configuration.based.start.stream", "true"));
    }

    /** {@code snapshot.mode=no_data}: the schema snapshot reads the logical schema from the dump port. */
    @Test
    void noDataModeStreamsEveryRowOnceAcrossAClientRestartAndADaemonKill9(ShardCluster shards) throws Exception {
        DebeziumScenario.run(shards, dir, "mariadb", "debezium-mariadb", CONNECTOR, "dbzman", 5404,
                Map.of("snapshot.mode", "no_data"));
    }
}
