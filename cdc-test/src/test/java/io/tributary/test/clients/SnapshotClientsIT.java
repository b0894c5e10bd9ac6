package io.tributary.test.clients;

import io.tributary.test.daemon.DaemonProcess;
import io.tributary.test.junit.WithShards;
import io.tributary.test.shard.Shard;
import io.tributary.test.shard.ShardCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 17: the real clients' snapshots of a logical table sharded over 4 live MariaDB shards, 100 000 rows in all,
 * unmodified, against the dump port: Debezium's MySQL connector ({@code snapshot.mode=initial}) with no write
 * running gets exactly the union of the shards' tables and then only what was written after it; Flink CDC's MySQL
 * source ({@code scan.startup.mode=initial}, read in primary-key chunks between position watermarks, over keys spread
 * unevenly, so that it asks where each chunk ends with a MAX over an ordered window) and Debezium's
 * MariaDB connector ({@code initial}) with a load writing during their snapshots (updates, inserts, deletes, XA
 * over two shards) end up holding the union, row by row, after applying what they printed in order as upserts by
 * key; before its snapshot, with a shard down, it fails saying which shard. On the same daemon, Flink CDC with {@code latest-offset} streams every row once (issue 16).
 */
@WithShards(count = 4)
class SnapshotClientsIT {
    private static final int SHARDS = 4;
    private static final int ROWS_PER_SHARD = 25_000;
    private static final int ROWS = SHARDS * ROWS_PER_SHARD;
    private static final Duration WAIT = Duration.ofSeconds(180);

    @TempDir
    Path dir;

    @Test
    void debeziumMySqlSnapshotIsExactWithoutWritesAndFlinkCdcConvergesWithALoadRunning(ShardCluster shards)
            throws Exception {
        SnapshotTable still = new SnapshotTable(shards, "snp", SHARDS).load(ROWS_PER_SHARD);
        // keys spread thinly: Flink CDC splits them with its MAX-over-a-window query
        SnapshotTable busy = new SnapshotTable(shards, "snf", SHARDS, 5_000).load(ROWS_PER_SHARD);
        try (DaemonProcess daemon = DebeziumClients.daemon(DaemonProcess.builder(shards.infos(), dir.resolve("daemon")),
                "mysql").readerIdBlock(17).start()) {
            Map<Long, String> before = still.union();
            assertThat(before).hasSize(ROWS);
            Path config = DebeziumClients.config(dir, "dbz-snp", DebeziumMySqlIT.CONNECTOR, daemon, 5417, Map.of(
                    "snapshot.mode", "initial", "database.include.list", "snp"));
            Predicate<ChangeRow> ours = r -> r.database().equals("snp");
            try (CdcClient client = DebeziumClients.start("debezium-mysql", config, dir, "dbz-snp")) {
                List<ChangeRow> read = client.awaitRows(ours, ROWS, WAIT, daemon.tail(40));
                assertThat(read).as("the snapshot: reads only, each row once")
                        .allSatisfy(r -> assertThat(r.op()).isEqualTo("r"))
                        .allSatisfy(r -> assertThat(r.table()).isEqualTo("items"));
                assertThat(SnapshotTable.applied(read)).as("the snapshot, row by row, against the shards' union")
                        .isEqualTo(before);
                DebeziumClients.awaitSubscribers(daemon, 1, WAIT, client);

                AtomicBoolean stop = new AtomicBoolean();
                CompletableFuture<Long> load = CompletableFuture.supplyAsync(() -> write(still, stop, 17));
                Thread.sleep(1500);
                stop.set(true);
                assertThat(load.join()).as("transactions written after the snapshot").isPositive();
                Map<Long, String> after = converge(client, ours, still, daemon);
                List<ChangeRow> streamed = client.rows().stream().filter(ours).skip(ROWS).toList();
                assertThat(streamed).as("after the snapshot only what was written after it: no bulk-load row again")
                        .isNotEmpty()
                        .noneMatch(r -> r.op().equals("r"))
                        .noneMatch(r -> r.image().path("note").asText().startsWith("row ") && r.op().equals("c"));
                System.out.printf("Debezium MySQL initial: %d rows read, %d changes streamed after, %d rows at the end%n",
                        ROWS, streamed.size(), after.size());
                latestOffsetFlinkCdc(shards, daemon); // while the Debezium client streams: 2 subscribers
            }

            AtomicBoolean stop = new AtomicBoolean();
            CompletableFuture<Long> load = CompletableFuture.supplyAsync(() -> write(busy, stop, 18));
            Predicate<ChangeRow> flinks = r -> r.database().equals("snf");
            try (CdcClient client = CdcClient.start("flink-cdc", "io.tributary.clients.flink.FlinkCdcClient",
                    List.of("127.0.0.1", Integer.toString(daemon.dumpPort()), DaemonProcess.DUMP_USER,
                            DaemonProcess.DUMP_PASSWORD, "snf", "snf.items", "5518", "initial"), dir, "flink-snf")) {
                awaitReads(client, flinks, ROWS * 9 / 10, daemon);
                stop.set(true);
                long written = load.join();
                Map<Long, String> after = converge(client, flinks, busy, daemon);
                System.out.printf("Flink CDC initial under load: %d transactions written during it, %d changes printed,"
                        + " %d rows at the end%n", written, client.rows().stream().filter(flinks).count(), after.size());
            } finally {
                stop.set(true);
            }
            Delivery.assertNothingRefused(daemon);
        }
    }

