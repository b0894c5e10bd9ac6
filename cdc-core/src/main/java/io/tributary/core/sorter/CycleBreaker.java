package io.tributary.core.sorter;

import io.tributary.core.sorter.Lane.Entry;
import io.tributary.core.sorter.ShardUnit.Kind;
import io.tributary.core.sorter.XaGroup.Branch;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The waits between XA groups at the heads of the shards, and the breaking of their cycles. A group waits behind
 * another when a commit of the other precedes one of its own on a shard; two XA transactions whose commits cross on
 * two shards (possible only when they do not conflict) wait for each other. Such a cycle is broken by writing one
 * of its groups first: the one with the smallest key among those that overtake only commits of the cycle, written
 * at the largest key among the groups it waits for (the key at which the whole cycle is known), so the choice and
 * its place do not depend on arrival. Part of the {@link GlobalSorter}; not thread-safe.
 *
 * @param <P> payload type of the units
 */
final class CycleBreaker<P> {

    private final List<Lane<P>> lanes;
    private final XaUses<P> uses;
    /** {@link #waitBoundBelow}'s walks so far (each marks the groups it reaches with its number) and its queue. */
    private long walks;
    private final ArrayDeque<XaGroup<P>> walkQueue = new ArrayDeque<>();

    /**
     * @param lanes the sorter's lanes, in shard index order
     * @param uses  the sorter's open XA uses
     */
    CycleBreaker(List<Lane<P>> lanes, XaUses<P> uses) {
        this.lanes = lanes;
        this.uses = uses;
    }

    /**
     * The XA group to write out of its shards' commit order when groups wait for each other in a cycle
     * at the heads of the shards (their commits cross on two shards, which happens only when they do not
     * conflict): among the groups on the cycle, the one with the smallest key that overtakes only commits
     * of the cycle, else the one with the smallest key. {@code null} when there is no cycle, or while a
     * group waiting at a shard's head is not complete yet (it might join a cycle and change the choice).
     */
    XaGroup<P> breaker(java.util.function.Predicate<SortKey> passed) {
        if (uses.isEmpty()) {
            return null;
        }
        List<XaGroup<P>> stuck = new ArrayList<>();
        for (Lane<P> l : lanes) {
            Entry<P> head = l.queue.peekFirst();
            if (head == null || head.unit().kind() != Kind.XA_COMMIT) {
                continue;
            }
            XaGroup<P> g = head.group;
            if (g.ready() || !passed.test(head.key())) {
                continue;
            }
            if (!g.participantsFixed || !g.complete() || !passed.test(g.key())) {
                return null;
            }
            if (!stuck.contains(g)) {
                stuck.add(g);
            }
        }
        List<XaGroup<P>> cycle = stuck.stream()
                .filter(g -> blockedOnlyByStuck(g, stuck) && reachesItself(g, g, stuck, new HashSet<>())).toList();
        if (cycle.isEmpty()) {
            return null;
        }
        return cycle.stream().filter(c -> overtakesOnlyCommitsOf(c, cycle)).min(Comparator.comparing(XaGroup::key))
                .orElseGet(() -> cycle.stream().min(Comparator.comparing(XaGroup<P>::key)).orElseThrow());
    }

