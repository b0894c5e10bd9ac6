package io.tributary.core.sorter;

import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stretches of the shard binlogs that no heartbeat cuts (history written while the daemon was down or before
 * its first start): the {@link GlobalSorter} orders them by commit timestamps, and this says so, once per stretch
 * (INFO), where it began and, once a heartbeat closes it, where it ended. A heartbeat window counts as a stretch
 * once a transaction ordered in it by timestamps committed more than {@value #STRETCH_AFTER_MICROS} microseconds
 * after the last heartbeat every shard has passed (heartbeat values are the writer's clock in milliseconds; before any heartbeat, after
 * the first transaction ordered by timestamps); between heartbeats written every 100 ms it never does. Part of the {@link GlobalSorter}; not
 * thread-safe.
 */
final class Stretches {

    /** The sorter's logger: what it logs is the sorter's. */
    private static final Logger log = LoggerFactory.getLogger(GlobalSorter.class);

    /** How far past its heartbeat a window must reach, in commit time, to count as a stretch without heartbeats. */
    static final long STRETCH_AFTER_MICROS = 1_000_000;

    private final List<String> shards;
    /** The last heartbeat every shard had passed when the stretch being ordered began (0: none yet), or -1. */
    private long window = -1;
    private ShardUnit<?> first;
    private SortKey firstKey;
    private ShardUnit<?> last;
    private SortKey lastKey;
    private long count;
    private boolean said;

    /** @param shards the shards' names, in shard index order */
    Stretches(List<String> shards) {
        this.shards = List.copyOf(shards);
    }

    /** Every shard has passed heartbeat {@code closed}: a stretch in an earlier window has ended. */
    void closed(long closed) {
        if (window >= 0 && closed > window) {
            end("heartbeat " + closed + " closes it");
        }
    }

    /** A transaction (or an XA transaction's commit) is emitted at {@code key}. */
    void ordered(SortKey key, long closed, ShardUnit<?> unit) {
        if (key.window() < closed) {
            return; // a heartbeat cut orders it
        }
        // a stretch lasts while the heartbeat every shard has passed stays the same: the windows of the keys in it
        // follow the commit times (Lane.staleAfter), so they are not what tells one stretch from the next
        if (window != closed) {
            if (window >= 0) {
                end("a later window begins");
            }
            window = closed;
            first = unit;
            firstKey = key;
            count = 0;
            said = false;
        }
        count++;
        last = unit;
        lastKey = key;
        // before any heartbeat, from the first transaction ordered by timestamps
        long since = window == 0 ? firstKey.timeMicros() : window * 1000;
        if (!said && key.timeMicros() - since > STRETCH_AFTER_MICROS) {
            said = true;
            log.info("{}: no heartbeat cuts the shard binlogs here; ordering by commit timestamps (monotonic per shard,"
                    + " ties by shard index and position; across shards only as good as their clocks) from {}",
                    window == 0 ? "before the first heartbeat" : "after heartbeat " + window, where(first, firstKey));
        }
    }

    private void end(String why) {
        if (said) {
            log.info("stretch ordered by commit timestamps ended ({}): {} transactions, from {} to {}", why, count,
                    where(first, firstKey), where(last, lastKey));
        }
        window = -1;
        said = false;
    }

    private String where(ShardUnit<?> unit, SortKey key) {
        long t = key.timeMicros();
        return "shard " + shards.get(unit.shard()) + " " + unit.key() + " at " + unit.start() + " (committed "
                + Instant.ofEpochSecond(Math.floorDiv(t, 1_000_000), Math.floorMod(t, 1_000_000) * 1000L) + ")";
    }
}
