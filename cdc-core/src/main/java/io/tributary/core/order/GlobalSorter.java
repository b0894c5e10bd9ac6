package io.tributary.core.order;

import io.tributary.core.event.XaXid;
import io.tributary.core.order.ShardUnit.Kind;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Merges the units of N shard streams into one global order (ARCHITECTURE.md, invariants 1 to 4).
 *
 * <p><b>Order.</b> Every unit gets a {@link SortKey}: the heartbeat window it falls in, its commit time,
 * its shard index, its position. A unit is emitted once no shard can still produce a unit with a smaller
 * key: a shard with queued units is bounded by its next unit, an idle shard by its last heartbeat. Since
 * every shard receives every heartbeat, an idle shard holds the others back by at most one heartbeat
 * interval. Each shard's units are taken in their own order, so per-shard order always holds.
 *
 * <p><b>XA.</b> A prepared branch waits, outside the order, for its commit. Its {@code XA COMMIT} is its
 * place in its shard's order; the branches of one gtrid become one {@link Emission.Distributed} once every
 * branch has committed, keyed by its latest commit, and each branch's shard waits at that commit for it:
 * what follows an early branch on its shard is placed after the whole transaction. The branches that take
 * part are those prepared when every shard has passed the heartbeat after the one that followed a commit on
 * its shard (every branch prepares before any commits, and a heartbeat reaches the shards one after the
 * other, so the beat after next comes after every prepare on every shard). Rolled-back branches never
 * appear. A branch still uncommitted {@code xaMaxWait} of heartbeat time after the first commit is given up
 * with a warning naming the gtrid and shards; its commit, if it comes, is then emitted on its own. Two XA
 * transactions whose commits cross on two shards (possible only when they do not conflict) wait for each
 * other; such a cycle is broken by emitting one of them first, and logged: the one with the smallest key
 * among those that overtake only commits of the cycle, written at the largest key among the groups it
 * waits for (the key at which the whole cycle is known).
 *
 * <p><b>A gtrid used again.</b> MySQL and MariaDB allow an xid again once its transaction has finished on
 * that server, so a gtrid may have several uses, each its own transaction: a prepare that follows, on its
 * shard, a commit or rollback of a use starts a new use, and so does one prepared in a window after the
 * heartbeat that fixes a use's branches (it came after a commit). A commit or rollback belongs to the use
 * with that branch prepared; a use whose branches all rolled back is kept until its branches are fixed, so
 * its branches read later are not taken for a new use. Branches are grouped into uses as they arrive, which
 * depends on arrival (a shard read ahead brings a later use first); when the earliest open use of a gtrid is
 * fixed, all its open uses are taken apart and grouped again from positions and heartbeat windows alone. A
 * rolled-back branch stays with its use until the use is finished. Ambiguous from the binlogs alone, and
 * taken as one transaction (logged with gtrid and shards when a prepare falls in a window after the use's
 * first commit): a use started on another shard within about a heartbeat interval of the previous use's
 * commit, and two uses of one xid running at the same time on different shards.
 *
 * <p><b>Determinism.</b> Only closed heartbeat windows are ordered (every shard has passed their closing
 * heartbeat, so everything in them has been read), and an XA group that more input could still make
 * emittable holds back what would come after it. Heartbeat values (milliseconds, strictly increasing,
 * shared by all shards) are the only clock.
 *
 * <p><b>Checkpoints.</b> Each emission carries, for every shard whose resume point moved, a
 * {@link ShardCheckpoint}: resume at the first unit still pending, skip the ones after it already emitted.
 * A sorter started from such checkpoints drops offered units it is told were written. The prepare and the
 * rollback of a rolled-back branch are pending while its use is open (a restart must rebuild the use with
 * them) and are then recorded as written (a restart must not rebuild a piece of a finished use).
 *
 * <p>Not thread-safe: one sorter belongs to one thread, which offers units and drains emissions.
 *
 * @param <P> payload type of the units (the buffered events)
 */
public final class GlobalSorter<P> {

    private static final Logger log = LoggerFactory.getLogger(GlobalSorter.class);

    /**
     * A queued TRANSACTION or XA_COMMIT with its key; a commit also knows the use of its gtrid it commits and the
     * first heartbeat its shard received after it (-1 before).
     */
    private final class Entry {
        private final ShardUnit<P> unit;
        private final SortKey key;
        XaGroup group;
        long beatAfter = -1;

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

        boolean commitOf(XaGroup g) {
            return group == g;
        }
    }