    private boolean blockedOnlyByStuck(XaGroup<P> g, List<XaGroup<P>> stuck) {
        for (Entry<P> c : g.commits.values()) {
            Entry<P> head = lanes.get(c.unit().shard()).queue.peekFirst();
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
    private boolean reachesItself(XaGroup<P> from, XaGroup<P> target, List<XaGroup<P>> stuck, Set<XaGroup<P>> seen) {
        if (!seen.add(from)) {
            return false;
        }
        for (Entry<P> c : from.commits.values()) {
            Entry<P> head = lanes.get(c.unit().shard()).queue.peekFirst();
            if (head == null || head == c || head.unit().kind() != Kind.XA_COMMIT) {
                continue;
            }
            XaGroup<P> blocker = head.group;
            if (blocker == target || (stuck.contains(blocker) && reachesItself(blocker, target, stuck, seen))) {
                return true;
            }
        }
        return false;
    }

    /** Whether everything queued before {@code g}'s commits on their shards is a commit of a group in {@code cycle}. */
    private boolean overtakesOnlyCommitsOf(XaGroup<P> g, List<XaGroup<P>> cycle) {
        for (Entry<P> c : g.commits.values()) {
            for (Entry<P> e : lanes.get(c.unit().shard()).queue) {
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

    /** Whether following "waits behind another group's commit at a shard's head" from {@code from} leads to {@code target}. */
    boolean onWaitCycle(XaGroup<P> from, XaGroup<P> target, Set<XaGroup<P>> seen) {
        if (!seen.add(from)) {
            return false;
        }
        for (Map.Entry<Branch, ShardUnit<P>> b : from.prepared.entrySet()) {
            Entry<P> c = from.commits.get(b.getKey());
            Entry<P> head = lanes.get(c != null ? c.unit().shard() : b.getValue().shard()).queue.peekFirst();
            if (head == null || head == c || head.unit().kind() != Kind.XA_COMMIT) {
                continue;
            }
            XaGroup<P> blocker = head.group;
            if (blocker == target || (!blocker.ready() && onWaitCycle(blocker, target, seen))) {
                return true;
            }
        }
        return false;
    }

    /**
     * The smallest key at which {@code g} can be written: the largest {@link #lowerBound} of {@code g} and of every
     * group it waits behind at a shard's head, directly or through others. Written in commit order, {@code g}
     * follows them; written first to break a cycle, it is written at this key (see {@link GlobalSorter}). So a cycle
     * that more input could still close (through a branch whose commit is not read yet) never lets a group
     * overtake what precedes that branch's place: the order does not depend on when that input arrives.
     */
    SortKey waitBound(XaGroup<P> g) {
        SortKey bound = lowerBound(g);
        ArrayDeque<XaGroup<P>> todo = new ArrayDeque<>(List.of(g));
        Set<XaGroup<P>> seen = new HashSet<>(todo);
        while (!todo.isEmpty()) {
            XaGroup<P> from = todo.poll();
            for (Map.Entry<Branch, ShardUnit<P>> b : from.prepared.entrySet()) {
                XaGroup<P> blocker = blockerOf(from, b.getKey(), b.getValue());
                if (blocker == null) {
                    continue;
                }
                if (seen.add(blocker)) {
                    bound = SortKey.max(bound, lowerBound(blocker));
                    todo.add(blocker);
                }
            }
        }
        return bound;
    }

    /**
     * Whether {@link #waitBound} of {@code g} is below {@code key}: the same walk, left as soon as one group's
     * {@link #lowerBound} reaches {@code key} (the sorter's admission check asks this of hundreds of open uses per
     * emission in a catch-up, and nearly all of them reach it at once).
     */
    boolean waitBoundBelow(XaGroup<P> g, SortKey key) {
        if (!lowerBoundBelow(g, key)) {
            return false;
        }
        // the groups seen are those marked with this walk's number, and the queue is kept: the admission check asks
        // this of hundreds of uses per emission, and a set and a queue for each were half the merge thread's
        // allocation in a 4-shard catch-up
        long walk = ++walks;
        g.walkMark = walk;
        ArrayDeque<XaGroup<P>> todo = walkQueue;
        todo.clear();
        for (XaGroup<P> from = g; from != null; from = todo.poll()) {
            for (Map.Entry<Branch, ShardUnit<P>> b : from.prepared.entrySet()) {
                XaGroup<P> blocker = blockerOf(from, b.getKey(), b.getValue());
                if (blocker == null || blocker.walkMark == walk) {
                    continue;
                }
                blocker.walkMark = walk;
                if (!lowerBoundBelow(blocker, key)) {
                    return false;
                }
                todo.add(blocker);
            }
        }
        return true;
    }

    /**
     * The group whose XA commit heads the lane where {@code from}'s branch (prepared as {@code prepare}) waits, when
     * it waits behind one (the walk of {@link #waitBound} goes on from there); null when it waits behind none.
     */
    private XaGroup<P> blockerOf(XaGroup<P> from, Branch branch, ShardUnit<P> prepare) {
        if (!from.waitsFor(branch)) {
            return null;
        }
        Entry<P> commit = from.commits.get(branch);
        Lane<P> lane = lanes.get(commit != null ? commit.unit().shard() : prepare.shard());
        Entry<P> head = lane.queue.peekFirst();
        if (head == null || head == commit || head.unit().kind() != Kind.XA_COMMIT
                || (commit != null && lane.inHeadRun(from, commit))) {
            return null;
        }
        return head.group;
    }

    /** Whether {@link #lowerBound} of {@code g} is below {@code key}, left at the first part of it that is not. */
    private boolean lowerBoundBelow(XaGroup<P> g, SortKey key) {
        boolean any = false;
        for (Map.Entry<Branch, ShardUnit<P>> b : g.prepared.entrySet()) {
            if (!g.waitsFor(b.getKey())) {
                continue;
            }
            Entry<P> commit = g.commits.get(b.getKey());
            SortKey k;
            if (commit != null) {
                k = commit.key();
            } else {
                k = lanes.get(b.getValue().shard()).headOrNext();
            }
            if (k.compareTo(key) >= 0) {
                return false;
            }
            any = true;
        }
        if (!any) {
            throw new IllegalStateException("XA transaction " + g.gtrid + " waits for none of its branches");
        }
        return true;
    }

    /** The smallest key {@code g} can have: its commits read so far, and where its missing commits can still land. */
    SortKey lowerBound(XaGroup<P> g) {
        SortKey k = null;
        for (Map.Entry<Branch, ShardUnit<P>> b : g.prepared.entrySet()) {
            Entry<P> commit = g.commits.get(b.getKey());
            if (!g.waitsFor(b.getKey())) {
                continue;
            }
            if (commit != null) {
                k = k == null ? commit.key() : SortKey.max(k, commit.key());
                continue;
            }
            SortKey missing = lanes.get(b.getValue().shard()).headOrNext();
            k = k == null ? missing : SortKey.max(k, missing);
        }
        return k;
    }
}
