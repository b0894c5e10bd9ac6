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
 * delivers both once; then an {@code ADD COLUMN} and a {@code DROP COLUMN} rolled out one shard at a time
 * (issue 16) arrive in the logical table's shape.
 */
final class DebeziumScenario {
    static final Duration WAIT = Duration.ofSeconds(150);
    private static final Duration QUIET = Duration.ofSeconds(2);

    private DebeziumScenario() {
    }

    /**
     * The whole scenario: first streaming, a client restart, the daemon's {@code kill -9}, then a DDL rolled out
     * shard by shard while the client streams.
     */
    static void run(ShardCluster shards, Path dir, String flavor, String module, String connectorClass, String db,
                    long serverId, Map<String, String> settings) throws Exception {
        run(shards, dir, flavor, module, connectorClass, db, serverId, settings, true);
    }

    /**
     * As {@link #run(ShardCluster, Path, String, String, String, String, long, Map)}; with {@code killWhileStreaming}
     * false the daemon is killed while the client is down (a batch written before, one while the daemon is down, one
     * after its restart), and the client started again resumes over all three: the same recovery, without the
     * client's keepalive wait (up to a minute) for a running client to notice.
     */
    static void run(ShardCluster shards, Path dir, String flavor, String module, String connectorClass, String db,
                    long serverId, Map<String, String> settings, boolean killWhileStreaming) throws Exception {
        ShardWrites writes = new ShardWrites(shards, db).createTables();
        Predicate<ChangeRow> ours = r -> r.database().equals(db) || r.database().startsWith(db + "_");
        String name = module + "-" + db;
        try (DaemonProcess daemon = DebeziumClients.daemon(DaemonProcess.builder(shards.infos(), dir.resolve("daemon")),
                flavor).readerIdBlock((int) (serverId % 100)).start()) {
            Path config = DebeziumClients.config(dir, name, connectorClass, daemon, serverId, settings);
            firstStreaming(daemon, config, dir, module, name, writes, ours);
            resumeAndRollout(daemon, config, dir, module, name, writes, ours, killWhileStreaming);
            Delivery.assertNothingRefused(daemon);
        }
    }

    /**
     * A DDL rolled out shard by shard while {@code client} streams ({@link ShardWrites#rollout()}, issue 16): its
     * rows arrive once with the rest of {@code expected}, those of the shard not yet altered with the added column's
     * default and without the dropped column.
     */
    private static void rollout(CdcClient client, Predicate<ChangeRow> ours, List<String> expected, ShardWrites writes,
                                String module, DaemonProcess daemon) throws Exception {
        long rolloutStart = System.nanoTime();
        expected.addAll(writes.rollout());
        List<ChangeRow> got = client.awaitRows(ours, expected.size(), WAIT, daemon.tail(40));
        assertThat(client.rowsAfterQuiet(ours, got.size(), QUIET)).as("nothing more").isEmpty();
        Delivery.assertDelivered(client.rows().stream().filter(ours).toList(), expected, writes);
        // rows 1-8 of the rollout (id % 10000): c on all of them, 7 where the shard had none yet; no note
        // from row 5 on (after the first DROP)
        List<ChangeRow> rolled = got.subList(got.size() - 8, got.size());
        for (ChangeRow r : rolled) {
            assertThat(r.image().path("c").asInt(-1)).as("c in %s", r.image())
                    .isEqualTo(writes.defaulted().contains(r.id()) ? 7 : 70);
            assertThat(r.image().has("note")).as("note in %s", r.image()).isEqualTo(r.id() % 10_000 <= 4);
        }
        assertThat(writes.defaulted()).as("rows of a shard not yet altered").isNotEmpty();
        System.out.printf("%s through a shard-by-shard rollout: %d ms%n", module,
                (System.nanoTime() - rolloutStart) / 1_000_000);
    }

    /** Two batches streamed once, then the client stops. */
    private static void firstStreaming(DaemonProcess daemon, Path config, Path dir, String module, String name,
                                       ShardWrites writes, Predicate<ChangeRow> ours) throws Exception {
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
    }

    /**
     * A batch written while the client is down, delivered by the restarted client and nothing earlier; the daemon's
     * {@code kill -9} with a batch written while it is down and one after; then the rollout.
     */
    private static void resumeAndRollout(DaemonProcess daemon, Path config, Path dir, String module, String name,
            ShardWrites writes, Predicate<ChangeRow> ours, boolean killWhileStreaming) throws Exception {
        List<String> after = new ArrayList<>(writes.batch()); // written while the client is down
        if (!killWhileStreaming) {
            daemon.kill9();
            after.addAll(writes.batch()); // written while the daemon is down too
            daemon.restart();
            after.addAll(writes.batch());
            try (CdcClient client = DebeziumClients.start(module, config, dir, name)) {
                List<ChangeRow> got = client.awaitRows(ours, after.size(), WAIT, daemon.tail(40));
                assertThat(client.rowsAfterQuiet(ours, got.size(), QUIET))
                        .as("nothing more after a client restart over the daemon's kill -9").isEmpty();
                Delivery.assertDelivered(client.rows().stream().filter(ours).toList(), after, writes);
                rollout(client, ours, after, writes, module, daemon);
            }
            return;
        }
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
            rollout(client, ours, after, writes, module, daemon);
        }
    }
}
