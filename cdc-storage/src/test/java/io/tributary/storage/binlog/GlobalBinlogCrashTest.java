package io.tributary.storage.binlog;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.EventType;
import io.tributary.core.event.QueryEvent;
import io.tributary.core.event.TableMapEvent;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Invariant 5 with real crashes: a child JVM ({@link CrashTestWriter}) writes the deterministic
 * {@link CrashFeed} into a binlog with small files (frequent rotation) and multi-MB transactions, and is
 * killed with {@code kill -9} at 20 random moments; each restart recovers and resumes the feed from the
 * recovered checkpoint. Afterwards the output must hold feed transactions 0..n-1, each exactly once and
 * in order, under GTID sequence numbers 1..n, every file must decode, and the last checkpoint must
 * resume the feed at n.
 */
class GlobalBinlogCrashTest {
    private static final Logger log = LoggerFactory.getLogger(GlobalBinlogCrashTest.class);
    private static final int KILLS = 14;

    @ParameterizedTest
    @CsvSource({"mysql, commit", "mariadb, none"})
    void shouldHoldEverySourceTransactionExactlyOnceAfterRepeatedKill9(String flavor, String sync, @TempDir Path dir)
            throws Exception {
        SourceTransactions.corpus();
        Random random = new Random(("crash" + flavor + sync).hashCode());
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        int truncations = 0;
        int droppedFiles = 0;
        for (int k = 0; k < KILLS; k++) {
            Process p = new ProcessBuilder(javaBin, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                    "-Dtributary.shared.dir=" + System.getProperty("tributary.shared.dir"),
                    CrashTestWriter.class.getName(), dir.toString(), flavor, "65536", sync)
                    .redirectErrorStream(true).start();
            CompletableFuture<String> ready = new CompletableFuture<>();
            Thread drain = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line = r.readLine(); line != null; line = r.readLine()) {
                        if (line.startsWith("READY ")) {
                            ready.complete(line);
                        } else if (line.contains("Exception") || line.contains("ERROR")) {
                            log.warn("child: {}", line);
                        }
                    }
                } catch (java.io.IOException e) {
                    // the child was killed
                }
                ready.complete("EXITED");
            }, "crash-child-output");
            drain.start();
            String line = ready.get(60, TimeUnit.SECONDS);
            assertThat(line).as("child %d started", k).startsWith("READY ");
            truncations += line.contains("truncated ") ? 1 : 0;
            droppedFiles += line.contains("after the checkpoint, never published") ? 1 : 0;
            Thread.sleep(150 + random.nextInt(1200));
            assertThat(p.isAlive()).as("child %d still writing when killed", k).isTrue();
            Process kill = new ProcessBuilder("kill", "-9", Long.toString(p.pid())).start();
            assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isEqualTo(137);
            drain.join(10_000);
            log.info("kill {}: {}", k, line.length() > 300 ? line.substring(0, 300) : line);
        }

        BinlogConfig config = BinlogConfig.parse(Map.of("binlog.dir", dir.toString(), "binlog.flavor", flavor,
                "binlog.file.size", "65536", "binlog.sync", sync, "binlog.server.id", "7"));
        RecoveredBinlog recovered = BinlogRecovery.recover(config);
        long resume = CrashFeed.resumeIndex(recovered);
        List<Long> feedIndexes = new ArrayList<>();
        long[] last = {0};
        int fileCount = BinlogDirectory.forEachFile(dir, io.tributary.core.event.DecoderOptions.HEADERS_ONLY, (name, events) -> {
            for (BinlogEvent e : events) {
                long s = BinlogDirectory.sequence(e);
                if (s >= 0) {
                    assertThat(s).isEqualTo(last[0] + 1);
                    last[0] = s;
                    feedIndexes.add(-1L);
                } else if (e.type() == EventType.TABLE_MAP || e.type() == EventType.QUERY) {
                    String db = e.type() == EventType.TABLE_MAP ? e.body(TableMapEvent.class).database()
                            : e.body(QueryEvent.class).database();
                    if (db.startsWith("feed_")) {
                        long idx = Long.parseLong(db.substring(5));
                        long current = feedIndexes.get(feedIndexes.size() - 1);
                        assertThat(current == -1 || current == idx).as("one source transaction per GTID").isTrue();
                        feedIndexes.set(feedIndexes.size() - 1, idx);
                    }
                }
            }
        });
        long lastSeq = last[0];
        log.info("{} / {}: {} transactions in {} files after {} kills ({} restarts truncated a torn tail, {} dropped files)",
                flavor, sync, feedIndexes.size(), fileCount, KILLS, truncations, droppedFiles);
        assertThat(feedIndexes).isEqualTo(java.util.stream.LongStream.range(0, feedIndexes.size()).boxed().toList());
        assertThat(resume).isEqualTo(feedIndexes.size());
        assertThat(recovered.nextSequence()).isEqualTo(lastSeq + 1);
        assertThat(fileCount).as("rotations happened").isGreaterThan(KILLS / 2);
        assertThat(truncations).as("some kills tore a transaction").isPositive();
    }
}
