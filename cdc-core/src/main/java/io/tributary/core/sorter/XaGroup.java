package io.tributary.core.sorter;

import io.tributary.core.event.XaXid;
import io.tributary.core.sorter.Lane.Entry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One use of a gtrid: the branches of one global transaction seen so far. A gtrid may be used again once
 * its previous use has finished on a server, so one gtrid can have several uses open at a time. Grouped by
 * {@link XaUses}; its commits wait in their shards' {@link Lane}s.
 *
 * @param <P> payload type of the units
 */
final class XaGroup<P> {

    /**
     * One XA branch: its shard and its xid. The xid alone does not name a branch: each shard is its own
     * server, so {@code XA START 'tx1'} (default empty bqual) on two shards gives two branches with one xid.
     */
    record Branch(int shard, XaXid xid) {
        static Branch of(ShardUnit<?> unit) {
            return new Branch(unit.shard(), unit.xid());
        }
    }

    /**
     * A branch rolled back, kept with the use it belonged to until that use is finished: until then it tells
     * where the use ended on its shard and when its participants are known, and a restart must read it again.
     */
    static final class RolledBack<P> {
        final ShardUnit<P> prepare;
        final long preparedIn;
        final SortKey preparedAt;
        final ShardUnit<P> rollback;
        /** Where the rollback stands in its shard's order. */
        final SortKey at;
        /** The first heartbeat its shard received after the rollback; -1 before. */
        long beatAfter = -1;
        /** The shard's running (window, time) when {@link #beatAfter} was read. */
        long windowAtBeat;
        long timeAtBeat;

        RolledBack(ShardUnit<P> prepare, long preparedIn, SortKey preparedAt, ShardUnit<P> rollback, SortKey at) {
            this.prepare = prepare;
            this.preparedIn = preparedIn;
            this.preparedAt = preparedAt;
            this.rollback = rollback;
            this.at = at;
        }
    }

    /**
     * How far the shards' commit clocks may disagree, in microseconds, where a use is fixed by commit timestamps (a
     * stretch without heartbeats): its branches are those prepared up to this long after its first commit or
     * rollback, read once every shard has passed that point.
     */
    static final long CLOCK_SKEW_MICROS = 1_000_000;

    final String gtrid;
    /** The sorter's lanes, in shard index order: where this use's commits wait. */
    private final List<Lane<P>> lanes;
    final Map<Branch, ShardUnit<P>> prepared = new LinkedHashMap<>();
    /** The heartbeat window of each prepare on its shard. */
    final Map<Branch, Long> preparedIn = new HashMap<>();
    /** Where each prepare stands in its shard's order (its running window and time). */
    final Map<Branch, SortKey> preparedAt = new HashMap<>();
    final Map<Branch, Entry<P>> commits = new LinkedHashMap<>();
    final Set<Branch> abandoned = new HashSet<>();
    /** Per shard, the position of the first commit or rollback of this use: a later prepare there is a new use. */
    final Map<Integer, Long> finishedAt = new HashMap<>();
    /** Its branches rolled back so far. */
    final List<RolledBack<P>> rolledBack = new ArrayList<>();
    long firstCommitWindow = -1;
    boolean participantsFixed;

    XaGroup(String gtrid, List<Lane<P>> lanes) {
        this.gtrid = gtrid;
        this.lanes = lanes;
    }

    void prepare(ShardUnit<P> unit, long window, SortKey at) {
        prepared.put(Branch.of(unit), unit);
        preparedIn.put(Branch.of(unit), window);
        preparedAt.put(Branch.of(unit), at);
    }

    void commit(Branch branch, Entry<P> entry) {
        commits.put(branch, entry);
        entry.group = this;
        finished(entry.unit());
        // the earliest commit's window, not the first read: shards arrive in any interleaving
        if (firstCommitWindow < 0 || entry.key().window() < firstCommitWindow) {
            firstCommitWindow = entry.key().window();
        }
    }

    /**
     * The first heartbeat a shard received after a commit or rollback of this use; -1 while there is none.
     * A use whose branches all rolled back stays open until then, so that its branches still to be read
     * are not taken for a new use.
     */
    long fixAfter() {
        long after = -1;
        for (Entry<P> c : commits.values()) {
            if (c.beatAfter >= 0 && (after < 0 || c.beatAfter < after)) {
                after = c.beatAfter;
            }
        }
        for (RolledBack<P> r : rolledBack) {
            if (r.beatAfter >= 0 && (after < 0 || r.beatAfter < after)) {
                after = r.beatAfter;
            }
        }
        return after;
    }

