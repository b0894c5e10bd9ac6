package io.tributary.test.quickstart;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.naming.LogicalNames;
import io.tributary.core.order.HeartbeatWriter;
import io.tributary.core.reader.ShardPosition;
import io.tributary.core.reader.ShardReaderConfig;
import io.tributary.daemon.dump.DumpServer;
import io.tributary.daemon.dump.DumpServerConfig;
import io.tributary.daemon.dump.DumpUser;
import io.tributary.storage.binlog.BinlogConfig;
import io.tributary.storage.binlog.BinlogRecovery;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.storage.buffer.LivePersistSettings;
import io.tributary.storage.buffer.PersistConfig;
import io.tributary.storage.buffer.SpillStore;
import io.tributary.storage.buffer.TransactionBuffer;
import io.tributary.storage.merge.GlobalBinlogPipeline;
import io.tributary.test.shard.ShardInfo;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The Tributary components the daemon will run, started in-process for the quickstart until the daemon
 * runs them itself: heartbeats on every shard, a reader per shard from the start of its binlog, the
 * sorter and merger, the global binlog (MariaDB flavor, so {@code mariadb-binlog} prints it natively)
 * under {@code dir}, and the dump server. Closing stops them in reverse order.
 */
final class QuickstartPipeline implements AutoCloseable {

    /** The account the dump server accepts in the quickstart. */
    static final String USER = "tributary";
    static final String PASSWORD = "tributary-pass";

    private final HeartbeatWriter heartbeats;
    private final SpillStore spill;
    private final TransactionBuffer buffer;
    private final GlobalBinlogWriter writer;
    private final GlobalBinlogPipeline pipeline;
    private final DumpServer dump;

    QuickstartPipeline(List<ShardInfo> shards, Path dir, int dumpPort) throws Exception {
        List<HeartbeatWriter.Target> targets = new ArrayList<>();
        List<ShardReaderConfig> readers = new ArrayList<>();
        for (ShardInfo s : shards) {
            targets.add(new HeartbeatWriter.Target(s.name(), s.host() + ":" + s.port(),
                    () -> DriverManager.getConnection(s.jdbcUrl(), s.replUser(), s.replPassword())));
            readers.add(ShardReaderConfig.of(s.name(), s.host(), s.port(), s.replUser(), s.replPassword(),
                    9000 + s.index(), ShardPosition.at("mariadb-bin.000001", ShardPosition.FIRST_EVENT)));
        }
        heartbeats = new HeartbeatWriter(targets, HeartbeatWriter.DEFAULT_INTERVAL, HeartbeatWriter::systemMicros);
        heartbeats.start();
        spill = SpillStore.open(dir.resolve("spill"));
        buffer = new TransactionBuffer(new LivePersistSettings(new PersistConfig(Runtime.getRuntime().maxMemory()),
                Map.of(PersistConfig.PATH, dir.resolve("spill").toString())), spill);
        BinlogConfig binlog = BinlogConfig.parse(Map.of("binlog.dir", dir.resolve("binlog").toString(),
                "binlog.flavor", "mariadb", "binlog.sync", "interval", "binlog.server.id", "1"));
        writer = GlobalBinlogWriter.open(binlog, BinlogRecovery.recover(binlog), Clock.systemUTC());
        pipeline = new GlobalBinlogPipeline(readers, Map.of(), writer, buffer, LogicalNames.defaults(),
                Duration.ofSeconds(60), 1024);
        pipeline.start();
        dump = new DumpServer(DumpServerConfig.defaults(BinlogFlavor.MARIADB, 1, List.of(DumpUser.withPassword(USER,
                PASSWORD))).withPort(dumpPort), () -> writer).start();
    }

    int dumpPort() {
        return dump.port();
    }

    /** The global binlog's end and how many transactions the pipeline wrote. */
    String status() {
        Throwable failure = pipeline.failure();
        return "global " + writer.writtenPosition().file() + ":" + writer.writtenPosition().position() + ", "
                + pipeline.transactionsWritten() + " transactions" + (failure == null ? "" : ", FAILED: " + failure);
    }

    long transactionsWritten() {
        return pipeline.transactionsWritten();
    }

    @Override
    public void close() throws Exception {
        Exception first = null;
        for (AutoCloseable c : new AutoCloseable[] {dump, pipeline, writer, heartbeats, buffer, spill}) {
            try {
                c.close();
            } catch (Exception e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
