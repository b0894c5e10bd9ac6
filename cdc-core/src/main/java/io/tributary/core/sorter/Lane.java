package io.tributary.core.sorter;

import io.tributary.core.position.ShardCheckpoint;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One shard's place in the global order: its queue of transactions and XA commits in binlog order, each with its
 * {@link SortKey}, its last heartbeat, the running (window, time) maximum that keys its units, and its
 * {@link CheckpointLedger}. Owned by the {@link GlobalSorter}; not thread-safe.
 *
 * @param <P> payload type of the units
 */
final class Lane<P> {

    /**
     * A queued TRANSACTION or XA_COMMIT with its key; a commit also knows the use of its gtrid it commits and the
     * first heartbeat its shard received after it (-1 before).
     */
    static final class Entry<P> {
        private final ShardUnit<P> unit;
        private final SortKey key;
        XaGroup<P> group;
        long beatAfter = -1;
        /** The shard's clock ({@link Lane#clockMicros}) just after this unit, and when {@link #beatAfter} was read. */
        long clockAt;
        long clockAtBeat;

        Entry(ShardUnit<P> unit, SortKey key) {
            this.unit = unit;
            this.key = key;
        }

        ShardUnit<P> unit() {
            return unit;
        }

        SortKey key() {
            return key;
        }

        boolean commitOf(XaGroup<P> g) {
            return group == g;
        }
    }

    final int shard;
    final ArrayDeque<Entry<P>> queue = new ArrayDeque<>();
    final CheckpointLedger ledger;
    final Set<String> skip;
    long lastHeartbeat;
    long firstHeartbeat;
    long effWindow;
    long effTime;
    long lastSequence = Long.MIN_VALUE;
    /**
     * The shard's clock: the latest commit time of any unit read and heartbeat value (ms, as microseconds), never
     * going back. What fixes an XA use in a stretch without heartbeats (see {@link XaUses}); restarted from a
     * checkpoint's clock as the later of its heartbeat and time.
     */
    long clockMicros;
    /** XA commits read since this shard's last heartbeat. */
    final List<Entry<P>> commitsBeforeBeat = new ArrayList<>();
    /** XA rollbacks read since this shard's last heartbeat. */
    final List<XaGroup.RolledBack<P>> rollbacksBeforeBeat = new ArrayList<>();

    Lane(int shard, ShardCheckpoint start) {
        this.shard = shard;
        this.ledger = new CheckpointLedger(start);
        this.skip = new HashSet<>(start.writtenAfter());
        this.lastHeartbeat = start.clock().heartbeat();
        this.firstHeartbeat = start.clock().heartbeat();
        this.effWindow = start.clock().window();
        this.effTime = start.clock().timeMicros();
        this.clockMicros = Math.max(micros(start.clock().heartbeat()), start.clock().timeMicros());
    }

    /**
     * How long after a heartbeat (commit time against the heartbeat's value, both the epoch in milliseconds) a unit
     * is taken to be past it although its shard has read no later one: ten seconds, ten times the default idle
     * heartbeat interval. Live, every shard gets a heartbeat at least every {@code cdc.heartbeat.idleInterval}; a unit
     * committed this long after its shard's last one is in history written while no daemon beat (an outage, or before
     * the first start), or on a shard whose older heartbeats the others no longer hold.
     */
    static final long STALE_WINDOW_MS = 10_000;

    /**
     * The window a unit committed at {@code timeMicros} is in at least: the heartbeat values up to
     * {@link #STALE_WINDOW_MS} before it (0 for times before that). So in a stretch without heartbeats the windows of
     * all shards follow their commit times, even where one shard's binlog still holds heartbeats the others' do not
     * (their windows would otherwise never meet, and nothing of the further one could be written until the next
     * heartbeat reached them all).
     */
    static long staleAfter(long timeMicros) {
        return Math.max(0, timeMicros / 1000 - STALE_WINDOW_MS);
    }