    @Test
    void debeziumMariaDbSnapshotFailsNamingADownShardThenConvergesWithALoadRunning(ShardCluster shards) throws Exception {
        SnapshotTable busy = new SnapshotTable(shards, "snm", SHARDS).load(ROWS_PER_SHARD);
        try (DaemonProcess daemon = DebeziumClients.daemon(DaemonProcess.builder(shards.infos(), dir.resolve("daemon")),
                "mariadb").readerIdBlock(18).start()) {
            Path config = DebeziumClients.config(dir, "dbz-snm", DebeziumMariaDbIT.CONNECTOR, daemon, 5419, Map.of(
                    "snapshot.mode", "initial", "database.include.list", "snm"));
            Predicate<ChangeRow> ours = r -> r.database().equals("snm");

            // a shard down: the snapshot fails, naming it; once it is back, the client started again succeeds
            Shard down = shards.shard(SHARDS - 1);
            String downName = down.info().name();
            down.stop(Duration.ofSeconds(30));
            try (CdcClient client = DebeziumClients.start("debezium-mariadb", config, dir, "dbz-snm")) {
                String said = client.awaitSaying(downName, Duration.ofSeconds(90));
                System.out.printf("Debezium MariaDB initial with %s down: %s%n", downName, said);
                assertThat(client.rows().stream().filter(ours)).as("no row from a failed snapshot").isEmpty();
            } finally {
                down.start();
            }

            AtomicBoolean stop = new AtomicBoolean();
            CompletableFuture<Long> load = CompletableFuture.supplyAsync(() -> write(busy, stop, 19));
            try (CdcClient client = DebeziumClients.start("debezium-mariadb", config, dir, "dbz-snm")) {
                awaitReads(client, ours, ROWS * 9 / 10, daemon);
                stop.set(true);
                long written = load.join();
                Map<Long, String> after = converge(client, ours, busy, daemon);
                System.out.printf("Debezium MariaDB initial under load: %d transactions written during it, %d changes"
                        + " printed, %d rows at the end%n", written, client.rows().stream().filter(ours).count(),
                        after.size());
            } finally {
                stop.set(true);
            }
            Delivery.assertNothingRefusedBut(daemon, "shard " + downName + " "); // the snapshot it refused
        }
    }

    /**
     * Issue 16 (on this test's daemon, to share its start): Flink CDC's MySQL source with
     * {@code scan.startup.mode=latest-offset} delivers every row written after it started once, under the logical
     * names, each XA one transaction ({@link ShardWrites} on shards 0 and 1).
     */
    private void latestOffsetFlinkCdc(ShardCluster shards, DaemonProcess daemon) throws Exception {
        ShardWrites writes = new ShardWrites(shards, "flk").createTables();
        Predicate<ChangeRow> ours = r -> r.database().equals("flk") || r.database().startsWith("flk_");
        try (CdcClient client = CdcClient.start("flink-cdc", "io.tributary.clients.flink.FlinkCdcClient",
                List.of("127.0.0.1", Integer.toString(daemon.dumpPort()), DaemonProcess.DUMP_USER,
                        DaemonProcess.DUMP_PASSWORD, "flk", "flk.orders", "5501", "latest-offset"), dir, "flink-cdc")) {
            DebeziumClients.awaitSubscribers(daemon, 2, WAIT, client); // the Debezium client streams too
            writes.batch();
            writes.batch();
            List<ChangeRow> got = client.awaitRows(ours, writes.changes().size(), WAIT, daemon.tail(40));
            assertThat(client.rowsAfterQuiet(ours, got.size(), Duration.ofSeconds(3))).as("nothing more").isEmpty();
            Delivery.assertDelivered(client.rows().stream().filter(ours).toList(), writes.changes(), writes);
        }
    }

    private static long write(SnapshotTable table, AtomicBoolean stop, long seed) {
        try {
            return table.writeUntil(stop, seed);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("the load on " + table.logicalDatabase() + " failed", e);
        }
    }

    /** Waits until the client has printed {@code n} snapshot reads of its table. */
    private static void awaitReads(CdcClient client, Predicate<ChangeRow> ours, int n, DaemonProcess daemon)
            throws InterruptedException {
        client.awaitRows(ours.and(r -> r.op().equals("r")), n, WAIT, daemon.tail(40));
    }

    /**
     * Waits until what the client printed, applied in order as upserts by key, equals the union of the shards'
     * tables (the load has stopped); fails after {@link #WAIT} with the rows that differ.
     */
    private static Map<Long, String> converge(CdcClient client, Predicate<ChangeRow> ours, SnapshotTable table,
                                              DaemonProcess daemon) throws Exception {
        Map<Long, String> union = table.union();
        long deadline = System.nanoTime() + WAIT.toNanos();
        Map<Long, String> held = Map.of();
        while (System.nanoTime() < deadline) {
            client.assertRunning(daemon.tail(40));
            held = SnapshotTable.applied(client.rows().stream().filter(ours).toList());
            if (held.equals(union)) {
                return held;
            }
            Thread.sleep(500);
        }
        Map<Long, String> h = held;
        List<String> differ = union.keySet().stream().filter(id -> !union.get(id).equals(h.get(id)))
                .map(id -> id + ": shards " + union.get(id) + ", client " + h.get(id)).limit(20).toList();
        List<Long> extra = h.keySet().stream().filter(id -> !union.containsKey(id)).limit(20).toList();
        throw new AssertionError("the client's rows (" + h.size()
                + ") did not converge to the shards' union (" + union.size() + ") within " + WAIT + "; differing: "
                + differ + "; held but deleted on the shards: " + extra + "\n--- the daemon's log ends with:\n"
                + daemon.tail(40) + "\n--- the client's stderr ends with:\n" + client.stderrTail(30));
    }
}
