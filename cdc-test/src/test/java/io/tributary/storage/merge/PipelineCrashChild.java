package io.tributary.storage.merge;

import io.tributary.core.heartbeat.HeartbeatWriter;
import io.tributary.core.naming.LogicalNames;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.reader.ShardReaderConfig;
import io.tributary.storage.binlog.BinlogConfig;
import io.tributary.storage.binlog.BinlogRecovery;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.storage.binlog.RecoveredBinlog;
import io.tributary.storage.buffer.LivePersistSettings;
import io.tributary.storage.buffer.PersistConfig;
import io.tributary.storage.buffer.SpillStore;
import io.tributary.storage.buffer.TransactionBuffer;
import io.tributary.storage.pipeline.GlobalBinlogPipeline;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The child JVM of {@link GlobalBinlogPipelineCrashIT}: what the daemon will run, in one process, until it
 * is killed. Recovers the global binlog in {@code binlog.dir}, then runs heartbeats on every shard,
 * readers from the recovered checkpoints (or the given start positions on a fresh directory),
 * sorter/merger with a spill store, and the writer.
 *
 * <p>Arguments: {@code binlogDir spillDir fileSize sync txnPersistThreshold} then one
 * {@code name,host,port,user,password,serverId,startFile,startPosition} per shard.
 *
 * <p>Prints on stdout, one line each: {@code RECOVERY <action>} for what recovery did, {@code READY},
 * {@code ROTATING <from> <to> <step>} at each rotation step, {@code SPILLING <bytes>} when spilled
 * transactions appear in the buffer, {@code PAUSED <step>} before a pause inside a rotation, and every
 * 200 ms {@code WRITTEN <transactions> <file:position> <last sequence>}. Reads commands on stdin:
 * {@code PAUSE <step>} pauses the next rotation at that step for 30 s (the parent kills it there),
 * {@code STOP} closes everything cleanly and exits 0.
 */
public final class PipelineCrashChild {

    private PipelineCrashChild() {
    }

    public static void main(String[] args) throws Exception {
        Path binlogDir = Path.of(args[0]);
        Path spillDir = Path.of(args[1]);
        BinlogConfig config = BinlogConfig.parse(Map.of("binlog.dir", binlogDir.toString(), "binlog.flavor", "mariadb",
                "binlog.file.size", args[2], "binlog.sync", args[3], "binlog.server.id", "1"));
        List<ShardReaderConfig> readers = new ArrayList<>();
        List<HeartbeatWriter.Target> targets = new ArrayList<>();
        for (int i = 5; i < args.length; i++) {
            String[] f = args[i].split(",");
            readers.add(ShardReaderConfig.of(f[0], f[1], Integer.parseInt(f[2]), f[3], f[4], Long.parseLong(f[5]),
                    ShardPosition.at(f[6], Long.parseLong(f[7]))));
            String url = "jdbc:mariadb://" + f[1] + ":" + f[2] + "/";
            targets.add(new HeartbeatWriter.Target(f[0], f[1] + ":" + f[2],
                    () -> DriverManager.getConnection(url, f[3], f[4])));
        }
        RecoveredBinlog recovered = BinlogRecovery.recover(config);
        for (String a : recovered.actions()) {
            say("RECOVERY " + a);
        }
        // spilled transactions are not kept across a restart: the shards deliver them again
        deleteRecursively(spillDir);
        AtomicReference<GlobalBinlogWriter.RotationStep> pauseAt = new AtomicReference<>();
        CountDownLatch stop = new CountDownLatch(1);
        try (SpillStore store = SpillStore.open(spillDir);
                TransactionBuffer buffer = new TransactionBuffer(new LivePersistSettings(
                        new PersistConfig(Runtime.getRuntime().maxMemory()), Map.of(PersistConfig.PATH, spillDir.toString(),
                                PersistConfig.TXN_THRESHOLD, args[4])), store);
                HeartbeatWriter heartbeats = new HeartbeatWriter(targets, HeartbeatWriter.DEFAULT_INTERVAL,
                        HeartbeatWriter::systemMicros);
                GlobalBinlogWriter writer = GlobalBinlogWriter.open(config, recovered, Clock.systemUTC())) {
            writer.rotationObserver((from, to, step) -> {
                say("ROTATING " + from + " " + to + " " + step);
                if (pauseAt.compareAndSet(step, null)) {
                    say("PAUSED " + step);
                    sleep(30_000);
                }
            });
            heartbeats.start();
            GlobalBinlogPipeline pipeline = new GlobalBinlogPipeline(readers, recovered.shardCheckpoints(), writer, buffer,
                    LogicalNames.defaults(), Duration.ofSeconds(60), 1024);
            Thread commands = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                    for (String line = in.readLine(); line != null; line = in.readLine()) {
                        if (line.startsWith("PAUSE ")) {
                            pauseAt.set(GlobalBinlogWriter.RotationStep.valueOf(line.substring(6).strip()));
                        } else if (line.equals("STOP")) {
                            break;
                        }
                    }
                } catch (IOException e) {
                    // the parent went away: stop as well
                }
                stop.countDown();
            }, "commands");
            commands.setDaemon(true);
            try {
                pipeline.start();
                commands.start();
                say("READY");
                long spilledBefore = 0;
                long nextReport = 0;
                while (!stop.await(5, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                    long spilled = buffer.spilledBytes();
                    if (spilled > 0 && spilledBefore == 0) {
                        say("SPILLING " + spilled);
                    }
                    spilledBefore = spilled;
                    if (System.nanoTime() > nextReport) {
                        nextReport = System.nanoTime() + 200_000_000L;
                        say("WRITTEN " + pipeline.transactionsWritten() + " " + writer.writtenPosition().file() + ":"
                                + writer.writtenPosition().position() + " " + writer.lastSequence());
                    }
                    if (pipeline.failure() != null) {
                        say("FAILED " + pipeline.failure());
                        System.exit(3);
                    }
                }
            } finally {
                pipeline.close();
            }
            heartbeats.close();
            say("WRITTEN " + pipeline.transactionsWritten() + " " + writer.writtenPosition().file() + ":"
                    + writer.writtenPosition().position() + " " + writer.lastSequence());
        }
        say("STOPPED");
        System.exit(0);
    }

    private static void say(String line) {
        synchronized (System.out) {
            System.out.println(line);
            System.out.flush();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
