package io.tributary.storage.binlog;

import java.time.Clock;
import java.util.EnumMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Health of the global binlog, DOWN while writing or syncing fails. Each part (writer, syncer) reports
 * for itself, so one recovering does not hide the other still failing. Thread-safe.
 */
final class BinlogHealthState {
    private static final Logger log = LoggerFactory.getLogger(BinlogHealthState.class);

    enum Part { WRITE, SYNC }

    private final Clock clock;
    private final Map<Part, String> failures = new EnumMap<>(Part.class);
    private volatile BinlogHealth health;

    BinlogHealthState(Clock clock) {
        this.clock = clock;
        this.health = BinlogHealth.up(clock.instant());
    }

    BinlogHealth current() {
        return health;
    }

    synchronized void down(Part part, String detail) {
        boolean wasUp = failures.isEmpty();
        String previous = failures.put(part, detail);
        if (!detail.equals(previous)) {
            log.warn("global binlog DOWN ({}): {}", part, detail);
        }
        health = new BinlogHealth(false, String.join("; ", failures.values()), wasUp ? clock.instant() : health.since());
    }

    synchronized void up(Part part) {
        if (failures.remove(part) == null) {
            return;
        }
        if (failures.isEmpty()) {
            log.info("global binlog UP again ({} recovered)", part);
            health = BinlogHealth.up(clock.instant());
        } else {
            health = new BinlogHealth(false, String.join("; ", failures.values()), health.since());
        }
    }
}
