package io.tributary.core.sorter;

import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.sorter.Lane.Entry;
import io.tributary.core.sorter.ShardUnit.Kind;
import io.tributary.core.sorter.XaGroup.Branch;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Merges the units of N shard streams into one global order (ARCHITECTURE.md, invariants 1 to 4).
 *
 * <p><b>Order.</b> Every unit gets a {@link SortKey}: the heartbeat window it falls in (more than ten seconds of
 * commit time past its shard's last heartbeat, a window that follows that time: {@link Lane#staleAfter}), its commit time,
 * its shard index, its position. A unit is emitted once no shard can still produce a unit with a smaller
 * key: every shard has read past it, through a heartbeat after its window or a unit with a key no smaller
 * ({@link Lane#readPast}). A shard at the end of its binlog passes nothing more until its next heartbeat or
 * event; since every shard receives every heartbeat, an idle shard holds the others back by at most one
 * heartbeat interval. Where the binlogs hold no heartbeats (history written while the daemon was down) the
 * commit timestamps alone order, as the shards are read: see docs/architecture.md, "Stretches without
 * heartbeats", and {@link Stretches}, which logs each. Each shard's units are taken in their own order, so
 * per-shard order always holds.
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
 * <p><b>Determinism.</b> Only what every shard has read past is ordered (everything before it has been read),
 * and an XA group that more input could still make emittable holds back what would come after it. Heartbeat
 * values (milliseconds, strictly increasing, shared by all shards) and commit timestamps, both from the binlogs,
 * are the only clocks.
 *
 * <p><b>Checkpoints.</b> Each emission carries, for every shard whose resume point moved, a
 * {@link ShardCheckpoint}: resume at the first unit still pending, skip the ones after it already emitted.
 * A sorter started from such checkpoints drops offered units it is told were written. The prepare and the
 * rollback of a rolled-back branch are pending while its use is open (a restart must rebuild the use with
 * them) and are then recorded as written (a restart must not rebuild a piece of a finished use).
 *
 * <p><b>Parts.</b> This class orders: it offers units to the shards' {@link Lane}s (keys, windows, queues), picks
 * what is emitted next and computes the checkpoints of each emission. {@link XaUses} groups XA branches into the
 * uses of their gtrids ({@link XaGroup}), drops rolled-back branches and gives up missing ones; {@link CycleBreaker}
 * follows the waits between XA groups at the shards' heads and chooses which group breaks a cycle, and at what key.
 *
 * <p>Not thread-safe: one sorter belongs to one thread, which offers units and drains emissions.
 *
 * @param <P> payload type of the units (the buffered events)
 */
public final class GlobalSorter<P> {

    private static final Logger log = LoggerFactory.getLogger(GlobalSorter.class);

    /** What could be emitted next: a shard's head transaction, or a ready XA group. */
    private static final class Candidate<P> {
        private final Entry<P> single;
        private final XaGroup<P> group;
        private final SortKey key;

        Candidate(Entry<P> single, XaGroup<P> group, SortKey key) {
            this.single = single;
            this.group = group;
            this.key = key;
        }

        Entry<P> single() {
            return single;
        }

        XaGroup<P> group() {
            return group;
        }

        SortKey key() {
            return key;
        }
    }

    private final List<Lane<P>> lanes = new ArrayList<>();
    private final XaUses<P> uses;
    private final CycleBreaker<P> cycles;
    /**
     * True when the last {@link #drain} emitted all it could and nothing was offered since: any unit may move its
     * shard past what waits.
     */
    private boolean drained;
    private final java.util.function.Predicate<SortKey> passed = this::passed;
    private final Stretches stretches;
    /**
     * The use that last kept a candidate from being written ({@link #admitted}), asked first the next time: while a
     * catch-up waits for a shard that is behind, the same use keeps the same candidate back drain after drain, and
     * finding it again behind thousands of open uses made each drain cost as much as the walk.
     */
    private XaGroup<P> lastBlocker;
    /** The use whose commit heads each lane (null: none), filled at each {@link #admitted} call. */
    private final XaGroup<?>[] headGroups;
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
            lanes.add(new Lane<>(i, start.get(i)));
        }
        this.uses = new XaUses<>(lanes, xaMaxWait.toMillis());
        this.cycles = new CycleBreaker<>(lanes, uses);
        this.stretches = new Stretches(start.stream().map(ShardCheckpoint::shard).toList());
        this.headGroups = new XaGroup<?>[lanes.size()];
    }

    /** Takes the next unit of one shard, in that shard's binlog order. */
    public void offer(ShardUnit<P> unit) {
        Lane<P> lane = lane(unit.shard());
        if (unit.sequence() <= lane.lastSequence) {
            throw new IllegalArgumentException("shard " + unit.shard() + ": unit " + unit + " does not follow sequence "
                    + lane.lastSequence);
        }
        lane.lastSequence = unit.sequence();
        ShardCheckpoint.Clock before = lane.clock();
        // every unit but a heartbeat moves its shard's running (window, time): a transaction or commit is keyed
        // there, and each one read tells how far the shard has got
        SortKey key = unit.kind() == Kind.HEARTBEAT ? null : lane.advance(unit);
        if (!lane.skip.isEmpty() && lane.skip.remove(unit.key())) {
            // written before the restart: ordered as then, kept in the checkpoint, never again in the output
            lane.ledger.emitted(unit, before);
        } else {
            switch (unit.kind()) {
                case HEARTBEAT -> heartbeat(lane, unit, before);
                case TRANSACTION -> lane.enqueue(unit, key, before);
                case XA_PREPARE -> uses.prepare(lane, unit, before);
                case XA_COMMIT -> uses.commit(lane, unit, key, before);
                case XA_ROLLBACK -> uses.rollback(lane, unit, key, before);
            }
        }
        lane.ledger.clockNow(lane.clock());
        // any unit may move the shards' common progress past what waits
        drained = false;
    }

    private void heartbeat(Lane<P> lane, ShardUnit<P> unit, ShardCheckpoint.Clock before) {
        if (!lane.heartbeat(unit.heartbeat())) {
            log.warn("shard {}: heartbeat {} does not increase on {}; ignored", unit.shard(), unit.heartbeat(),
                    lane.lastHeartbeat);
        }
        lane.ledger.consumed(unit, before);
    }

    /** Emits everything that may be emitted now; returns it in global order. */
    public List<Emission<P>> drain() {
        if (drained) {
            return List.of();
        }
        // what settles XA uses (the shards' progress, the closed heartbeat) does not change while emitting: once
        long closed = Long.MAX_VALUE;
        // before any heartbeat a window is 0; such waits count from the first heartbeat every shard has seen
        long firstHeartbeat = Long.MAX_VALUE;
        for (Lane<P> l : lanes) {
            closed = Math.min(closed, l.lastHeartbeat);
            firstHeartbeat = Math.min(firstHeartbeat, l.firstHeartbeat);
        }
        uses.settle(closed, firstHeartbeat);
        while (step()) {
            // keep emitting
        }
        drained = true;
        assert uses.preparedCountsCurrent() : "the prepared branches counted per shard differ from the open uses'";
        if (out.isEmpty()) {
            return List.of();
        }
        List<Emission<P>> result = new ArrayList<>(out);
        out.clear();
        return result;
    }

    /** Tells {@code action} the payload of every unit queued or prepared and not yet emitted (to free them). */
    public void forEachWaiting(java.util.function.Consumer<? super P> action) {
        for (Lane<P> l : lanes) {
            for (Entry<P> e : l.queue) {
                if (e.unit().payload() != null) {
                    action.accept(e.unit().payload());
                }
            }
        }
        for (XaGroup<P> g : uses.open()) {
            for (ShardUnit<P> u : g.prepared.values()) {
                if (u.payload() != null) {
                    action.accept(u.payload());
                }
            }
        }
    }

    /** Units of shard {@code shard} queued or prepared and not yet emitted ({@link #waiting()} of one shard). */
    public int waiting(int shard) {
        assert uses.preparedCountsCurrent() : "the prepared branches counted per shard differ from the open uses'";
        return lanes.get(shard).queue.size() + uses.preparedOn(shard);
    }

    /** Units queued or prepared and not yet emitted (a measure of what waits). */
    public int waiting() {
        int n = 0;
        for (int i = 0; i < lanes.size(); i++) {
            n += waiting(i);
        }
        return n;
    }

    /**
     * Whether what the sorter holds waits for heartbeats (call after {@link #drain}): a queued unit waits until
     * every shard has read past it, and a shard at the end of its binlog gets there only through a heartbeat;
     * an open XA use waits for the shards' clocks, heartbeats included. False when nothing is held: then no
     * heartbeat changes what is written, and the shards need beats only to show they are alive.
     */
    public boolean needsHeartbeats() {
        for (Lane<P> l : lanes) {
            if (!l.queue.isEmpty()) {
                return true;
            }
        }
        return !uses.isEmpty();
    }

    /**
     * How far shard {@code shard} has read, in commit time (microseconds): the later of its last heartbeat (a
     * millisecond value of the heartbeat writer's clock) and its running commit time. For pacing the readers only;
     * the order never depends on it.
     */
    public long progressMicros(int shard) {
        Lane<P> l = lane(shard);
        long beat = l.lastHeartbeat > Long.MAX_VALUE / 1000 ? Long.MAX_VALUE : l.lastHeartbeat * 1000;
        return Math.max(beat, l.effTime);
    }

    /**
     * The shard the others wait for: the one least far in commit time ({@link #progressMicros}; the lowest index
     * among equals). While a backlog is read, reading the others further only fills the buffer; reading this one
     * lets what waits be written.
     */
    public int furthestBehind() {
        int behind = 0;
        long least = Long.MAX_VALUE;
        for (int i = 0; i < lanes.size(); i++) {
            long p = progressMicros(i);
            if (p < least) {
                least = p;
                behind = i;
            }
        }
        return behind;
    }

    /** What waits and why, for logs and diagnostics: each shard's head and last heartbeat, and the open XA groups. */
    public String describeWaiting() {
        StringBuilder b = new StringBuilder();
        for (Lane<P> l : lanes) {
            Entry<P> head = l.queue.peekFirst();
            b.append("shard ").append(l.shard).append(": hb=").append(l.lastHeartbeat).append(" queued=")
                    .append(l.queue.size()).append(" head=").append(head == null ? "-" : head.unit().key() + " " + head.key())
                    .append('\n');
        }
        for (XaGroup<P> g : uses.open()) {
            b.append("xa ").append(g.gtrid).append(": prepared=").append(g.prepared.keySet()).append(" committed=")
                    .append(g.commits.keySet()).append(" fixed=").append(g.participantsFixed).append(" firstCommitWindow=")
                    .append(g.firstCommitWindow).append(" ready=").append(g.ready()).append('\n');
        }
        return b.toString();
    }

    private boolean step() {
        // loops, not streams: this runs once per emission
        long closed = Long.MAX_VALUE;
        for (Lane<P> l : lanes) {
            closed = Math.min(closed, l.lastHeartbeat);
        }
        stretches.closed(closed);
        // Only what every shard has read past is ordered (a closed window, or a key below every shard's progress
        // in commit time): everything before it has been read, so the choice below cannot depend on what arrives
        // later.
        Candidate<P> best = null;
        for (Lane<P> l : lanes) {
            Entry<P> head = l.queue.peekFirst();
            if (head != null && head.unit().kind() == Kind.TRANSACTION
                    && (best == null || head.key().compareTo(best.key()) < 0) && passed(head.key())) {
                best = new Candidate<>(head, null, head.key());
            }
        }
        // a ready group's commits head their lanes: look there, not through every open group
        for (Lane<P> l : lanes) {
            Entry<P> head = l.queue.peekFirst();
            if (head == null || head.unit().kind() != Kind.XA_COMMIT) {
                continue;
            }
            XaGroup<P> g = head.group;
            if (g.ready() && (best == null || g.key().compareTo(best.key()) < 0) && passed(g.key())) {
                best = new Candidate<>(null, g, g.key());
            }
        }
        XaGroup<P> breaker = cycles.breaker(passed);
        // a cycle is broken at the key of the last group it waits for, when the whole cycle is known; like
        // every candidate, only once every shard has read past that key
        SortKey breakerKey = breaker == null ? null : cycles.waitBound(breaker);
        if (breaker != null && (best == null || breakerKey.compareTo(best.key()) < 0) && passed(breakerKey)) {
            best = new Candidate<>(null, breaker, breakerKey);
        }
        if (best == null || !admitted(best, breaker)) {
            return false;
        }
        stretches.ordered(best.key(), closed, best.single() != null ? best.single().unit()
                : best.group().commits.values().iterator().next().unit());
        if (best.group() == null) {
            emitSingle(best.single());
        } else if (best.group() == breaker) {
            log.warn("XA transaction {} waits, across shards, for XA transactions that wait for it (their commits"
                    + " cross, so they do not conflict); writing it first, ahead of its shards' commit order",
                    ShardUnit.gtridText(breaker.gtrid));
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
    /**
     * Whether every shard has read past {@code k}: it can no longer produce a unit with a smaller key. A closed
     * window is passed by all; within the open window, by commit time, shard index and position.
     */
    private boolean passed(SortKey k) {
        for (Lane<P> l : lanes) {
            if (!l.readPast(k)) {
                return false;
            }
        }
        return true;
    }

    private boolean admitted(Candidate<P> candidate, XaGroup<P> breaker) {
        boolean admitted = uses.shaped() ? admittedByLanes(candidate, breaker) : admittedByWalk(candidate, breaker);
        assert uses.shapesCurrent() : "an open XA use is filed under a shape it no longer has";
        assert admitted == admittedByWalk(candidate, breaker)
                : "the lanes' answer differs from the walk over every open use for " + candidate.key();
        return admitted;
    }

    /**
     * {@link #admitted}, asking only the uses that every lane they wait on lets through. A use that does not head a
     * lane keeps the candidate back only if, on each lane it waits on, the head is none or the commit of another use
     * that could itself come first (not ready, not the candidate's or the breaker's, its wait bound below the
     * candidate: {@link #canPrecede} and {@link CycleBreaker#waitBoundBelow} stop at any other head), and its missing
     * commits' lanes are still below the candidate ({@link CycleBreaker#lowerBound}). Those lanes are found once per
     * call; the uses are filed by the lanes they wait on ({@link XaUses#mayKeepBack}). While a catch-up waits for a
     * shard that is behind, thousands of uses wait on lanes that let none through, and the walk over all of them per
     * emission was the 4-shard crawl (docs/benchmarks.md, issue 18). The uses heading a lane are asked as before.
     * With assertions on, every answer is checked against {@link #admittedByWalk}.
     */
    private boolean admittedByLanes(Candidate<P> candidate, XaGroup<P> breaker) {
        SortKey key = candidate.key();
        long admitting = 0;
        long below = 0;
        for (int i = 0; i < headGroups.length; i++) {
            Lane<P> l = lanes.get(i);
            Entry<P> head = l.queue.peekFirst();
            headGroups[i] = head == null ? null : head.group;
            if (l.headOrNext().compareTo(key) < 0) {
                below |= 1L << i;
            }
            if (head == null) {
                admitting |= 1L << i;
            } else if (head.unit().kind() == Kind.XA_COMMIT) {
                XaGroup<P> h = head.group;
                if (h != candidate.group() && h != breaker && !h.ready() && cycles.waitBoundBelow(h, key)) {
                    admitting |= 1L << i;
                }
            }
        }
        for (int i = 0; i < headGroups.length; i++) {
            @SuppressWarnings("unchecked")
            XaGroup<P> g = (XaGroup<P>) headGroups[i];
            // a use heading several lanes is asked once, at the first
            if (g != null && !headsALane(g, i) && uses.finishesBefore(g, key) && keepsBack(g, candidate, breaker)) {
                lastBlocker = g;
                return false;
            }
        }
        XaGroup<P> last = lastBlocker;
        if (last != null && !headsALane(last) && uses.finishesBefore(last, key) && keepsBack(last, candidate, breaker)) {
            return false;
        }
        XaGroup<P> blocker = uses.mayKeepBack(key, admitting, below,
                g -> g != last && !headsALane(g) && keepsBack(g, candidate, breaker));
        lastBlocker = blocker;
        return blocker == null;
    }

    /** {@link #admitted} by asking every open use that finishes first before the candidate. */
    private boolean admittedByWalk(Candidate<P> candidate, XaGroup<P> breaker) {
        // a ready use's commits head their lanes, so only the uses whose commit heads a lane can be ready: the
        // others are known not to be without asking (ready() walks the lanes; thousands of uses are open at once
        // while a catch-up waits for a shard that is behind)
        for (int i = 0; i < headGroups.length; i++) {
            Entry<P> head = lanes.get(i).queue.peekFirst();
            headGroups[i] = head == null ? null : head.group;
        }
        // only the uses that finish before the candidate; the answer does not depend on the order they are asked
        // in, so the one that kept a candidate back last time is asked first
        XaGroup<P> last = lastBlocker;
        if (last != null && uses.finishesBefore(last, candidate.key()) && keepsBack(last, candidate, breaker)) {
            return false;
        }
        for (XaGroup<P> g : uses.finishingBefore(candidate.key())) {
            if (g != last && keepsBack(g, candidate, breaker)) {
                lastBlocker = g;
                return false;
            }
        }
        lastBlocker = null;
        return true;
    }

    /** Whether the open use {@code g}, not written yet, could still come before the candidate. */
    private boolean keepsBack(XaGroup<P> g, Candidate<P> candidate, XaGroup<P> breaker) {
        if (g == candidate.group() || g == breaker || g.commits.isEmpty()) {
            return false;
        }
        // with hundreds of groups open in a catch-up most lie after the candidate: a group's wait bound is no
        // smaller than its lower bound, which is no smaller than its first commit or rollback (the commit in its
        // first commit window is always one it waits for). Compared before ready(), which walks the lanes.
        SortKey first = g.firstFinish();
        if ((first != null && candidate.key().compareTo(first) <= 0) || (headsALane(g) && g.ready())) {
            return false;
        }
        return cycles.waitBoundBelow(g, candidate.key()) && canPrecede(g, candidate, breaker, new HashSet<>());
    }

    /** Whether a commit of {@code g} heads a lane, as of the current {@link #admitted} call. */
    private boolean headsALane(XaGroup<P> g) {
        return headsALane(g, headGroups.length);
    }

    /** Whether a commit of {@code g} heads one of the lanes before {@code lane}, as of the current call. */
    private boolean headsALane(XaGroup<P> g, int lane) {
        for (int i = 0; i < lane; i++) {
            if (headGroups[i] == g) {
                return true;
            }
        }
        return false;
    }

    private boolean canPrecede(XaGroup<P> g, Candidate<P> candidate, XaGroup<P> breaker, Set<XaGroup<P>> visiting) {
        if (!visiting.add(g)) {
            // a cycle: while not all cycles at the shards' heads are known it may still be broken in g's
            // favour; once they are, the group chosen to break them is emittable now, and g is not it
            return breaker == null;
        }
        for (Map.Entry<Branch, ShardUnit<P>> b : g.prepared.entrySet()) {
            if (!g.waitsFor(b.getKey())) {
                continue;
            }
            Entry<P> commit = g.commits.get(b.getKey());
            Lane<P> lane = lanes.get(commit != null ? commit.unit().shard() : b.getValue().shard());
            Entry<P> head = lane.queue.peekFirst();
            if (head == null || head == commit || (commit != null && lane.inHeadRun(g, commit))) {
                continue;
            }
            if (head == candidate.single() || head.unit().kind() == Kind.TRANSACTION) {
                return false; // behind the candidate, or behind something emittable now, which comes after it
            }
            XaGroup<P> blocker = head.group;
            if (blocker == candidate.group() || blocker == breaker || blocker.ready()) {
                return false;
            }
            // g may still go first to break a cycle it is on, unless the cycles are all known (a breaker was
            // chosen over every group waiting at a shard's head) and it was not picked
            if (!canPrecede(blocker, candidate, breaker, visiting)
                    && (breaker != null || !cycles.onWaitCycle(g, g, new HashSet<>()))) {
                return false;
            }
        }
        return true;
    }

    private void emitSingle(Entry<P> e) {
        Lane<P> lane = lanes.get(e.unit().shard());
        lane.queue.pollFirst();
        lane.ledger.emitted(e.unit());
        out.add(new Emission.Single<>(e.unit(), checkpoints()));
    }

    private void emitGroup(XaGroup<P> g, boolean outOfOrder) {
        List<ShardUnit<P>> branches = new ArrayList<>();
        List<ShardUnit<P>> commits = new ArrayList<>();
        for (Map.Entry<Branch, ShardUnit<P>> b : g.prepared.entrySet()) {
            Entry<P> c = g.commits.get(b.getKey());
            if (c == null) {
                continue; // abandoned
            }
            branches.add(b.getValue());
            commits.add(c.unit());
            Lane<P> lane = lanes.get(c.unit().shard());
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
        uses.written(g);
        out.add(new Emission.Distributed<>(g.gtrid, branches, commits, abandoned, outOfOrder, checkpoints()));
    }

    /** The checkpoint of every shard whose resume point moved since the last emission, in shard index order. */
    private List<ShardCheckpoint> checkpoints() {
        List<ShardCheckpoint> moved = new ArrayList<>();
        for (Lane<P> l : lanes) {
            ShardCheckpoint c = l.ledger.takeIfChanged();
            if (c != null) {
                moved.add(c);
            }
        }
        return moved;
    }

    private Lane<P> lane(int shard) {
        if (shard < 0 || shard >= lanes.size()) {
            throw new IllegalArgumentException("unknown shard index " + shard + " (the sorter has " + lanes.size() + ")");
        }
        return lanes.get(shard);
    }
}
