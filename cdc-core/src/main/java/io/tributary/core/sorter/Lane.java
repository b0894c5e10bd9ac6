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
        /** The shard's running (window, time) when {@link #beatAfter} was read: says whether the beat followed promptly. */
        long windowAtBeat;
        long timeAtBeat;

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
    }

    ShardCheckpoint.Clock clock() {
        return new ShardCheckpoint.Clock(lastHeartbeat, effWindow, effTime);
    }

    /**
     * Moves the running (window, time) maximum past a unit other than a heartbeat and returns its key (the place of
     * a transaction or commit in the order; for a prepare or rollback, where it stands in its shard's order).
     */
    SortKey advance(ShardUnit<?> unit) {
        long window = lastHeartbeat;
        long time = unit.commitTimeMicros();
        if (window < effWindow || (window == effWindow && time < effTime)) {
            window = effWindow;
            time = effTime;
        }
        effWindow = window;
        effTime = time;
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

    /** Orders two shards by how far they have read: last heartbeat, then running window and time. */
    static int progressCompare(Lane<?> a, Lane<?> b) {
        long aw = Math.max(a.lastHeartbeat, a.effWindow);
        long bw = Math.max(b.lastHeartbeat, b.effWindow);
        int c = Long.compare(aw, bw);
        if (c != 0) {
            return c;
        }
        long at = a.effWindow == aw ? a.effTime : Long.MIN_VALUE;
        long bt = b.effWindow == bw ? b.effTime : Long.MIN_VALUE;
        return Long.compare(at, bt);
    }

    /** Queues a transaction or XA commit at its key (from {@link #advance}); it is pending in the checkpoint until written. */
    Entry<P> enqueue(ShardUnit<P> unit, SortKey key, ShardCheckpoint.Clock before) {
        Entry<P> entry = new Entry<>(unit, key);
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
            c.windowAtBeat = effWindow;
            c.timeAtBeat = effTime;
        }
        commitsBeforeBeat.clear();
        for (XaGroup.RolledBack<P> r : rollbacksBeforeBeat) {
            r.beatAfter = heartbeat;
            r.windowAtBeat = effWindow;
            r.timeAtBeat = effTime;
        }
        rollbacksBeforeBeat.clear();
        if (firstHeartbeat == 0) {
            firstHeartbeat = heartbeat;
        }
        return true;
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
