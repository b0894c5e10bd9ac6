package io.tributary.test.clients;

import io.tributary.test.daemon.DaemonProcess;
import io.tributary.test.junit.WithShards;
import io.tributary.test.shard.ShardCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 16: Debezium's MySQL connector (embedded engine, {@code snapshot.mode=no_data}, every other setting its
 * default), unmodified, streams from the dump port of a daemon serving the MySQL flavor over two live MariaDB shards.
 */
@WithShards(count = 2)
class DebeziumMySqlIT {
    private static final String CONNECTOR = "io.debezium.connector.mysql.MySqlConnector";
    private static final Duration WAIT = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    @Test
    void noDataModeDeliversEveryRowOnceUnderLogicalNamesWithEachXaOneTransaction(ShardCluster shards) throws Exception {
        ShardWrites writes = new ShardWrites(shards, "dbzmy").createTables();
        Predicate<ChangeRow> ours = r -> r.database().startsWith("dbzmy");
        try (DaemonProcess daemon = DebeziumClients.daemon(DaemonProcess.builder(shards.infos(), dir.resolve("daemon")),
                "mysql").start()) {
            Path config = DebeziumClients.config(dir, "dbz-mysql", CONNECTOR, daemon, 5401, "no_data", Map.of());
            try (CdcClient client = DebeziumClients.start("debezium-mysql", config, dir, "dbz-mysql")) {
                DebeziumClients.awaitSubscribers(daemon, 1, WAIT, client);
                writes.batch();
                writes.batch();
                List<ChangeRow> got = client.awaitRows(ours, writes.changes().size(), WAIT, daemon.tail(40));
                assertThat(client.rowsAfterQuiet(ours, got.size(), Duration.ofSeconds(3))).as("nothing more").isEmpty();
                assertThat(got).extracting(ChangeRow::change).as("every row change written, once, under the logical name")
                        .containsExactlyInAnyOrderElementsOf(writes.changes());
            }
        }
    }
}