    /**
     * One XA branch: its shard and its xid. The xid alone does not name a branch: each shard is its own
     * server, so {@code XA START 'tx1'} (default empty bqual) on two shards gives two branches with one xid.
     */
    private record Branch(int shard, XaXid xid) {
        static Branch of(ShardUnit<?> unit) {
            return new Branch(unit.shard(), unit.xid());
        }
    }


    /**
     * A branch rolled back, kept with the use it belonged to until that use is finished: until then it tells
     * where the use ended on its shard and when its participants are known, and a restart must read it again.
     */
    private final class RolledBack {
        final ShardUnit<P> prepare;
        final long preparedIn;
        final ShardUnit<P> rollback;
        /** The first heartbeat its shard received after the rollback; -1 before. */
        long beatAfter = -1;

        RolledBack(ShardUnit<P> prepare, long preparedIn, ShardUnit<P> rollback) {
            this.prepare = prepare;
            this.preparedIn = preparedIn;
            this.rollback = rollback;
        }
    }

    private final class Lane {
        final int shard;
        final ArrayDeque<Entry> queue = new ArrayDeque<>();
        final CheckpointLedger ledger;
        final Set<String> skip;
        long lastHeartbeat;
        long firstHeartbeat;
        long effWindow;
        long effTime;
        long lastSequence = Long.MIN_VALUE;
        /** XA commits read since this shard's last heartbeat. */
        final List<Entry> commitsBeforeBeat = new ArrayList<>();
        /** XA rollbacks read since this shard's last heartbeat. */
        final List<RolledBack> rollbacksBeforeBeat = new ArrayList<>();

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

        /** Moves the running (window, time) maximum past a transaction or commit and returns its key. */
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
    }

    /**
     * One use of a gtrid: the branches of one global transaction seen so far. A gtrid may be used again once
     * its previous use has finished on a server, so one gtrid can have several uses open at a time.
     */
    private final class XaGroup {
        final String gtrid;
        final Map<Branch, ShardUnit<P>> prepared = new LinkedHashMap<>();
        /** The heartbeat window of each prepare on its shard. */
        final Map<Branch, Long> preparedIn = new HashMap<>();
        final Map<Branch, Entry> commits = new LinkedHashMap<>();
        final Set<Branch> abandoned = new HashSet<>();
        /** Per shard, the position of the first commit or rollback of this use: a later prepare there is a new use. */
        final Map<Integer, Long> finishedAt = new HashMap<>();
        /** Its branches rolled back so far. */
        final List<RolledBack> rolledBack = new ArrayList<>();
        long firstCommitWindow = -1;
        boolean participantsFixed;

        XaGroup(String gtrid) {
            this.gtrid = gtrid;
        }

        void prepare(ShardUnit<P> unit, long window) {
            prepared.put(Branch.of(unit), unit);
            preparedIn.put(Branch.of(unit), window);
        }

        void commit(Branch branch, Entry entry) {
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
            for (Entry c : commits.values()) {
                if (c.beatAfter >= 0 && (after < 0 || c.beatAfter < after)) {
                    after = c.beatAfter;
                }
            }
            for (RolledBack r : rolledBack) {
                if (r.beatAfter >= 0 && (after < 0 || r.beatAfter < after)) {
                    after = r.beatAfter;
                }
            }
            return after;
        }