    /** The smallest key among this use's commits and rollbacks read so far; null while there is none. */
    SortKey firstFinish() {
        SortKey first = null;
        for (Entry<P> c : commits.values()) {
            if (first == null || c.key().compareTo(first) < 0) {
                first = c.key();
            }
        }
        for (RolledBack<P> r : rolledBack) {
            if (first == null || r.at.compareTo(first) < 0) {
                first = r.at;
            }
        }
        return first;
    }

    /**
     * Whether a heartbeat followed the commit or rollback at {@code first} on its shard before any unit committed
     * more than {@link #CLOCK_SKEW_MICROS} after it: then the heartbeats fix this use, else its commit timestamps.
     */
    boolean beatFollowsPromptly(SortKey first) {
        for (Entry<P> c : commits.values()) {
            if (c.key().equals(first)) {
                return prompt(c.beatAfter, c.windowAtBeat, c.timeAtBeat, first);
            }
        }
        for (RolledBack<P> r : rolledBack) {
            if (r.at.equals(first)) {
                return prompt(r.beatAfter, r.windowAtBeat, r.timeAtBeat, first);
            }
        }
        return false;
    }

    private static boolean prompt(long beatAfter, long windowAtBeat, long timeAtBeat, SortKey first) {
        return beatAfter >= 0 && (windowAtBeat < first.window()
                || (windowAtBeat == first.window() && timeAtBeat <= settledTime(first)));
    }

    /** The commit time up to which a use whose first commit or rollback is at {@code first} takes its branches. */
    static long settledTime(SortKey first) {
        long t = first.timeMicros();
        return t > Long.MAX_VALUE - CLOCK_SKEW_MICROS ? Long.MAX_VALUE : t + CLOCK_SKEW_MICROS;
    }

    void rolledBack(RolledBack<P> r) {
        rolledBack.add(r);
        finished(r.rollback);
    }

    void finished(ShardUnit<P> commitOrRollback) {
        finishedAt.merge(commitOrRollback.shard(), commitOrRollback.sequence(), Math::min);
    }

    /**
     * Whether branch {@code b} is one this use waits for: not given up, and not prepared in a window after
     * the earliest commit read, which until the participants are fixed may be a new use of the gtrid.
     * What may come before this use is judged by these branches only: a lower bound.
     */
    boolean waitsFor(Branch b) {
        return !abandoned.contains(b)
                && (participantsFixed || firstCommitWindow < 0 || preparedIn.get(b) <= firstCommitWindow);
    }

    /** Whether {@code prepare} may still be a branch of this use: no commit or rollback of it precedes it on its shard. */
    boolean takes(ShardUnit<P> prepare) {
        return !participantsFixed && finishedAt.getOrDefault(prepare.shard(), Long.MAX_VALUE) > prepare.sequence();
    }

    boolean complete() {
        for (Branch x : prepared.keySet()) {
            if (!commits.containsKey(x) && !abandoned.contains(x)) {
                return false;
            }
        }
        return true;
    }

    /** Ready: participants known, every one committed (or given up), and its commits head their lanes. */
    boolean ready() {
        if (!participantsFixed || !complete()) {
            return false;
        }
        Map<Integer, Integer> perLane = new HashMap<>();
        for (Entry<P> e : commits.values()) {
            perLane.merge(e.unit().shard(), 1, Integer::sum);
        }
        for (Map.Entry<Integer, Integer> lane : perLane.entrySet()) {
            int k = 0;
            for (Entry<P> e : lanes.get(lane.getKey()).queue) {
                if (k == lane.getValue()) {
                    break;
                }
                if (!e.commitOf(this)) {
                    return false;
                }
                k++;
            }
        }
        return true;
    }

    SortKey key() {
        return commits.values().stream().map(Entry::key).max(Comparator.naturalOrder()).orElseThrow();
    }

    List<Integer> shards() {
        return commits.values().stream().map(e -> e.unit().shard()).distinct().sorted().toList();
    }
}
