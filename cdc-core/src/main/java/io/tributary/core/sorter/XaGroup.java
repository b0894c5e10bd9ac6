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
    record Branch(int shard, XaXid xid, int hash) {
        static Branch of(ShardUnit<?> unit) {
            return new Branch(unit.shard(), unit.xid(), 31 * unit.shard() + unit.xid().hashCode());
        }

        // the hash is kept: branches are looked up in maps at every emission while a catch-up holds hundreds
        @Override
        public boolean equals(Object o) {
            return o instanceof Branch b && b.hash == hash && b.shard == shard && b.xid.equals(xid);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public String toString() {
            return "Branch[shard=" + shard + ", xid=" + xid + "]";
        }
    }

    /**
     * A branch rolled back, kept with the use it belonged to until that use is finished: until then it tells
     * where the use ended on its shard and when its participants are known, and a restart must read it again.
     */
    static final class RolledBack<P> {
        final ShardUnit<P> prepare;
        final long preparedIn;
        final long preparedClock;
        final ShardUnit<P> rollback;
        /** Where the rollback stands in its shard's order, and its shard's clock just after it. */
        final SortKey at;
        final long clockAt;
        /** The first heartbeat its shard received after the rollback; -1 before. */
        long beatAfter = -1;
        /** The shard's clock when {@link #beatAfter} was read. */
        long clockAtBeat;

        RolledBack(ShardUnit<P> prepare, long preparedIn, long preparedClock, ShardUnit<P> rollback, SortKey at, long clockAt) {
            this.prepare = prepare;
            this.preparedIn = preparedIn;
            this.preparedClock = preparedClock;
            this.rollback = rollback;
            this.at = at;
            this.clockAt = clockAt;
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
    /** Its shard's clock ({@link Lane#clockMicros}) at each prepare. */
    final Map<Branch, Long> preparedAt = new HashMap<>();
    final Map<Branch, Entry<P>> commits = new LinkedHashMap<>();
    final Set<Branch> abandoned = new HashSet<>();
    /** Per shard, the position of the first commit or rollback of this use: a later prepare there is a new use. */
    final Map<Integer, Long> finishedAt = new HashMap<>();
    /** Its branches rolled back so far. */
    final List<RolledBack<P>> rolledBack = new ArrayList<>();
    long firstCommitWindow = -1;
    boolean participantsFixed;
    /** The smallest key among its commits and rollbacks (they are only ever added); null while there is none. */
    private SortKey firstFinish;
    /** The commit or the rollback at {@link #firstFinish} (the other null): what fixes the use is judged there. */
    private Entry<P> firstCommit;
    private RolledBack<P> firstRollback;
    /** Whether it has left the open uses (written, closed, or taken apart to be grouped again). */
    boolean gone;
    /** Where {@link XaUses} filed it among the open uses by first finish; null: not filed. */
    SortKey filedAs;
    /**
     * Where {@link XaUses} filed it by the lanes it waits on ({@link Shape}); null: not
     * filed that way.
     */
    Shape filedShape;
    /** The last {@link CycleBreaker#waitBoundBelow} walk that reached it (that walk's set of groups seen, unallocated). */
    long walkMark;
    /** {@link #ready}'s count of commits per lane, kept: it runs for every open use an emission is checked against. */
    private int[] perLane;

    /**
     * The count of prepared branches per shard over the open uses, kept by {@link XaUses} (this use adds and takes away
     * its own as they change; {@link XaUses} takes a use's away when it leaves the open uses).
     */
    private final int[] preparedOn;

    XaGroup(String gtrid, List<Lane<P>> lanes, int[] preparedOn) {
        this.gtrid = gtrid;
        this.lanes = lanes;
        this.preparedOn = preparedOn;
    }

    /**
     * Prepared branches neither committed nor given up, kept as they change ({@link #prepare}, {@link #commit},
     * {@link #unprepare}, {@link #abandon}): {@link #complete} runs for every open use an emission is checked against,
     * and scanning the branches with a map lookup each was a visible share of a catch-up's merge thread.
     */
    private int unfinished;

    private boolean unfinished(Branch b) {
        return prepared.containsKey(b) && !commits.containsKey(b) && !abandoned.contains(b);
    }

    void prepare(ShardUnit<P> unit, long window, long at) {
        Branch b = Branch.of(unit);
        boolean was = unfinished(b);
        if (prepared.put(b, unit) == null) {
            preparedOn[unit.shard()]++;
        }
        if (!was && unfinished(b)) {
            unfinished++;
        }
        preparedIn.put(b, window);
        preparedAt.put(b, at);
    }

    void commit(Branch branch, Entry<P> entry) {
        if (unfinished(branch)) {
            unfinished--;
        }
        commits.put(branch, entry);
        entry.group = this;
        if (finishedAt(entry.key())) {
            firstCommit = entry;
            firstRollback = null;
        }
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
        return firstFinish;
    }

    /**
     * What fixes this use, judged at its first commit or rollback {@code first} (on its shard, whose clock is
     * {@code laneClock}): 1 when a heartbeat followed it there within {@link #CLOCK_SKEW_MICROS} of the shard's clock
     * (the heartbeats fix it, as always), -1 when none did (a stretch without heartbeats: its commit timestamps fix
     * it), 0 while that is not known yet. Decided by the shard's binlog alone.
     */
    int fixedByHeartbeats(SortKey first, long laneClock) {
        // asked of every open use at each drain, nearly always at its first finish: kept, not looked for
        if (first == firstFinish && firstCommit != null) {
            return promptness(firstCommit.beatAfter, firstCommit.clockAtBeat, firstCommit.clockAt, laneClock);
        }
        if (first == firstFinish && firstRollback != null) {
            return promptness(firstRollback.beatAfter, firstRollback.clockAtBeat, firstRollback.clockAt, laneClock);
        }
        for (Entry<P> c : commits.values()) {
            if (c.key().equals(first)) {
                return promptness(c.beatAfter, c.clockAtBeat, c.clockAt, laneClock);
            }
        }
        for (RolledBack<P> r : rolledBack) {
            if (r.at.equals(first)) {
                return promptness(r.beatAfter, r.clockAtBeat, r.clockAt, laneClock);
            }
        }
        return 0;
    }

    /** The shard's clock just after the commit or rollback at {@code first}. */
    long clockAt(SortKey first) {
        if (first == firstFinish && firstCommit != null) {
            return firstCommit.clockAt;
        }
        if (first == firstFinish && firstRollback != null) {
            return firstRollback.clockAt;
        }
        for (Entry<P> c : commits.values()) {
            if (c.key().equals(first)) {
                return c.clockAt;
            }
        }
        for (RolledBack<P> r : rolledBack) {
            if (r.at.equals(first)) {
                return r.clockAt;
            }
        }
        throw new IllegalStateException("no commit or rollback at " + first);
    }

    private static int promptness(long beatAfter, long clockAtBeat, long clockAt, long laneClock) {
        long limit = settledTime(clockAt);
        if (beatAfter >= 0) {
            return clockAtBeat <= limit ? 1 : -1;
        }
        return laneClock > limit ? -1 : 0;
    }

    /** The clock up to which a use whose first commit or rollback came at clock {@code t} takes its branches. */
    static long settledTime(long t) {
        return t > Long.MAX_VALUE - CLOCK_SKEW_MICROS ? Long.MAX_VALUE : t + CLOCK_SKEW_MICROS;
    }

    void rolledBack(RolledBack<P> r) {
        rolledBack.add(r);
        if (finishedAt(r.at)) {
            firstCommit = null;
            firstRollback = r;
        }
        finished(r.rollback);
    }

    /** Whether {@code key} is the first finish now. */
    private boolean finishedAt(SortKey key) {
        if (firstFinish == null || key.compareTo(firstFinish) < 0) {
            firstFinish = key;
            return true;
        }
        return false;
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

    /** Takes a rolled-back branch's prepare out of the use; returns it. */
    ShardUnit<P> unprepare(Branch b) {
        if (unfinished(b)) {
            unfinished--;
        }
        ShardUnit<P> unit = prepared.remove(b);
        if (unit != null) {
            preparedOn[unit.shard()]--;
        }
        return unit;
    }

    /** Gives up waiting for branch {@code b}'s commit; false if it was given up already. */
    boolean abandon(Branch b) {
        if (unfinished(b)) {
            unfinished--;
        }
        return abandoned.add(b);
    }

    boolean complete() {
        assert unfinished == (int) prepared.keySet().stream().filter(this::unfinished).count()
                : gtrid + ": " + unfinished + " unfinished branches counted, prepared " + prepared.keySet() + " committed "
                        + commits.keySet() + " given up " + abandoned;
        return unfinished == 0;
    }

    /** Ready: participants known, every one committed (or given up), and its commits head their lanes. */
    boolean ready() {
        if (!participantsFixed || !complete()) {
            return false;
        }
        // per lane, its first n entries are this use's n commits there (an array, not a map, and the same array at
        // every call: this runs for every open use an emission is checked against)
        if (perLane == null) {
            perLane = new int[lanes.size()];
        } else {
            java.util.Arrays.fill(perLane, 0);
        }
        for (Entry<P> e : commits.values()) {
            perLane[e.unit().shard()]++;
        }
        for (int lane = 0; lane < perLane.length; lane++) {
            int k = 0;
            for (Entry<P> e : lanes.get(lane).queue) {
                if (k == perLane[lane]) {
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

    /**
     * The lanes a use waits on, as bits by shard index (shards 0 to 63): those of the branches it waits for
     * ({@link #waitsFor}), and of those among them whose commit is not read yet. Whether a use can still come before a
     * candidate depends, besides its own commits' keys, on these lanes' heads only.
     */
    record Shape(long waited, long missing) {
    }

    /** Its {@link Shape} now. */
    Shape shape() {
        long waited = 0;
        long missing = 0;
        for (Map.Entry<Branch, ShardUnit<P>> b : prepared.entrySet()) {
            if (waitsFor(b.getKey())) {
                long bit = 1L << b.getValue().shard();
                waited |= bit;
                if (!commits.containsKey(b.getKey())) {
                    missing |= bit;
                }
            }
        }
        return new Shape(waited, missing);
    }

    SortKey key() {
        return commits.values().stream().map(Entry::key).max(Comparator.naturalOrder()).orElseThrow();
    }

    List<Integer> shards() {
        return commits.values().stream().map(e -> e.unit().shard()).distinct().sorted().toList();
    }
}
