package io.tributary.daemon.runtime;

import io.tributary.core.reader.ShardReader;
import io.tributary.daemon.admin.LiveConfig;
import io.tributary.storage.binlog.BinlogHealth;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.storage.pipeline.GlobalBinlogPipeline;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;

/**
 * What {@code /actuator/health} shows: each shard reader ({@code shards}), the global binlog writer
 * ({@code globalBinlog}), the disks it writes to ({@code disk}) and how far behind the shards it is
 * ({@code catchUp}).
 */
final class RuntimeHealth {

    /** Below this much free space the disk is reported DOWN before the writer hits it. */
    static final long MIN_FREE_BYTES = 64L << 20;

    private RuntimeHealth() {
    }

    /** UP while every reader streams; DOWN naming each shard that does not (connecting, backing off, failed). */
    static final class Shards implements HealthIndicator {
        private final TributaryRuntime runtime;

        Shards(TributaryRuntime runtime) {
            this.runtime = runtime;
        }

        @Override
        public Health health() {
            GlobalBinlogPipeline p = runtime.pipeline();
            if (p == null) {
                return Health.unknown().withDetail("reason", "not started").build();
            }
            boolean up = p.failure() == null;
            Map<String, Object> details = new LinkedHashMap<>();
            for (int i = 0; i < p.shardCount(); i++) {
                ShardReader.State state = p.readerState(i);
                up &= state == ShardReader.State.STREAMING;
                details.put(p.shardName(i), Map.of("state", state.name(), "position", String.valueOf(p.readerPosition(i)),
                        "reconnects", Math.max(0, p.readerConnections(i) - 1)));
            }
            if (p.failure() != null) {
                details.put("failure", p.failure().toString());
            }
            return (up ? Health.up() : Health.down()).withDetails(details).build();
        }
    }

    /** The writer's own health: DOWN while it cannot write or sync (full disk), with the reason. */
    static final class GlobalBinlog implements HealthIndicator {
        private final TributaryRuntime runtime;

        GlobalBinlog(TributaryRuntime runtime) {
            this.runtime = runtime;
        }

        @Override
        public Health health() {
            GlobalBinlogWriter w = runtime.writer();
            if (w == null) {
                return Health.unknown().withDetail("reason", "not started").build();
            }
            BinlogHealth h = w.health();
            return (h.up() ? Health.up() : Health.down()).withDetail("detail", h.detail())
                    .withDetail("since", String.valueOf(h.since()))
                    .withDetail("written", w.writtenPosition().toString())
                    .withDetail("durable", w.durability().current().toString())
                    .withDetail("lastSequence", w.lastSequence()).build();
        }
    }

    /**
     * How far behind the shards the daemon is ({@link ShardBacklog}): {@link #CATCHING_UP} while any shard is more
     * than {@link ShardBacklog#CATCHING_UP_MILLIS} behind with bytes left to read, else UP; per shard its bytes and
     * seconds behind and the estimated time to catch up. CATCHING_UP ranks between UP and DOWN
     * ({@code management.endpoint.health.status.order}) and answers HTTP 200: a daemon catching up serves what it
     * has; a shard it cannot read makes the {@code shards} component DOWN.
     */
    static final class CatchUp implements HealthIndicator {
        static final Status CATCHING_UP = new Status("CATCHING_UP", "behind the shards, reading their backlog");

        private final TributaryRuntime runtime;

        CatchUp(TributaryRuntime runtime) {
            this.runtime = runtime;
        }

        @Override
        public Health health() {
            ShardBacklog backlog = runtime.backlog();
            if (backlog == null) {
                return Health.unknown().withDetail("reason", "not started").build();
            }
            Map<String, Object> details = new LinkedHashMap<>();
            for (ShardBacklog.Behind b : backlog.current()) {
                Map<String, Object> shard = new LinkedHashMap<>();
                shard.put("catchingUp", b.catchingUp());
                shard.put("bytesBehind", b.bytes() < 0 ? "unknown" : b.bytes());
                shard.put("secondsBehind", Double.isNaN(b.seconds()) ? "unknown" : b.seconds());
                shard.put("etaSeconds", Double.isNaN(b.etaSeconds()) ? "unknown" : Math.round(b.etaSeconds()));
                if (b.error() != null) {
                    shard.put("error", b.error());
                }
                details.put(b.shard(), shard);
            }
            double eta = backlog.etaSeconds();
            if (backlog.catchingUp()) {
                details.put("etaSeconds", Double.isNaN(eta) ? "unknown" : Math.round(eta));
            }
            return Health.status(backlog.catchingUp() ? CATCHING_UP : Status.UP).withDetails(details).build();
        }
    }

    /** Free space where the global binlog and the spill store live. */
    static final class Disk implements HealthIndicator {
        private final TributaryRuntime runtime;
        private final LiveConfig live;

        Disk(TributaryRuntime runtime, LiveConfig live) {
            this.runtime = runtime;
            this.live = live;
        }

        @Override
        public Health health() {
            Map<String, Object> details = new LinkedHashMap<>();
            boolean up = true;
            Path[] dirs = {runtime.config().binlog().dir(), live.persist().current().path()};
            String[] names = {"binlog", "spill"};
            for (int i = 0; i < dirs.length; i++) {
                try {
                    Path d = dirs[i].toAbsolutePath();
                    long free = Files.getFileStore(Files.exists(d) ? d : d.getRoot()).getUsableSpace();
                    up &= free >= MIN_FREE_BYTES;
                    details.put(names[i], Map.of("path", d.toString(), "free", free));
                } catch (IOException e) {
                    up = false;
                    details.put(names[i], Map.of("path", dirs[i].toString(), "error", e.toString()));
                }
            }
            GlobalBinlogWriter w = runtime.writer();
            if (w != null && !w.health().up()) {
                up = false;
                details.put("writer", w.health().detail());
            }
            details.put("minFree", MIN_FREE_BYTES);
            return (up ? Health.up() : Health.down()).withDetails(details).build();
        }
    }
}