        void rolledBack(RolledBack r) {
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
            for (Entry e : commits.values()) {
                perLane.merge(e.unit().shard(), 1, Integer::sum);
            }
            for (Map.Entry<Integer, Integer> lane : perLane.entrySet()) {
                int k = 0;
                for (Entry e : lanes.get(lane.getKey()).queue) {
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

    /** A branch of an open use, taken out to be grouped again: prepared, maybe committed, or rolled back. */
    private final class Part {
        private final ShardUnit<P> prepare;
        private final long window;
        private final Entry commit;
        private final RolledBack rolledBack;

        Part(ShardUnit<P> prepare, long window, Entry commit, RolledBack rolledBack) {
            this.prepare = prepare;
            this.window = window;
            this.commit = commit;
            this.rolledBack = rolledBack;
        }

        ShardUnit<P> prepare() {
            return prepare;
        }

        long window() {
            return window;
        }

        void addTo(XaGroup use) {
            if (rolledBack != null) {
                use.rolledBack(rolledBack);
                return;
            }
            use.prepare(prepare, window);
            if (commit != null) {
                use.commit(Branch.of(prepare), commit);
            }
        }
    }

    /** What could be emitted next: a shard's head transaction, or a ready XA group. */
    private final class Candidate {
        private final Entry single;
        private final XaGroup group;
        private final SortKey key;

        Candidate(Entry single, XaGroup group, SortKey key) {
            this.single = single;
            this.group = group;
            this.key = key;
        }

        Entry single() {
            return single;
        }

        XaGroup group() {
            return group;
        }

        SortKey key() {
            return key;
        }
    }

    private final List<Lane> lanes = new ArrayList<>();
    private final long xaMaxWaitMs;
    /** Open uses of gtrids, oldest first. */
    private final List<XaGroup> groups = new ArrayList<>();
    /**
     * True when the last {@link #drain} emitted all it could and nothing offered since can make more emittable.
     * Without open XA groups only a heartbeat (it may close a window) can: a transaction is keyed in its
     * shard's current window, which is not closed yet. With open groups any unit may move a group's bounds,
     * and so may a rollback, which can end a group. A drain after each transaction then costs nothing
     * between heartbeats.
     */
    private boolean drained;
    private final ArrayDeque<Emission<P>> out = new ArrayDeque<>();

    /**
     * @param start     one checkpoint per shard, in shard index order: where its stream starts and which
     *                  units after that point are already written (they are dropped when offered)
     * @param xaMaxWait how long (in heartbeat time) committed XA branches wait for a missing branch
     */
    public GlobalSorter(List<ShardCheckpoint> start, Duration xaMaxWait) {
        if (start.isEmpty()) {
            throw new IllegalArgumentException("a sorter needs at least one shard");
        }
        for (int i = 0; i < start.size(); i++) {
            lanes.add(new Lane(i, start.get(i)));
        }
        this.xaMaxWaitMs = xaMaxWait.toMillis();
    }

    /** Takes the next unit of one shard, in that shard's binlog order. */
    public void offer(ShardUnit<P> unit) {
        Lane lane = lane(unit.shard());
        if (unit.sequence() <= lane.lastSequence) {
            throw new IllegalArgumentException("shard " + unit.shard() + ": unit " + unit + " does not follow sequence "
                    + lane.lastSequence);
        }
        lane.lastSequence = unit.sequence();
        ShardCheckpoint.Clock before = lane.clock();
        if (!lane.skip.isEmpty() && lane.skip.remove(unit.key())) {
            // written before the restart: ordered as then, kept in the checkpoint, never again in the output
            if (unit.kind() == Kind.TRANSACTION || unit.kind() == Kind.XA_COMMIT) {
                lane.advance(unit);
            }
            lane.ledger.emitted(unit, before);
        } else {
            switch (unit.kind()) {
                case HEARTBEAT -> heartbeat(lane, unit, before);
                case TRANSACTION -> enqueue(lane, unit, before);
                case XA_PREPARE -> {
                    useTaking(unit).prepare(unit, lane.lastHeartbeat);
                    lane.ledger.pending(unit, before);
                }
                case XA_COMMIT -> commit(lane, unit, before);
                case XA_ROLLBACK -> rollback(lane, unit, before);
            }
        }
        lane.ledger.clockNow(lane.clock());
        if (unit.kind() == Kind.HEARTBEAT || unit.kind() == Kind.XA_ROLLBACK || !groups.isEmpty()) {
            drained = false;
        }
    }

    private void heartbeat(Lane lane, ShardUnit<P> unit, ShardCheckpoint.Clock before) {
        if (unit.heartbeat() > lane.lastHeartbeat) {
            lane.lastHeartbeat = unit.heartbeat();
            for (Entry c : lane.commitsBeforeBeat) {
                c.beatAfter = unit.heartbeat();
            }
            lane.commitsBeforeBeat.clear();
            for (RolledBack r : lane.rollbacksBeforeBeat) {
                r.beatAfter = unit.heartbeat();
            }
            lane.rollbacksBeforeBeat.clear();
            if (lane.firstHeartbeat == 0) {
                lane.firstHeartbeat = unit.heartbeat();
            }
        } else {
            log.warn("shard {}: heartbeat {} does not increase on {}; ignored", unit.shard(), unit.heartbeat(),
                    lane.lastHeartbeat);
        }
        lane.ledger.consumed(unit, before);
    }

    private void enqueue(Lane lane, ShardUnit<P> unit, ShardCheckpoint.Clock before) {
        lane.queue.addLast(new Entry(unit, lane.advance(unit)));
        lane.ledger.pending(unit, before);
    }

    private void commit(Lane lane, ShardUnit<P> unit, ShardCheckpoint.Clock before) {
        Branch branch = Branch.of(unit);
        XaGroup group = useWaitingFor(branch);
        if (group == null) {
            log.warn("shard {}: XA COMMIT {} of a branch whose prepare was not read (it precedes the start position);"
                    + " nothing to write", unit.shard(), unit.xid());
            lane.ledger.consumed(unit, before);
            return;
        }
        enqueue(lane, unit, before);
        Entry entry = lane.queue.peekLast();
        group.commit(branch, entry);
        lane.commitsBeforeBeat.add(entry);
    }

    private void rollback(Lane lane, ShardUnit<P> unit, ShardCheckpoint.Clock before) {
        Branch branch = Branch.of(unit);
        XaGroup group = useWaitingFor(branch);
        if (group == null) {
            log.warn("shard {}: XA ROLLBACK {} of no prepared branch read (its prepare precedes the start position, or"
                    + " it is committed); nothing to drop", unit.shard(), unit.xid());
            lane.ledger.consumed(unit, before);
            return;
        }
        // the prepare and the rollback stay pending while their use is open: a restart reads them again, so
        // the use ends on this shard where it did (a prepare after it is a new use) and is fixed at the same beat
        RolledBack rolledBack = new RolledBack(group.prepared.remove(branch), group.preparedIn.remove(branch), unit);
        group.rolledBack(rolledBack);
        lane.rollbacksBeforeBeat.add(rolledBack);
        lane.ledger.pending(unit, before);
        if (group.prepared.isEmpty() && group.participantsFixed) {
            close(group);
        }
    }

    /** Removes a finished use (written, or rolled back on every branch) and marks its rolled-back branches done. */
    private void close(XaGroup g) {
        groups.remove(g);
        done(g);
    }

    /**
     * Its rolled-back branches are done: recorded like written units, so that a restart that reads them again
     * drops them instead of building a piece of a finished use (which could take another use's branches).
     */
    private void done(XaGroup g) {
        for (RolledBack r : g.rolledBack) {
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
    private XaGroup useTaking(ShardUnit<P> prepare) {
        for (XaGroup g : groups) {
            if (g.gtrid.equals(prepare.gtrid()) && g.takes(prepare)) {
                return g;
            }
        }
        XaGroup use = new XaGroup(prepare.gtrid());
        groups.add(use);
        return use;
    }

    /** The use with this branch prepared and neither committed nor rolled back (a server allows one at a time). */
    private XaGroup useWaitingFor(Branch branch) {
        for (XaGroup g : groups) {
            if (g.prepared.containsKey(branch) && !g.commits.containsKey(branch)) {
                return g;
            }
        }
        return null;
    }

    /** Emits everything that may be emitted now; returns it in global order. */
    public List<Emission<P>> drain() {
        if (drained) {
            return List.of();
        }
        while (step()) {
            // keep emitting
        }
        drained = true;
        if (out.isEmpty()) {
            return List.of();
        }
        List<Emission<P>> result = new ArrayList<>(out);
        out.clear();
        return result;
    }

    /** Tells {@code action} the payload of every unit queued or prepared and not yet emitted (to free them). */
    public void forEachWaiting(java.util.function.Consumer<? super P> action) {
        for (Lane l : lanes) {
            for (Entry e : l.queue) {
                if (e.unit().payload() != null) {
                    action.accept(e.unit().payload());
                }
            }
        }
        for (XaGroup g : groups) {
            for (ShardUnit<P> u : g.prepared.values()) {
                if (u.payload() != null) {
                    action.accept(u.payload());
                }
            }
        }
    }

    /** Units queued or prepared and not yet emitted (a measure of what waits). */
    public int waiting() {
        int n = 0;
        for (Lane l : lanes) {
            n += l.queue.size();
        }
        for (XaGroup g : groups) {
            n += g.prepared.size();
        }
        return n;
    }

    /** What waits and why, for logs and diagnostics: each shard's head and last heartbeat, and the open XA groups. */
    public String describeWaiting() {
        StringBuilder b = new StringBuilder();
        for (Lane l : lanes) {
            Entry head = l.queue.peekFirst();
            b.append("shard ").append(l.shard).append(": hb=").append(l.lastHeartbeat).append(" queued=")
                    .append(l.queue.size()).append(" head=").append(head == null ? "-" : head.unit().key() + " " + head.key())
                    .append('\n');
        }
        for (XaGroup g : groups) {
            b.append("xa ").append(g.gtrid).append(": prepared=").append(g.prepared.keySet()).append(" committed=")
                    .append(g.commits.keySet()).append(" fixed=").append(g.participantsFixed).append(" firstCommitWindow=")
                    .append(g.firstCommitWindow).append(" ready=").append(g.ready()).append('\n');
        }
        return b.toString();
    }

    private boolean step() {
        // loops, not streams: this runs once per emission
        long closed = Long.MAX_VALUE;
        // before any heartbeat a window is 0; such waits count from the first heartbeat every shard has seen
        long firstHeartbeat = Long.MAX_VALUE;
        for (Lane l : lanes) {
            closed = Math.min(closed, l.lastHeartbeat);
            firstHeartbeat = Math.min(firstHeartbeat, l.firstHeartbeat);
        }
        // A heartbeat is written to the shards one after the other, not at one instant: a shard may get beat h+1
        // before a prepare that another shard's commit (in window h) follows. The beat after that commit's next
        // beat comes, on every shard, after every prepare of the use.
        fixUses(closed);
        for (XaGroup g : List.copyOf(groups)) {
            long waitingSince = g.firstCommitWindow > 0 ? g.firstCommitWindow : firstHeartbeat;
            if (g.participantsFixed && g.firstCommitWindow >= 0 && !g.complete() && waitingSince > 0
                    && closed - waitingSince >= xaMaxWaitMs) {
                abandonMissing(g);
            }
        }
        // Only closed windows are ordered: every shard has passed their closing heartbeat, so everything in
        // them has been read and the choice below cannot depend on what arrives later.
        Candidate best = null;
        for (Lane l : lanes) {
            Entry head = l.queue.peekFirst();
            if (head != null && head.unit().kind() == Kind.TRANSACTION && head.key().window() < closed
                    && (best == null || head.key().compareTo(best.key()) < 0)) {
                best = new Candidate(head, null, head.key());
            }
        }
        for (XaGroup g : groups) {
            if (!g.commits.isEmpty() && g.ready() && g.key().window() < closed
                    && (best == null || g.key().compareTo(best.key()) < 0)) {
                best = new Candidate(null, g, g.key());
            }
        }
        XaGroup breaker = cycleBreaker(closed);
        // a cycle is broken at the key of the last group it waits for, when the whole cycle is known; like
        // every candidate, only once that key's window is closed
        SortKey breakerKey = breaker == null ? null : waitBound(breaker);
        if (breaker != null && breakerKey.window() < closed && (best == null || breakerKey.compareTo(best.key()) < 0)) {
            best = new Candidate(null, breaker, breakerKey);
        }
        if (best == null || !admitted(best, breaker)) {
            return false;
        }
        if (best.group() == null) {
            emitSingle(best.single());
        } else if (best.group() == breaker) {
            log.warn("XA transaction {} waits, across shards, for XA transactions that wait for it (their commits"
                    + " cross, so they do not conflict); writing it first, ahead of its shards' commit order", breaker.gtrid);
            emitGroup(breaker, true);
        } else {
            emitGroup(best.group(), false);
        }
        return true;
    }

    /**
     * Whether no XA group that cannot be written yet could still come before the candidate: one that may
     * become complete, or the one written first to break a cycle, with a smaller key. Groups that wait,
     * directly or through other groups, behind the candidate or behind anything emittable now (which the
     * candidate, having the smallest key, precedes) cannot.
     */
    private boolean admitted(Candidate candidate, XaGroup breaker) {
        for (XaGroup g : groups) {
            if (g == candidate.group() || g == breaker || g.commits.isEmpty() || g.ready()) {
                continue;
            }
            if (candidate.key().compareTo(waitBound(g)) > 0 && canPrecede(g, candidate, breaker, new HashSet<>())) {
                return false;
            }
        }
        return true;
    }

    private boolean canPrecede(XaGroup g, Candidate candidate, XaGroup breaker, Set<XaGroup> visiting) {
        if (!visiting.add(g)) {
            // a cycle: while not all cycles at the shards' heads are known it may still be broken in g's
            // favour; once they are, the group chosen to break them is emittable now, and g is not it
            return breaker == null;
        }
        for (Map.Entry<Branch, ShardUnit<P>> b : g.prepared.entrySet()) {
            if (!g.waitsFor(b.getKey())) {
                continue;
            }
            Entry commit = g.commits.get(b.getKey());
            Lane lane = lanes.get(commit != null ? commit.unit().shard() : b.getValue().shard());
            Entry head = lane.queue.peekFirst();
            if (head == null || head == commit || (commit != null && inHeadRun(g, lane, commit))) {
                continue;
            }
            if (head == candidate.single() || head.unit().kind() == Kind.TRANSACTION) {
                return false; // behind the candidate, or behind something emittable now, which comes after it
            }
            XaGroup blocker = head.group;
            if (blocker == candidate.group() || blocker == breaker || blocker.ready()) {
                return false;
            }
            // g may still go first to break a cycle it is on, unless the cycles are all known (a breaker was
            // chosen over every group waiting at a shard's head) and it was not picked
            if (!canPrecede(blocker, candidate, breaker, visiting)
                    && (breaker != null || !onWaitCycle(g, g, new HashSet<>()))) {
                return false;
            }
        }
        return true;
    }

    /** Whether following "waits behind another group's commit at a shard's head" from {@code from} leads to {@code target}. */
    private boolean onWaitCycle(XaGroup from, XaGroup target, Set<XaGroup> seen) {
        if (!seen.add(from)) {
            return false;
        }
        for (Map.Entry<Branch, ShardUnit<P>> b : from.prepared.entrySet()) {
            Entry c = from.commits.get(b.getKey());
            Entry head = lanes.get(c != null ? c.unit().shard() : b.getValue().shard()).queue.peekFirst();
            if (head == null || head == c || head.unit().kind() != Kind.XA_COMMIT) {
                continue;
            }
            XaGroup blocker = head.group;
            if (blocker == target || (!blocker.ready() && onWaitCycle(blocker, target, seen))) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code commit} is in the run of {@code g}'s commits at the head of {@code lane}. */
    private boolean inHeadRun(XaGroup g, Lane lane, Entry commit) {
        for (Entry e : lane.queue) {
            if (e == commit) {
                return true;
            }
            if (!e.commitOf(g)) {
                return false;
            }
        }
        return false;
    }

    /**
     * The smallest key at which {@code g} can be written: the largest {@link #lowerBound} of {@code g} and of every
     * group it waits behind at a shard's head, directly or through others. Written in commit order, {@code g}
     * follows them; written first to break a cycle, it is written at this key (see {@link #step}). So a cycle
     * that more input could still close (through a branch whose commit is not read yet) never lets a group
     * overtake what precedes that branch's place: the order does not depend on when that input arrives.
     */
    private SortKey waitBound(XaGroup g) {
        SortKey bound = lowerBound(g);
        ArrayDeque<XaGroup> todo = new ArrayDeque<>(List.of(g));
        Set<XaGroup> seen = new HashSet<>(todo);
        while (!todo.isEmpty()) {
            XaGroup from = todo.poll();
            for (Map.Entry<Branch, ShardUnit<P>> b : from.prepared.entrySet()) {
                if (!from.waitsFor(b.getKey())) {
                    continue;
                }
                Entry commit = from.commits.get(b.getKey());
                Lane lane = lanes.get(commit != null ? commit.unit().shard() : b.getValue().shard());
                Entry head = lane.queue.peekFirst();
                if (head == null || head == commit || head.unit().kind() != Kind.XA_COMMIT
                        || (commit != null && inHeadRun(from, lane, commit))) {
                    continue;
                }
                XaGroup blocker = head.group;
                if (seen.add(blocker)) {
                    bound = SortKey.max(bound, lowerBound(blocker));
                    todo.add(blocker);
                }
            }
        }
        return bound;
    }

    /** The smallest key {@code g} can have: its commits read so far, and where its missing commits can still land. */
    private SortKey lowerBound(XaGroup g) {
        SortKey k = null;
        for (Map.Entry<Branch, ShardUnit<P>> b : g.prepared.entrySet()) {
            Entry commit = g.commits.get(b.getKey());
            if (!g.waitsFor(b.getKey())) {
                continue;
            }
            if (commit != null) {
                k = k == null ? commit.key() : SortKey.max(k, commit.key());
                continue;
            }
            Lane lane = lanes.get(b.getValue().shard());
            Entry head = lane.queue.peekFirst();
            SortKey missing = head != null ? head.key()
                    : new SortKey(Math.max(lane.lastHeartbeat, lane.effWindow), Long.MIN_VALUE, lane.shard, Long.MIN_VALUE);
            k = k == null ? missing : SortKey.max(k, missing);
        }
        return k;
    }

    private void emitSingle(Entry e) {
        Lane lane = lanes.get(e.unit().shard());
        lane.queue.pollFirst();
        lane.ledger.emitted(e.unit());
        out.add(new Emission.Single<>(e.unit(), checkpoints()));
    }

    private void emitGroup(XaGroup g, boolean outOfOrder) {
        List<ShardUnit<P>> branches = new ArrayList<>();
        List<ShardUnit<P>> commits = new ArrayList<>();
        for (Map.Entry<Branch, ShardUnit<P>> b : g.prepared.entrySet()) {
            Entry c = g.commits.get(b.getKey());
            if (c == null) {
                continue; // abandoned
            }
            branches.add(b.getValue());
            commits.add(c.unit());
            Lane lane = lanes.get(c.unit().shard());
            if (!lane.queue.remove(c) && !outOfOrder) {
                throw new IllegalStateException("XA commit " + c.unit() + " was not queued");
            }
            lanes.get(b.getValue().shard()).ledger.emitted(b.getValue());
            lane.ledger.emitted(c.unit());
        }
        branches.sort(Comparator.<ShardUnit<P>>comparingInt(ShardUnit::shard)
                .thenComparing(u -> java.util.HexFormat.of().formatHex(u.xid().bqual())));
        commits.sort(Comparator.comparingInt(ShardUnit::shard));
        List<Integer> abandoned = g.abandoned.stream().map(x -> g.prepared.get(x).shard()).sorted().toList();
        // branches given up keep waiting for their own commit, as a group of their own
        XaGroup late = new XaGroup(g.gtrid);
        late.participantsFixed = true;
        for (Branch x : g.abandoned) {
            late.prepare(g.prepared.get(x), g.preparedIn.get(x));
        }
        int at = groups.indexOf(g);
        groups.remove(at);
        done(g);
        if (!late.prepared.isEmpty()) {
            groups.add(at, late);
        }
        out.add(new Emission.Distributed<>(g.gtrid, branches, commits, abandoned, outOfOrder, checkpoints()));
    }

    /**
     * Fixes the branches of the earliest use of each gtrid whose first commit or rollback has its next heartbeat
     * in a closed window, until none is left.
     */
    private void fixUses(long closed) {
        boolean again = true;
        while (again) {
            again = false;
            for (XaGroup g : groups) {
                long fixAfter = g.fixAfter();
                if (!g.participantsFixed && fixAfter >= 0 && closed > fixAfter) {
                    fixEarliestUse(g.gtrid);
                    again = true;
                    break;
                }
            }
        }
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
     * the later uses, grouped again as if read now; they are fixed in turn.
     */
    private void fixEarliestUse(String gtrid) {
        List<XaGroup> open = new ArrayList<>();
        long f = Long.MAX_VALUE;
        for (XaGroup g : groups) {
            if (g.gtrid.equals(gtrid) && !g.participantsFixed) {
                open.add(g);
                long after = g.fixAfter();
                if (after >= 0) {
                    f = Math.min(f, after);
                }
            }
        }
        List<Part> parts = new ArrayList<>();
        for (XaGroup g : open) {
            for (Map.Entry<Branch, ShardUnit<P>> b : g.prepared.entrySet()) {
                parts.add(new Part(b.getValue(), g.preparedIn.get(b.getKey()), g.commits.get(b.getKey()), null));
            }
            for (RolledBack r : g.rolledBack) {
                parts.add(new Part(r.prepare, r.preparedIn, null, r));
            }
        }
        int at = groups.indexOf(open.get(0));
        groups.removeAll(open);
        XaGroup use = new XaGroup(gtrid);
        groups.add(at, use);
        // per shard in binlog order: a prepare after a commit or rollback of the use on its shard is a later use
        parts.sort(Comparator.comparingInt((Part x) -> x.prepare().shard())
                .thenComparingLong(x -> x.prepare().sequence()));
        List<Part> later = new ArrayList<>();
        for (Part x : parts) {
            if (x.window() > f || !use.takes(x.prepare())) {
                later.add(x);
                continue;
            }
            x.addTo(use);
        }
        use.participantsFixed = true;
        // the later uses: grouped again in the order of their windows, the way units arrive in a closed window
        later.sort(Comparator.comparingLong((Part x) -> x.window())
                .thenComparingInt(x -> x.prepare().shard()).thenComparingLong(x -> x.prepare().sequence()));
        for (Part x : later) {
            x.addTo(useTaking(x.prepare()));
        }
        if (use.prepared.isEmpty()) {
            close(use); // rolled back
            return;
        }
        List<Integer> ambiguous = use.preparedIn.entrySet().stream().filter(b -> b.getValue() > use.firstCommitWindow)
                .map(b -> b.getKey().shard()).sorted().toList();
        if (use.firstCommitWindow >= 0 && !ambiguous.isEmpty()) {
            log.warn("XA transaction {}: branches on shards {} were prepared in a heartbeat window after a commit of it"
                    + " on shards {}; taken as branches of that transaction (from the binlogs, a reuse of the xid within"
                    + " a heartbeat interval of its commit cannot be told from heartbeat skew)", gtrid, ambiguous,
                    use.shards());
        }
    }

    private void abandonMissing(XaGroup g) {
        List<Integer> shards = new ArrayList<>();
        for (Map.Entry<Branch, ShardUnit<P>> b : g.prepared.entrySet()) {
            if (!g.commits.containsKey(b.getKey()) && g.abandoned.add(b.getKey())) {
                shards.add(b.getValue().shard());
            }
        }
        log.warn("XA transaction {}: branches on shards {} still uncommitted {} ms of heartbeat time after the first"
                + " commit (cdc.xa.maxWait); writing the committed branches without them", g.gtrid, shards, xaMaxWaitMs);
    }

    /**
     * The XA group to write out of its shards' commit order when groups wait for each other in a cycle
     * at the heads of the shards (their commits cross on two shards, which happens only when they do not
     * conflict): among the groups on the cycle, the one with the smallest key that overtakes only commits
     * of the cycle, else the one with the smallest key. {@code null} when there is no cycle, or while a
     * group waiting at a shard's head is not complete yet (it might join a cycle and change the choice).
     */
    private XaGroup cycleBreaker(long closed) {
        if (groups.isEmpty()) {
            return null;
        }
        List<XaGroup> stuck = new ArrayList<>();
        for (Lane l : lanes) {
            Entry head = l.queue.peekFirst();
            if (head == null || head.unit().kind() != Kind.XA_COMMIT) {
                continue;
            }
            XaGroup g = head.group;
            if (g.ready() || head.key().window() >= closed) {
                continue;
            }
            if (!g.participantsFixed || !g.complete() || g.key().window() >= closed) {
                return null;
            }
            if (!stuck.contains(g)) {
                stuck.add(g);
            }
        }
        List<XaGroup> cycle = stuck.stream()
                .filter(g -> blockedOnlyByStuck(g, stuck) && reachesItself(g, g, stuck, new HashSet<>())).toList();
        if (cycle.isEmpty()) {
            return null;
        }
        return cycle.stream().filter(c -> overtakesOnlyCommitsOf(c, cycle)).min(Comparator.comparing(XaGroup::key))
                .orElseGet(() -> cycle.stream().min(Comparator.comparing(XaGroup::key)).orElseThrow());
    }

    private boolean blockedOnlyByStuck(XaGroup g, List<XaGroup> stuck) {
        for (Entry c : g.commits.values()) {
            Entry head = lanes.get(c.unit().shard()).queue.peekFirst();
            if (head == c) {
                continue;
            }
            if (head.unit().kind() != Kind.XA_COMMIT || !stuck.contains(head.group)) {
                return false;
            }
        }
        return true;
    }

    /** Whether following "waits behind a stuck group's commit at a shard's head" from {@code from} leads back to {@code target}. */
    private boolean reachesItself(XaGroup from, XaGroup target, List<XaGroup> stuck, Set<XaGroup> seen) {
        if (!seen.add(from)) {
            return false;
        }
        for (Entry c : from.commits.values()) {
            Entry head = lanes.get(c.unit().shard()).queue.peekFirst();
            if (head == null || head == c || head.unit().kind() != Kind.XA_COMMIT) {
                continue;
            }
            XaGroup blocker = head.group;
            if (blocker == target || (stuck.contains(blocker) && reachesItself(blocker, target, stuck, seen))) {
                return true;
            }
        }
        return false;
    }

    /** Whether everything queued before {@code g}'s commits on their shards is a commit of a group in {@code cycle}. */
    private boolean overtakesOnlyCommitsOf(XaGroup g, List<XaGroup> cycle) {
        for (Entry c : g.commits.values()) {
            for (Entry e : lanes.get(c.unit().shard()).queue) {
                if (e == c) {
                    break;
                }
                if (e.unit().kind() != Kind.XA_COMMIT || !cycle.contains(e.group)) {
                    return false;
                }
            }
        }
        return true;
    }

    private List<ShardCheckpoint> checkpoints() {
        List<ShardCheckpoint> moved = new ArrayList<>();
        for (Lane l : lanes) {
            ShardCheckpoint c = l.ledger.takeIfChanged();
            if (c != null) {
                moved.add(c);
            }
        }
        return moved;
    }

    private Lane lane(int shard) {
        if (shard < 0 || shard >= lanes.size()) {
            throw new IllegalArgumentException("unknown shard index " + shard + " (the sorter has " + lanes.size() + ")");
        }
        return lanes.get(shard);
    }
}
