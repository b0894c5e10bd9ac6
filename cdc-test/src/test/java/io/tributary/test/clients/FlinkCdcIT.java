package io.tributary.test.clients;

import io.tributary.test.daemon.DaemonProcess;
import io.tributary.test.junit.WithShards;
import io.tributary.test.shard.ShardCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 16: Flink CDC's MySQL source ({@code scan.startup.mode=latest-offset}) in a Flink job on a local mini-cluster,
 * unmodified, streams from the dump port of a daemon serving the MySQL flavor over two live MariaDB shards.
 */
@WithShards(count = 2)
class FlinkCdcIT {
    private static final Duration WAIT = Duration.ofSeconds(150);

    @TempDir
    Path dir;

    @Test
    void latestOffsetDeliversEveryRowOnceUnderLogicalNamesWithEachXaOneTransaction(ShardCluster shards) throws Exception {
        ShardWrites writes = new ShardWrites(shards, "flk").createTables();
        Predicate<ChangeRow> ours = r -> r.database().equals("flk") || r.database().startsWith("flk_");
        try (DaemonProcess daemon = DebeziumClients.daemon(DaemonProcess.builder(shards.infos(), dir.resolve("daemon")),
                "mysql").start()) {
            try (CdcClient client = CdcClient.start("flink-cdc", "io.tributary.clients.flink.FlinkCdcClient",
                    List.of("127.0.0.1", Integer.toString(daemon.dumpPort()), DaemonProcess.DUMP_USER,
                            DaemonProcess.DUMP_PASSWORD, "flk", "flk.orders", "5501"), dir, "flink-cdc")) {
                DebeziumClients.awaitSubscribers(daemon, 1, WAIT, client);
                writes.batch();
                writes.batch();
                List<ChangeRow> got = client.awaitRows(ours, writes.changes().size(), WAIT, daemon.tail(40));
                assertThat(client.rowsAfterQuiet(ours, got.size(), Duration.ofSeconds(3))).as("nothing more").isEmpty();
                Delivery.assertDelivered(client.rows().stream().filter(ours).toList(), writes.changes(), writes);
            }
            Delivery.assertNothingRefused(daemon);
        }
    }
}
