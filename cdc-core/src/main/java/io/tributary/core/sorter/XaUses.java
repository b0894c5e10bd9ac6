package io.tributary.core.sorter;

import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.sorter.Lane.Entry;
import io.tributary.core.sorter.XaGroup.Branch;
import io.tributary.core.sorter.XaGroup.RolledBack;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The open uses of gtrids, oldest first: groups XA branches into uses as they are read, drops rolled-back
 * branches, fixes each use's participants once the heartbeat after next of its first commit or rollback has
 * closed (grouping its gtrid's open uses again from positions and windows alone), and gives up branches still
 * uncommitted {@code xaMaxWait} after the first commit (see {@link GlobalSorter}, "XA" and "A gtrid used again").
 * Part of the {@link GlobalSorter}; not thread-safe.
 *
 * @param <P> payload type of the units
 */
final class XaUses<P> {

    /** The sorter's logger: what it logs is the sorter's, whichever part finds it. */
    private static final Logger log = LoggerFactory.getLogger(GlobalSorter.class);

    /** A branch of an open use, taken out to be grouped again: prepared, maybe committed, or rolled back. */
    private static final class Part<P> {
        private final ShardUnit<P> prepare;
        private final long window;
        private final long at;
        private final Entry<P> commit;
        private final RolledBack<P> rolledBack;

        Part(ShardUnit<P> prepare, long window, long at, Entry<P> commit, RolledBack<P> rolledBack) {
            this.prepare = prepare;
            this.window = window;
            this.at = at;
            this.commit = commit;
            this.rolledBack = rolledBack;
        }

        ShardUnit<P> prepare() {
            return prepare;
        }

        long window() {
            return window;
        }

        long at() {
            return at;
        }

        void addTo(XaGroup<P> use) {
            if (rolledBack != null) {
                use.rolledBack(rolledBack);
                return;
            }
            use.prepare(prepare, window, at);
            if (commit != null) {
                use.commit(Branch.of(prepare), commit);
            }
        }
    }

    /** How many fixed uses {@link #recent} remembers: enough to see an application that recycles its gtrids. */
    static final int RECENT_USES = 4096;

    private final List<Lane<P>> lanes;
    private final long xaMaxWaitMs;
    /** Open uses of gtrids, oldest first. */
    private final List<XaGroup<P>> groups = new ArrayList<>();
    /**
     * The same uses by gtrid, each list in the order of {@link #groups}: a catch-up holds hundreds of uses open, and
     * the branches read look for the uses of their own gtrid only.
     */
    private final Map<String, List<XaGroup<P>>> byGtrid = new HashMap<>();
    /**
     * The open uses with a commit or rollback, by the first of them ({@link XaGroup#firstFinish}; no two share one):
     * what the sorter's admission check looks at is the uses that finish before its candidate.
     */
    private final java.util.TreeMap<SortKey, XaGroup<P>> byFirstFinish = new java.util.TreeMap<>();
    /**
     * The same uses again, by the lanes they wait on ({@link XaGroup.Shape}) and then by first finish: a use can come
     * before a candidate only if every lane it waits on lets it (see {@link GlobalSorter#admitted}), and in a catch-up
     * that waits for one shard nearly all open uses wait on a lane that does not. Kept while the shards fit in the bits
     * of a long (up to 64); else the admission check walks {@link #byFirstFinish}.
     */
    private final Map<XaGroup.Shape, java.util.TreeMap<SortKey, XaGroup<P>>> byShape = new HashMap<>();
    private final boolean shaped;
    /** Prepared branches of the open uses, per shard (see {@link #preparedOn(int)}). */
    private final int[] preparedOn;
    /**
     * The gtrids of the last {@link #RECENT_USES} uses fixed, each with the shards whose branches its use took
     * although prepared in the heartbeat window after its first commit (empty: none). Whether a gtrid is used more
     * than once is what makes such a branch ambiguous (see {@link #fixEarliestUse}).
     */
    private final Map<String, List<Integer>> recent = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, List<Integer>> eldest) {
            return size() > RECENT_USES;
        }
    };

    /**
     * @param lanes       the sorter's lanes, in shard index order
     * @param xaMaxWaitMs how long (in heartbeat time) committed XA branches wait for a missing branch
     */
    XaUses(List<Lane<P>> lanes, long xaMaxWaitMs) {
        this.lanes = lanes;
        this.xaMaxWaitMs = xaMaxWaitMs;
        this.shaped = lanes.size() <= Long.SIZE;
        this.preparedOn = new int[lanes.size()];
    }

    /**
     * The prepared branches on {@code shard} in the open uses: kept as they change, since the merge stage asks at every
     * drain whether anything of a shard waits, and a catch-up holds thousands of uses open.
     */
    int preparedOn(int shard) {
        return preparedOn[shard];
    }

    /** Whether {@link #preparedOn} agrees with the open uses (for assertions). */
    boolean preparedCountsCurrent() {
        int[] counted = new int[preparedOn.length];
        for (XaGroup<P> g : groups) {
            for (ShardUnit<P> u : g.prepared.values()) {
                counted[u.shard()]++;
            }
        }
        return java.util.Arrays.equals(counted, preparedOn);
    }

    /** A use leaves the open uses: its prepared branches no longer count. */
    private void forget(XaGroup<P> g) {
        g.gone = true;
        for (ShardUnit<P> u : g.prepared.values()) {
            preparedOn[u.shard()]--;
        }
    }

    /** The open uses, oldest first; the sorter's own list, not a copy (read it, do not change it). */
    List<XaGroup<P>> open() {
        return groups;
    }

    boolean isEmpty() {
        return groups.isEmpty();
    }

    /** A prepared branch joins its use (see {@link #useTaking}); it is pending in its shard's checkpoint. */
    void prepare(Lane<P> lane, ShardUnit<P> unit, ShardCheckpoint.Clock before) {
        XaGroup<P> use = useTaking(unit);
        use.prepare(unit, lane.lastHeartbeat, lane.clockMicros);
        index(use);
        lane.ledger.pending(unit, before);
    }

    /** A commit is queued on its lane, as its branch's place in the shard's order, and joins its use. */
    void commit(Lane<P> lane, ShardUnit<P> unit, SortKey key, ShardCheckpoint.Clock before) {
        Branch branch = Branch.of(unit);
        XaGroup<P> group = useWaitingFor(branch, unit.gtrid());
        if (group == null) {
            log.warn("shard {}: XA COMMIT {} of a branch whose prepare was not read (it precedes the start position);"
                    + " nothing to write", unit.shard(), unit.xid().text());
            lane.ledger.consumed(unit, before);
            return;
        }
        Entry<P> entry = lane.enqueue(unit, key, before);
        group.commit(branch, entry);
        index(group);
        lane.commitsBeforeBeat.add(entry);
    }

    /** A rolled-back branch leaves the prepared branches of its use; the use is closed once fixed with none left. */
    void rollback(Lane<P> lane, ShardUnit<P> unit, SortKey at, ShardCheckpoint.Clock before) {
        Branch branch = Branch.of(unit);
        XaGroup<P> group = useWaitingFor(branch, unit.gtrid());
        if (group == null) {
            log.warn("shard {}: XA ROLLBACK {} of no prepared branch read (its prepare precedes the start position, or"
                    + " it is committed); nothing to drop", unit.shard(), unit.xid().text());
            lane.ledger.consumed(unit, before);
            return;
        }
        // the prepare and the rollback stay pending while their use is open: a restart reads them again, so
        // the use ends on this shard where it did (a prepare after it is a new use) and is fixed at the same beat
        RolledBack<P> rolledBack = new RolledBack<>(group.unprepare(branch), group.preparedIn.remove(branch),
                group.preparedAt.remove(branch), unit, at, lane.clockMicros);
        group.rolledBack(rolledBack);
        index(group);
        lane.rollbacksBeforeBeat.add(rolledBack);
        lane.ledger.pending(unit, before);
        if (group.prepared.isEmpty() && group.participantsFixed) {
            close(group);
        }
    }

    /**
     * A use was written: it leaves the open uses, its rolled-back branches are done, and its branches given up
     * keep waiting for their own commit, as a use of their own in its place.
     */
    void written(XaGroup<P> g) {
        XaGroup<P> late = new XaGroup<>(g.gtrid, lanes, preparedOn);
        late.participantsFixed = true;
        for (Branch x : g.abandoned) {
            late.prepare(g.prepared.get(x), g.preparedIn.get(x), g.preparedAt.get(x));
        }
        int at = groups.indexOf(g);
        groups.remove(at);
        forget(g);
        List<XaGroup<P>> same = byGtrid.get(g.gtrid);
        int atSame = same.indexOf(g);
        unindex(g);
        done(g);
        if (!late.prepared.isEmpty()) {
            groups.add(at, late);
            same.set(atSame, late);
        } else {
            same.remove(atSame);
            if (same.isEmpty()) {
                byGtrid.remove(g.gtrid);
            }
        }
    }

    /** The open uses whose first commit or rollback comes before {@code key}, in that order. */
    java.util.Collection<XaGroup<P>> finishingBefore(SortKey key) {
        return byFirstFinish.headMap(key, false).values();
    }

    /** Whether {@code g} is one of {@link #finishingBefore}{@code (key)}: open, first finishing before {@code key}. */
    boolean finishesBefore(XaGroup<P> g, SortKey key) {
        return g.filedAs != null && g.filedAs.compareTo(key) < 0;
    }

    /**
     * Whether the uses are filed by {@link XaGroup.Shape} as well ({@link #mayKeepBack} can be asked): true for up
     * to 64 shards.
     */
    boolean shaped() {
        return shaped;
    }

    /**
     * The first open use, in no particular order, that finishes first before {@code key}, waits on no lane outside
     * {@code admitting}, misses commits on no lane outside {@code below}, and passes {@code test}; null when none
     * does. Only when {@link #shaped}.
     */
    XaGroup<P> mayKeepBack(SortKey key, long admitting, long below, java.util.function.Predicate<XaGroup<P>> test) {
        for (Map.Entry<XaGroup.Shape, java.util.TreeMap<SortKey, XaGroup<P>>> e : byShape.entrySet()) {
            XaGroup.Shape shape = e.getKey();
            if ((shape.waited() & ~admitting) != 0 || (shape.missing() & ~below) != 0) {
                continue;
            }
            for (XaGroup<P> g : e.getValue().headMap(key, false).values()) {
                if (test.test(g)) {
                    return g;
                }
            }
        }
        return null;
    }

    /**
     * Whether every filed use is filed under its shape now (for assertions: a change to a use that moves its shape
     * must file it again, {@link #index}).
     */
    boolean shapesCurrent() {
        for (XaGroup<P> g : groups) {
            if (g.filedShape != null && !g.filedShape.equals(g.shape())) {
                return false;
            }
        }
        return true;
    }

    /**
     * Files {@code g} under its first commit or rollback and its shape, moved since it was filed. Called after every
     * change to a use that can move either: a prepare, a commit, a rollback, a branch given up, participants fixed.
     */
    private void index(XaGroup<P> g) {
        SortKey now = g.firstFinish();
        XaGroup.Shape shape = now == null || !shaped ? null : g.shape();
        if (g.filedAs == now && java.util.Objects.equals(g.filedShape, shape)) {
            return;
        }
        unindex(g);
        if (now != null) {
            byFirstFinish.put(now, g);
            if (shape != null) {
                byShape.computeIfAbsent(shape, x -> new java.util.TreeMap<>()).put(now, g);
            }
        }
        g.filedAs = now;
        g.filedShape = shape;
    }

    private void unindex(XaGroup<P> g) {
        if (g.filedAs != null) {
            byFirstFinish.remove(g.filedAs, g);
            if (g.filedShape != null) {
                java.util.TreeMap<SortKey, XaGroup<P>> same = byShape.get(g.filedShape);
                same.remove(g.filedAs, g);
                if (same.isEmpty()) {
                    byShape.remove(g.filedShape);
                }
            }
            g.filedAs = null;
            g.filedShape = null;
        }
    }

    /** The open uses of {@code gtrid}, oldest first (none: empty). */
    private List<XaGroup<P>> usesOf(String gtrid) {
        List<XaGroup<P>> same = byGtrid.get(gtrid);
        return same == null ? List.of() : same;
    }

    /** Removes a finished use (written, or rolled back on every branch) and marks its rolled-back branches done. */
    private void close(XaGroup<P> g) {
        groups.remove(g);
        forget(g);
        List<XaGroup<P>> same = byGtrid.get(g.gtrid);
        same.remove(g);
        if (same.isEmpty()) {
            byGtrid.remove(g.gtrid);
        }
        unindex(g);
        done(g);
    }

    /**
     * Its rolled-back branches are done: recorded like written units, so that a restart that reads them again
     * drops them instead of building a piece of a finished use (which could take another use's branches).
     */
    private void done(XaGroup<P> g) {
        for (RolledBack<P> r : g.rolledBack) {
            lanes.get(r.prepare.shard()).ledger.emitted(r.prepare);
            lanes.get(r.rollback.shard()).ledger.emitted(r.rollback);
        }
    }

    /**
     * The use of its gtrid a prepared branch belongs to: the oldest open one whose participants are not known
     * yet and that has no commit or rollback before it on its shard (all branches of one global transaction
     * prepare before any commits, so a prepare after a commit or rollback on the same server is a new use of
     * the xid); else a new use.
     */
    private XaGroup<P> useTaking(ShardUnit<P> prepare) {
        String gtrid = prepare.gtrid();
        for (XaGroup<P> g : usesOf(gtrid)) {
            if (g.takes(prepare)) {
                return g;
            }
        }
        XaGroup<P> use = new XaGroup<>(gtrid, lanes, preparedOn);
        groups.add(use);
        byGtrid.computeIfAbsent(gtrid, x -> new ArrayList<>(2)).add(use);
        return use;
    }

    /** The use with this branch prepared and neither committed nor rolled back (a server allows one at a time). */
    private XaGroup<P> useWaitingFor(Branch branch, String gtrid) {
        for (XaGroup<P> g : usesOf(gtrid)) {
            if (g.prepared.containsKey(branch) && !g.commits.containsKey(branch)) {
                return g;
            }
        }
        return null;
    }

    /**
     * Settles what the closed windows decide: fixes the participants of the uses whose heartbeat after next has
     * closed (or, in a stretch without heartbeats, whose first commit every shard has passed by more than
     * {@link XaGroup#CLOCK_SKEW_MICROS} of commit time), then gives up the branches of fixed uses still uncommitted
     * {@code xaMaxWait} after their first commit.
     *
     * @param closed         the last heartbeat every shard has passed
     * @param firstHeartbeat the first heartbeat every shard has seen (waits before any heartbeat count from it)
     * @param passed         whether every shard has read past a key (see {@link Lane#readPast})
     */
    void settle(long closed, long firstHeartbeat) {
        // A heartbeat is written to the shards one after the other, not at one instant: a shard may get beat h+1
        // before a prepare that another shard's commit (in window h) follows. The beat after that commit's next
        // beat comes, on every shard, after every prepare of the use.
        long clock = Long.MAX_VALUE;
        for (Lane<P> l : lanes) {
            clock = Math.min(clock, l.clockMicros);
        }
        fixUses(closed, clock);
        for (XaGroup<P> g : List.copyOf(groups)) {
            // heartbeat time: the first commit's window (a heartbeat value, or, in a stretch, the heartbeat time its commit
            // time stands for: Lane.staleAfter), never before the first heartbeat every shard has seen
            long waitingSince = Math.max(g.firstCommitWindow, firstHeartbeat);
            // complete() last: it looks up every branch, and hundreds of uses are open in a catch-up
            if (g.participantsFixed && g.firstCommitWindow >= 0 && waitingSince > 0
                    && closed - waitingSince >= xaMaxWaitMs && !g.complete()) {
                abandonMissing(g);
            }
        }
    }

    /**
     * Fixes the earliest open use of each gtrid once what fixes it has been read, until none is left. Its first commit
     * or rollback {@code c} decides how: if a heartbeat followed {@code c} on its shard within
     * {@link XaGroup#CLOCK_SKEW_MICROS} of that shard's clock, the heartbeats fix the use, once the heartbeat after
     * next of its first commit or rollback has closed (as always); if none did (a stretch without heartbeats), its
     * commit timestamps fix it, once every shard's clock has passed {@code c}'s by that much: its branches are those
     * prepared up to then.
     *
     * @param clock the least of the shards' clocks ({@link Lane#clockMicros})
     */
    private void fixUses(long closed, long clock) {
        boolean again = true;
        while (again) {
            again = false;
            // one pass over the uses, fixing as it goes, and again while a pass fixed one (a fix makes the later uses
            // of its gtrid, met in the next pass). The uses of other gtrids do not change with a fix, so the fixes are
            // the ones, in the order, that starting over after each would make; starting over was quadratic in the
            // uses open when a catch-up fixes many at once.
            for (XaGroup<P> g : List.copyOf(groups)) {
                // a use that its own first finish does not let fix waits; if an earlier use of its gtrid does, that
                // use is met in this loop too
                SortKey own = g.participantsFixed || g.gone ? null : g.firstFinish();
                if (own == null || !mayFix(g, own, closed, clock)) {
                    continue;
                }
                SortKey first = null;
                XaGroup<P> firstOf = null;
                long fixAfter = -1;
                for (XaGroup<P> o : usesOf(g.gtrid)) {
                    if (o.participantsFixed) {
                        continue;
                    }
                    SortKey f = o.firstFinish();
                    if (f != null && (first == null || f.compareTo(first) < 0)) {
                        first = f;
                        firstOf = o;
                    }
                    long after = o.fixAfter();
                    if (after >= 0 && (fixAfter < 0 || after < fixAfter)) {
                        fixAfter = after;
                    }
                }
                int byBeats = firstOf.fixedByHeartbeats(first, lanes.get(first.shard()).clockMicros);
                long settled = XaGroup.settledTime(firstOf.clockAt(first));
                if (byBeats < 0 && clock > settled) {
                    fixEarliestUse(g.gtrid, settled);
                    again = true;
                } else if (byBeats > 0 && fixAfter >= 0 && closed > fixAfter) {
                    fixEarliestUse(g.gtrid, null);
                    again = true;
                }
            }
        }
    }

    /** Whether what fixes {@code g}, judged at its own first commit or rollback, is there. */
    private boolean mayFix(XaGroup<P> g, SortKey own, long closed, long clock) {
        int byBeats = g.fixedByHeartbeats(own, lanes.get(own.shard()).clockMicros);
        if (byBeats < 0) {
            return clock > XaGroup.settledTime(g.clockAt(own));
        }
        long after = g.fixAfter();
        return after >= 0 && closed > after;
    }

    /**
     * Fixes the earliest open use of {@code gtrid}. Until then the branches of its open uses are grouped as they
     * arrived, which can be wrong: a shard read ahead brings a later use's branches before the earlier use's, and a
     * prepare joins the oldest group that has no commit or rollback before it on its shard. So all of them are
     * taken apart and grouped again, on positions and windows only. Let {@code f} be the heartbeat after the
     * earliest commit or rollback among them: the window is closed, so every unit up to it has been read. The
     * earliest use is every branch prepared up to {@code f} and not after a commit or rollback of one of these on
     * its shard (a use is only told apart from the previous one once it starts more than a heartbeat after that
     * one's first commit or rollback, or on a server where that one finished: README). The other branches form
     * the later uses, grouped again as if read now; they are fixed in turn. Fixed by commit timestamps
     * ({@code settled} not null: no heartbeat followed the first commit or rollback in time), the earliest use is
     * every branch whose prepare stands in its shard's order at or before {@code settled} (its first commit or
     * rollback plus {@link XaGroup#CLOCK_SKEW_MICROS}), again not after a commit or rollback of the use on its shard.
     */
    private void fixEarliestUse(String gtrid, Long settled) {
        List<XaGroup<P>> open = new ArrayList<>();
        long f = Long.MAX_VALUE;
        List<XaGroup<P>> same = byGtrid.get(gtrid);
        for (XaGroup<P> g : same) {
            if (!g.participantsFixed) {
                open.add(g);
                long after = g.fixAfter();
                if (after >= 0) {
                    f = Math.min(f, after);
                }
            }
        }
        List<Part<P>> parts = new ArrayList<>();
        for (XaGroup<P> g : open) {
            for (Map.Entry<Branch, ShardUnit<P>> b : g.prepared.entrySet()) {
                parts.add(new Part<>(b.getValue(), g.preparedIn.get(b.getKey()), g.preparedAt.get(b.getKey()),
                        g.commits.get(b.getKey()), null));
            }
            for (RolledBack<P> r : g.rolledBack) {
                parts.add(new Part<>(r.prepare, r.preparedIn, r.preparedClock, null, r));
            }
        }
        int at = groups.indexOf(open.get(0));
        // nothing before the first open use of the gtrid is open: taking them out leaves its place where it was
        int atSame = same.indexOf(open.get(0));
        open.forEach(this::forget);
        open.forEach(this::unindex); // their commits and rollbacks are taken into the uses built below
        XaGroup<P> use = new XaGroup<>(gtrid, lanes, preparedOn);
        // the new use takes the first one's place; the others (a gtrid used again) leave. Not a removeIf over all the
        // open uses: that read every one of them at each fix, 14 % of the merge thread in a 4-shard catch-up
        groups.set(at, use);
        for (int k = 1; k < open.size(); k++) {
            groups.remove(open.get(k)); // XaGroup has identity equality
        }
        same.removeIf(g -> g.gone);
        same.add(atSame, use);
        // per shard in binlog order: a prepare after a commit or rollback of the use on its shard is a later use
        parts.sort(Comparator.comparingInt((Part<P> x) -> x.prepare().shard())
                .thenComparingLong(x -> x.prepare().sequence()));
        List<Part<P>> later = new ArrayList<>();
        for (Part<P> x : parts) {
            boolean after = settled == null ? x.window() > f : x.at() > settled;
            if (after || !use.takes(x.prepare())) {
                later.add(x);
                continue;
            }
            x.addTo(use);
        }
        use.participantsFixed = true;
        // the later uses: grouped again in the order of their windows, the way units arrive in a closed window
        later.sort(Comparator.comparingLong((Part<P> x) -> x.window())
                .thenComparingInt(x -> x.prepare().shard()).thenComparingLong(x -> x.prepare().sequence()));
        for (Part<P> x : later) {
            x.addTo(useTaking(x.prepare()));
        }
        usesOf(gtrid).forEach(this::index);
        boolean usedAgain = !later.isEmpty() || usesOf(gtrid).stream().anyMatch(g -> g != use);
        boolean usedBefore = recent.containsKey(gtrid);
        if (use.prepared.isEmpty()) {
            remember(gtrid, List.of());
            close(use); // rolled back
            return;
        }
        // A branch prepared in the window after the use's first commit (and by the beat after that) is taken as one
        // of its branches: the heartbeat reaches the shards one after the other, so a branch prepared before the
        // commit can land in the next window on its shard. That is what a two-phase commit does under skew, every
        // few seconds under load. It is ambiguous only when the gtrid is used more than once: then the branch may
        // be a new use started within a heartbeat of this one's commit, which the binlogs cannot tell apart. So
        // it is said only for a gtrid with another use, open now or among the recent ones, and for a gtrid whose
        // next use shows up later (said then).
        List<Integer> ambiguous = use.firstCommitWindow < 0 ? List.of() : use.preparedIn.entrySet().stream()
                .filter(b -> b.getValue() > use.firstCommitWindow).map(b -> b.getKey().shard()).sorted().toList();
        boolean sayNow = !ambiguous.isEmpty() && (usedAgain || usedBefore);
        remember(gtrid, sayNow ? List.of() : ambiguous);
        if (sayNow) {
            log.warn("XA transaction {}: branches on shards {} were prepared in the heartbeat window after a commit of"
                    + " it on shards {}, and the xid is used more than once; taken as branches of that transaction (a"
                    + " reuse of the xid within a heartbeat interval of its commit cannot be told from heartbeat skew"
                    + " in the binlogs)", ShardUnit.gtridText(gtrid), ambiguous, use.shards());
        }
    }

    /**
     * Records a fixed use of {@code gtrid} with the shards of the ambiguous branches not yet said. When an earlier
     * recent use of it took ambiguous branches, they are said now: the gtrid turned out to be used more than once.
     */
    private void remember(String gtrid, List<Integer> unsaid) {
        List<Integer> before = recent.remove(gtrid);
        recent.put(gtrid, unsaid);
        if (before != null && !before.isEmpty()) {
            log.warn("XA transaction {} is used again: an earlier use of it took branches on shards {} prepared in the"
                    + " heartbeat window after its first commit; if they belonged to another use of the xid (started"
                    + " within a heartbeat interval of that commit) they were written with it", ShardUnit.gtridText(gtrid),
                    before);
        }
    }

    private void abandonMissing(XaGroup<P> g) {
        List<Integer> shards = new ArrayList<>();
        for (Map.Entry<Branch, ShardUnit<P>> b : g.prepared.entrySet()) {
            if (!g.commits.containsKey(b.getKey()) && g.abandon(b.getKey())) {
                shards.add(b.getValue().shard());
            }
        }
        index(g);
        log.warn("XA transaction {}: branches on shards {} still uncommitted {} ms of heartbeat time after the first"
                + " commit (cdc.xa.maxWait); writing the committed branches without them", ShardUnit.gtridText(g.gtrid),
                shards, xaMaxWaitMs);
    }
}
