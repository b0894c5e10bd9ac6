package io.tributary.daemon.config;

import io.tributary.core.naming.LogicalNames;
import io.tributary.daemon.dump.DumpServerConfig;
import io.tributary.storage.binlog.BinlogConfig;
import io.tributary.storage.buffer.PersistSettings;
import java.time.Duration;
import java.util.List;

/**
 * The whole daemon configuration after validation: what {@code application.yml} (plus the overrides file
 * and the environment) says, every value checked. Immutable; a live edit makes a new one.
 *
 * @param shards           the shards, in index order (at least one)
 * @param heartbeatInterval {@code cdc.heartbeat.interval}: how often the heartbeat row is written while something
 *                         waits for heartbeats (default 100 ms)
 * @param heartbeatIdleInterval {@code cdc.heartbeat.idleInterval}: how often while nothing does (default 1 s)
 * @param xaMaxWait        {@code cdc.xa.maxWait}: how long committed XA branches wait for a missing one (60 s)
 * @param statusInterval   {@code cdc.status.interval}: period of the status line in the log (10 s)
 * @param persist          the {@code storage.*} settings
 * @param binlog           the {@code binlog.*} settings
 * @param naming           {@code cdc.naming.*}: physical to logical database and table names
 * @param dump             the {@code dump.*} settings, with {@code binlog.flavor} and {@code binlog.server.id};
 *                         start the server with {@code new DumpServer(dump, writerSupplier, liveConfig)}
 */
public record TributaryConfig(List<ShardConfig> shards, Duration heartbeatInterval, Duration heartbeatIdleInterval,
        Duration xaMaxWait,
        Duration statusInterval, PersistSettings persist, BinlogConfig binlog, LogicalNames naming,
        DumpServerConfig dump) {

    public TributaryConfig {
        shards = List.copyOf(shards);
    }

    /** {@code dump.port}: where replicas and CDC clients connect (3399). */
    public int dumpPort() {
        return dump.port();
    }
}
