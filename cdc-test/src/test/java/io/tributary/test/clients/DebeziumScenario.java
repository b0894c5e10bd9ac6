package io.tributary.test.clients;

import io.tributary.test.daemon.DaemonProcess;
import io.tributary.test.shard.ShardCluster;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a user of a Debezium connector on the dump port checks, with live shards, a daemon child process and the
 * connector's embedded engine as a child process: two batches of row changes (XA over both shards among them)
 * arrive once under the logical names; the client shuts down, a batch is written, and the restarted client (its
 * offsets in a file) delivers that batch and nothing earlier; the daemon is killed with {@code kill -9}, a batch is
 * written while it is down, it restarts, another batch follows: the running client, reconnecting by itself,
 * delivers both once.
 */
final class DebeziumScenario {
    static final Duration WAIT = Duration.ofSeconds(150);
    private static final Duration QUIET = Duration.ofSeconds(3);

    private DebeziumScenario() {
    }

    /** The whole scenario: first streaming, a client restart, the daemon's {@code kill -9}. */
    static void run(ShardCluster shards, Path dir, String flavor, String module, String connectorClass, String db,
                    long serverId, Map<String, String> settings) throws Exception {
        run(shards, dir, flavor, module, connectorClass, db, serverId, settings, true);
    }

    /** Only the first part: two batches streamed once (for a second configuration of a connector tested whole). */
    static void firstStreaming(ShardCluster shards, Path dir, String flavor, String module, String connectorClass,
                               String db, long serverId, Map<String, String> settings) throws Exception {
        run(shards, dir, flavor, module, connectorClass, db, serverId, settings, false);
    }

    private static void run(ShardCluster shards, Path dir, String flavor, String module, String connectorClass,
                            String db, long serverId, Map<String, String> settings, boolean resumes) throws Exception {
        ShardWrites writes = new ShardWrites(shards, db).createTables();
        Predicate<ChangeRow> ours = r -> r.database().equals(db) || r.database().startsWith(db + "_");
        String name = module + "-" + db;
        try (DaemonProcess daemon = DebeziumClients.daemon(DaemonProcess.builder(shards.infos(), dir.resolve("daemon")),
                flavor).readerIdBlock((int) (serverId % 100)).start()) {
            Path config = DebeziumClients.config(dir, name, connectorClass, daemon, serverId, settings);
            List<String> before = new ArrayList<>();
            try (CdcClient client = DebeziumClients.start(module, config, dir, name)) {
                DebeziumClients.awaitSubscribers(daemon, 1, WAIT, client);
                before.addAll(writes.batch());
                before.addAll(writes.batch());
                List<ChangeRow> got = client.awaitRows(ours, before.size(), WAIT, daemon.tail(40));
                assertThat(client.rowsAfterQuiet(ours, got.size(), QUIET)).as("nothing more").isEmpty();
                Delivery.assertDelivered(client.rows().stream().filter(ours).toList(), before, writes);
                client.stop(Duration.ofSeconds(60));
            }
            if (!resumes) {
                Delivery.assertNothingRefused(daemon);
                return;
            }

            List<String> after = new ArrayList<>(writes.batch()); // written while the client is down
            try (CdcClient client = DebeziumClients.start(module, config, dir, name)) {
                List<ChangeRow> got = client.awaitRows(ours, after.size(), WAIT, daemon.tail(40));
                assertThat(client.rowsAfterQuiet(ours, got.size(), QUIET)).as("nothing more after a restart").isEmpty();
                Delivery.assertDelivered(client.rows().stream().filter(ours).toList(), after, writes);

                daemon.kill9();
                after.addAll(writes.batch()); // written while the daemon is down
                daemon.restart();
                after.addAll(writes.batch());
                got = client.awaitRows(ours, after.size(), WAIT, daemon.tail(40));
                assertThat(client.rowsAfterQuiet(ours, got.size(), QUIET)).as("nothing more after the daemon's kill -9")
                        .isEmpty();
                Delivery.assertDelivered(client.rows().stream().filter(ours).toList(), after, writes);
            }
            Delivery.assertNothingRefused(daemon);
        }
    }
}
