package io.tributary.storage.binlog;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.schema.CreateTableText;
import io.tributary.core.schema.LogicalSchema;
import io.tributary.core.schema.TableName;
import io.tributary.storage.checkpoint.BinlogCheckpoint;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The logical schema is stored with the checkpoint: after a clean restart, after a purge of the binlog files
 * holding its {@code CREATE TABLE}, and after {@code kill -9} at random moments of a stream of DDL, the schema the
 * writer opens with is exactly the one of the durable checkpoint (the seed with columns {@code c1..cn} for
 * checkpoint sequence n), never one ahead of it or behind it.
 */
class SchemaHistoryCrashTest {
    private static final int KILLS = 5;

    @ParameterizedTest
    @CsvSource({"mariadb, commit", "mysql, none"})
    void shouldOpenWithTheSchemaOfTheDurableCheckpointAfterKill9(String flavor, String sync, @TempDir Path dir)
            throws Exception {
        Random random = new Random(("schema" + flavor + sync).hashCode());
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        long lastSeen = -1;
        for (int k = 0; k < KILLS; k++) {
            Process p = new ProcessBuilder(javaBin, "-Xmx128m", "-cp", System.getProperty("java.class.path"),
                    SchemaCrashChild.class.getName(), dir.toString(), flavor, sync).redirectErrorStream(true).start();
            CompletableFuture<String> ready = new CompletableFuture<>();
            Thread drain = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line = r.readLine(); line != null; line = r.readLine()) {
                        if (line.startsWith("READY ")) {
                            ready.complete(line);
                        }
                    }
                } catch (java.io.IOException e) {
                    ready.completeExceptionally(e);
                }
                ready.complete("EXITED");
            });
            drain.setDaemon(true);
            drain.start();
            String line = ready.get(60, TimeUnit.SECONDS);
            assertThat(line).as("child start %d", k).startsWith("READY ");
            long resumedAt = Long.parseLong(line.substring(6).strip());
            assertThat(resumedAt).as("restart %d resumes at or after what was durable before", k).isGreaterThanOrEqualTo(lastSeen);
            Thread.sleep(100 + random.nextInt(400));
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            lastSeen = assertSchemaMatchesCheckpoint(dir, flavor, k);
        }
        assertThat(lastSeen).as("DDL transactions durable across the kills").isGreaterThan(KILLS);
    }

    /** Recovers as a restart does and checks the schema against the checkpoint; returns its sequence. */
    private static long assertSchemaMatchesCheckpoint(Path dir, String flavor, int k) throws Exception {
        BinlogConfig config = BinlogConfig.parse(Map.of("binlog.dir", dir.toString(), "binlog.flavor", flavor,
                "binlog.file.size", "8192", "binlog.sync", "commit", "binlog.server.id", "7"));
        RecoveredBinlog recovered = BinlogRecovery.recover(config);
        if (recovered.isFresh()) {
            return 0;
        }
        BinlogCheckpoint cp = recovered.checkpoint().orElseThrow();
        try (GlobalBinlogWriter w = GlobalBinlogWriter.open(config, recovered, Clock.systemUTC())) {
            if (!w.schemaHistory().seeded()) {
                assertThat(cp.lastSequence()).as("no seed only before the first transaction").isZero();
                return 0;
            }
            long n = cp.lastSequence();
            assertThat(n).as("the checkpoint's shard position names the same transaction")
                    .isEqualTo(cp.shards().isEmpty() ? 0 : cp.shards().get("shard-0").resumeFrom().position());
            LogicalSchema expected = SchemaDdlFeed.expected(n, config.flavor());
            TableName orders = new TableName("shop", "orders");
            assertThat(CreateTableText.render(w.schemaHistory().latest().table(orders).orElseThrow(), config.flavor()))
                    .as("kill %d: schema at checkpoint sequence %d", k, n)
                    .isEqualTo(CreateTableText.render(expected.table(orders).orElseThrow(), config.flavor()));
            assertThat(w.durableSchema().table(orders)).isEqualTo(expected.table(orders));
            return n;
        }
    }

    @Test
    void shouldKeepTheSchemaAcrossARestartAndAPurgeOfTheFilesHoldingTheCreateTable(@TempDir Path dir) throws Exception {
        BinlogFlavor flavor = BinlogFlavor.MARIADB;
        BinlogConfig config = BinlogConfig.parse(Map.of("binlog.dir", dir.toString(), "binlog.flavor", "mariadb",
                "binlog.file.size", "4096", "binlog.sync", "commit", "binlog.server.id", "7",
                "binlog.retention.size", "8KB"));
        try (GlobalBinlogWriter w = GlobalBinlogWriter.open(config, BinlogRecovery.recover(config), Clock.systemUTC())) {
            w.seedSchema(SchemaDdlFeed.seed(flavor));
            for (long i = 1; i <= 200; i++) {
                w.append(SchemaDdlFeed.transaction(i, w.schemaHistory().latest(), flavor));
            }
            assertThat(w.durability().awaitSequence(200, java.time.Duration.ofSeconds(30))).isTrue();
            w.purge(); // retention also purges at each rotation
        }
        assertThat(Files.exists(dir.resolve("binlog.000001"))).as("the file holding the seed and first ALTERs, purged")
                .isFalse();
        try (GlobalBinlogWriter w = GlobalBinlogWriter.open(config, BinlogRecovery.recover(config), Clock.systemUTC())) {
            assertThat(w.schemaHistory().latest().table(new TableName("shop", "orders")))
                    .isEqualTo(SchemaDdlFeed.expected(200, flavor).table(new TableName("shop", "orders")));
            assertThat(w.durableSchema().tables()).containsOnlyKeys(new TableName("shop", "orders"));
        }
    }
}
