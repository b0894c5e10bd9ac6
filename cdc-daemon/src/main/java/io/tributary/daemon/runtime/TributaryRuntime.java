package io.tributary.daemon.runtime;

import io.tributary.core.heartbeat.HeartbeatWriter;
import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.reader.ShardReaderConfig;
import io.tributary.daemon.TributaryApplication;
import io.tributary.daemon.config.ShardConfig;
import io.tributary.daemon.config.ShardJdbc;
import io.tributary.daemon.config.TributaryConfig;
import io.tributary.daemon.dump.DumpServer;
import io.tributary.daemon.dump.LiveVariables;
import io.tributary.daemon.dump.StreamProgress;
import io.tributary.core.schema.SchemaDdl;
import io.tributary.daemon.schema.ShardSchemaReader;
import io.tributary.storage.binlog.BinlogRecovery;
import io.tributary.storage.binlog.DurableCut;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.storage.binlog.RecoveredBinlog;
import io.tributary.storage.buffer.LivePersistSettings;
import io.tributary.storage.buffer.SpillStore;
import io.tributary.storage.buffer.TransactionBuffer;
import io.tributary.storage.memory.MemoryBudget;
import io.tributary.storage.merge.MergeStage;
import io.tributary.storage.pipeline.GlobalBinlogPipeline;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything the daemon runs, in one place and in the order it must start and stop: the global binlog
 * (recovered first), the transaction buffer and its spill store, the heartbeats on every shard, the dump
 * server, the pipeline (a reader per shard, sorter, merger, writer) and the poller of how far behind the shards
 * it is ({@link ShardBacklog}).
 *
 * <p><b>Start.</b> {@link BinlogRecovery} runs before anything else is opened: a torn tail is truncated
 * and each shard's checkpoint found. A shard with a checkpoint resumes from it; a shard without one starts
 * where {@code cdc.shards[i].start} says (resolved on the shard over JDBC). At the first start (no schema
 * history yet) the logical schema is built from the shards' {@code SHOW CREATE TABLE} ({@link ShardSchemaReader})
 * and stored before the merger starts.
 *
 * <p><b>Stop</b> ({@link #close}), the graceful shutdown: the readers stop and what they handed on drains
 * into the writer; the heartbeats stop; the writer makes what it wrote durable and stores its checkpoint;
 * then the subscribers are closed (after the last durable bytes were offered to them) and the buffer and
 * spill store are freed. What was read and not written is read again after a restart.
 *
 * <p>Not Spring-specific: {@link RuntimeConfiguration} runs it as a lifecycle bean; tests and the benchmark
 * runner may run it directly. Threading: {@link #start} and {@link #close} from one thread.
 */
public final class TributaryRuntime implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(TributaryRuntime.class);
    private static final int RING_SIZE = 4096;

    private final TributaryConfig config;
    private final LivePersistSettings persist;
    private final LiveVariables liveVariables;
    private final Clock clock;
    private final MergeStage.DelayListener delays;

    private GlobalBinlogWriter writer;
    private SpillStore spill;
    private TransactionBuffer buffer;
    private HeartbeatWriter heartbeats;
    private GlobalBinlogPipeline pipeline;
    private DumpServer dump;
    private ShardBacklog backlog;
    /** The pipeline once started, for the dump server's positions (read from its worker threads). */
    private volatile GlobalBinlogPipeline running;
    private boolean closed;

    /**
     * @param config        the validated configuration
     * @param persist       the live {@code storage.*} settings (edits apply to the running buffer)
     * @param liveVariables what {@code SHOW VARIABLES} / {@code SET GLOBAL} on the dump port read and edit
     * @param delays        told when shard transactions become durable (the delay metric)
     * @param clock         wall clock of the writer
     */
    public TributaryRuntime(TributaryConfig config, LivePersistSettings persist, LiveVariables liveVariables,
            MergeStage.DelayListener delays, Clock clock) {
        this.config = config;
        this.persist = persist;
        this.liveVariables = liveVariables;
        this.delays = delays;
        this.clock = clock;
    }

    /**
     * Recovers and opens the global binlog, then starts everything else.
     *
     * @throws RuntimeStartException naming what could not start and why; what had started is stopped again
     */
    public synchronized void start() {
        if (writer != null) {
            throw new IllegalStateException("Tributary already started");
        }
        String step = "recover the global binlog in " + config.binlog().dir();
        try {
            RecoveredBinlog recovered = BinlogRecovery.recover(config.binlog());
            recovered.actions().forEach(a -> log.info("recovery: {}", a));
            step = "open the global binlog in " + config.binlog().dir();
            writer = GlobalBinlogWriter.open(config.binlog(), recovered, clock);
            step = "open the spill store in " + persist.current().path();
            spill = SpillStore.open(persist.current().path());
            buffer = new TransactionBuffer(persist, spill);
            MemoryBudget budget = MemoryBudget.of(Runtime.getRuntime().maxMemory(), persist.current().memoryLimitBytes(),
                    config.dump().cacheBytes(), config.shards().size());
            log.info("{}", budget.describe());
            step = "start the heartbeats (table __cdc__.__cdc_heartbeat__ on every shard)";
            heartbeats = new HeartbeatWriter(heartbeatTargets(), config.heartbeatInterval(),
                    config.heartbeatIdleInterval(), HeartbeatWriter::systemMicros);
            heartbeats.start();
            Map<String, ShardCheckpoint> checkpoints = recovered.shardCheckpoints();
            List<ShardReaderConfig> readers = new ArrayList<>();
            for (ShardConfig s : config.shards()) {
                step = "find where shard " + s.name() + " starts";
                readers.add(readerConfig(s, checkpoints.containsKey(s.name()), budget.readerReadAhead()));
            }
            ShardSchemaReader shardSchemas = new ShardSchemaReader(config.shards(), config.naming(),
                    new SchemaDdl(config.binlog().flavor()));
            if (!writer.schemaHistory().seeded()) {
                step = "build the logical schema from the shards (SHOW CREATE TABLE)";
                writer.seedSchema(shardSchemas.read().schema());
            }
            step = "start the dump server on port " + config.dump().port();
            GlobalBinlogWriter w = writer;
            HeartbeatWriter beats = heartbeats;
            dump = new DumpServer(config.dump(), () -> w, liveVariables,
                    new io.tributary.daemon.config.ConfiguredShards(config.shards(), config.naming()),
                    new StreamProgress() {
                        @Override
                        public DurableCut cut() {
                            GlobalBinlogPipeline p = running;
                            return p == null ? null : p.durableCut();
                        }

                        @Override
                        public void nudge() {
                            beats.wake();
                        }
                    }).start();
            step = "start the shard readers";
            pipeline = new GlobalBinlogPipeline(readers, checkpoints, writer, buffer, config.naming(), config.xaMaxWait(),
                    RING_SIZE, budget.mergeRing());
            pipeline.delayListener(delays);
            pipeline.tableDefinitions(shardSchemas);
            // heartbeats at the interval only while the sorter holds something that waits for them, at once when
            // something starts to (HeartbeatWriter, "How often")
            GlobalBinlogPipeline p = pipeline;
            heartbeats.demand(p::heartbeatsNeeded);
            pipeline.onHeartbeatsNeeded(heartbeats::wake);
            pipeline.start();
            GlobalBinlogPipeline started = pipeline;
            running = started;
            backlog = new ShardBacklog(config.shards(), new ShardBacklog.Progress() {
                @Override
                public ShardPosition durableEnd(int shard) {
                    return started.durableEnd(shard);
                }

                @Override
                public long settledMillis(int shard) {
                    return started.settledMillis(shard);
                }
            }, System::currentTimeMillis).start();
            log.info("Tributary started: {} shards -> global binlog {} ({}), dump server on port {} (version {})",
                    config.shards().size(), config.binlog().dir(), config.binlog().flavor(), dump.port(),
                    TributaryApplication.version());
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            RuntimeStartException failure = new RuntimeStartException("cannot " + step + ": " + e.getMessage(), e);
            try {
                close();
            } catch (Exception suppressed) {
                failure.addSuppressed(suppressed);
            }
            throw failure;
        }
    }

    private List<HeartbeatWriter.Target> heartbeatTargets() {
        List<HeartbeatWriter.Target> targets = new ArrayList<>();
        for (ShardConfig s : config.shards()) {
            targets.add(new HeartbeatWriter.Target(s.name(), s.host() + ":" + s.port(), () -> ShardJdbc.connect(s)));
        }
        return targets;
    }

    private static ShardReaderConfig readerConfig(ShardConfig s, boolean checkpointed, long readAhead)
            throws java.sql.SQLException {
        ShardPosition start = checkpointed ? ShardPosition.at("(checkpoint)", ShardPosition.FIRST_EVENT)
                : ShardJdbc.resolve(s);
        if (!checkpointed) {
            log.info("shard {}: no checkpoint yet; starting at {} ({})", s.name(), start, s.start());
        }
        // the read-ahead buffer (Netty direct memory) is the reader's share of the memory budget
        return ShardReaderConfig.of(s.name(), s.host(), s.port(), s.user(), s.password(), s.readerServerId(), start)
                .withTls(s.tls(), null).withBuffer(10_000, readAhead);
    }

    public TributaryConfig config() {
        return config;
    }

    /** The global binlog writer (null before {@link #start}). */
    public synchronized GlobalBinlogWriter writer() {
        return writer;
    }

    public synchronized GlobalBinlogPipeline pipeline() {
        return pipeline;
    }

    public synchronized TransactionBuffer buffer() {
        return buffer;
    }

    public synchronized DumpServer dump() {
        return dump;
    }

    public synchronized HeartbeatWriter heartbeats() {
        return heartbeats;
    }

    /** How far behind the shards the daemon is (null before {@link #start}). */
    public synchronized ShardBacklog backlog() {
        return backlog;
    }

    /** Graceful shutdown, in the order the class comment gives; idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<Exception> failures = new ArrayList<>();
        stop("shard backlog poller", backlog, failures);
        running = null; // positions asked from now on get an error rather than wait for a stopped pipeline
        stop("shard readers and merge", pipeline, failures);
        stop("heartbeats", heartbeats, failures);
        stop("global binlog writer", writer, failures);
        stop("dump server", dump, failures);
        stop("transaction buffer", buffer, failures);
        stop("spill store", spill, failures);
        if (writer != null) {
            log.info("Tributary stopped: global binlog durable at {}", writer.durability().current());
        }
        if (!failures.isEmpty()) {
            RuntimeException e = new IllegalStateException("Tributary did not stop cleanly: " + failures.get(0), failures.get(0));
            failures.stream().skip(1).forEach(e::addSuppressed);
            throw e;
        }
    }

    private static void stop(String what, AutoCloseable c, List<Exception> failures) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            log.warn("stopping the {} failed: {}", what, e.toString());
            failures.add(e);
        }
    }
}