    /** A heartbeat value (milliseconds) in microseconds. */
    static long micros(long heartbeat) {
        return heartbeat > Long.MAX_VALUE / 1000 ? Long.MAX_VALUE : heartbeat * 1000;
    }

    ShardCheckpoint.Clock clock() {
        return new ShardCheckpoint.Clock(lastHeartbeat, effWindow, effTime);
    }

    /**
     * Moves the running (window, time) maximum past a unit other than a heartbeat and returns its key (the place of
     * a transaction or commit in the order; for a prepare or rollback, where it stands in its shard's order).
     */
    SortKey advance(ShardUnit<?> unit) {
        long time = unit.commitTimeMicros();
        long window = Math.max(lastHeartbeat, staleAfter(time));
        if (window < effWindow || (window == effWindow && time < effTime)) {
            window = effWindow;
            time = effTime;
        }
        effWindow = window;
        effTime = time;
        clockMicros = Math.max(clockMicros, unit.commitTimeMicros());
        return new SortKey(window, time, shard, unit.sequence());
    }

    /**
     * Whether every unit this shard can still produce has a key above {@code k}: the shard has passed a heartbeat
     * after {@code k}'s window, or read a unit whose key is {@code k} or above (the next one follows it). A shard
     * read to the end of its binlog passes nothing more until its next heartbeat or event: what it has read decides,
     * never when.
     */
    boolean readPast(SortKey k) {
        if (lastHeartbeat > k.window()) {
            return true;
        }
        int c = Long.compare(effWindow, k.window());
        if (c == 0) {
            c = Long.compare(effTime, k.timeMicros());
        }
        if (c == 0) {
            c = Integer.compare(shard, k.shard());
        }
        return c != 0 ? c > 0 : lastSequence >= k.sequence();
    }

    /** Queues a transaction or XA commit at its key (from {@link #advance}); it is pending in the checkpoint until written. */
    Entry<P> enqueue(ShardUnit<P> unit, SortKey key, ShardCheckpoint.Clock before) {
        Entry<P> entry = new Entry<>(unit, key);
        entry.clockAt = clockMicros;
        queue.addLast(entry);
        ledger.pending(unit, before);
        return entry;
    }

    /**
     * A heartbeat moves the shard into its next window and tells the XA commits and rollbacks read since the last
     * one which heartbeat followed them. Returns false (and changes nothing) when it does not increase.
     */
    boolean heartbeat(long heartbeat) {
        if (heartbeat <= lastHeartbeat) {
            return false;
        }
        lastHeartbeat = heartbeat;
        for (Entry<P> c : commitsBeforeBeat) {
            c.beatAfter = heartbeat;
            c.clockAtBeat = clockMicros;
        }
        commitsBeforeBeat.clear();
        for (XaGroup.RolledBack<P> r : rollbacksBeforeBeat) {
            r.beatAfter = heartbeat;
            r.clockAtBeat = clockMicros;
        }
        rollbacksBeforeBeat.clear();
        clockMicros = Math.max(clockMicros, micros(heartbeat));
        if (firstHeartbeat == 0) {
            firstHeartbeat = heartbeat;
        }
        return true;
    }

    /**
     * The least key a commit still missing on this lane can have: the head's key, or with nothing queued, the floor of
     * the next unit's (the current window, any time).
     */
    SortKey headOrNext() {
        Entry<P> head = queue.peekFirst();
        return head != null ? head.key() : new SortKey(Math.max(lastHeartbeat, effWindow), Long.MIN_VALUE, shard, Long.MIN_VALUE);
    }

    /** Whether {@code commit} is in the run of {@code g}'s commits at the head of this lane. */
    boolean inHeadRun(XaGroup<P> g, Entry<P> commit) {
        for (Entry<P> e : queue) {
            if (e == commit) {
                return true;
            }
            if (!e.commitOf(g)) {
                return false;
            }
        }
        return false;
    }
}
