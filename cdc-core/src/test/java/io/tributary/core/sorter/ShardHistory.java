package io.tributary.core.sorter;

import io.tributary.core.event.XaXid;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.sorter.ShardUnit.Kind;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;

/**
 * Seeded, generated binlogs of N shards that lived through one common timeline: single-shard
 * transactions, XA transactions over 2..N shards (every branch prepares before any commits; some roll
 * back; some branches commit long after the others), and a heartbeat written to every shard every
 * {@code heartbeatMs} with a little jitter per shard. Every other XA transaction has the same xid (empty
 * bqual) on all its shards, as {@code XA START 'x'} on each shard gives. Optionally an XA transaction uses
 * the gtrid of an earlier one again, as MySQL and MariaDB allow (see {@link Reuse}). Each shard's units are in
 * its commit order, with positions {@code bin.000001:<offset>}. Payloads are the unit keys, so outputs compare as
 * strings.
 */
final class ShardHistory {

    /**
     * When an XA transaction may take the gtrid of an earlier one. A server accepts an xid again once its
     * transaction has finished on that server; the reuse is told apart from a late prepare of the earlier use
     * only if it starts more than {@link #REUSE_AFTER_MICROS} after a commit or rollback of that use (a reuse
     * closer to it is ambiguous from the binlogs, README, and never generated).
     */
    enum Reuse {
        /** Every gtrid is used once. */
        NONE,
        /** Once every earlier use of the gtrid has finished on all its shards. */
        FINISHED,
        /**
         * Also while an earlier use is still prepared on other shards: on each shard of the new use, every earlier
         * use has finished there, or never was there and has finished on some shard.
         */
        WHILE_PREPARED
    }

    /** A transaction of the timeline, for the invariant checks; {@code gtrid} is the xid's, for XA. */
    record Txn(String name, String gtrid, List<Integer> shards, boolean xa, boolean rolledBack, List<Long> commitTimes) { }

    /**
     * How long after an XA transaction finished its gtrid may be used again: beyond the heartbeat after next (the
     * reuse is then told apart from a late prepare; closer, it cannot be).
     */
    private static final long REUSE_AFTER_MICROS = 250_000;

    final int shardCount;
    final List<List<ShardUnit<String>>> units = new ArrayList<>();
    final List<Txn> transactions = new ArrayList<>();

    /** The first committed XA transaction with a branch whose commit the history lost, or null. */
    Txn firstWithLostCommit() {
        return transactions.stream()
                .filter(t -> t.xa() && !t.rolledBack() && t.commitTimes().size() < t.shards().size())
                .findFirst().orElse(null);
    }
    final long heartbeatMs;

    private ShardHistory(int shardCount, long heartbeatMs) {
        this.shardCount = shardCount;
        this.heartbeatMs = heartbeatMs;
    }

    /**
     * @param crossingXa allow two XA transactions to commit in opposite orders on two shards
     * @param lostCommit let one XA branch never commit (a coordinator crash)
     * @param reuse      when an XA transaction may take the gtrid of an earlier one
     */
    static ShardHistory generate(long seed, int shards, int transactions, boolean secondsOnlyTimestamps,
                                 boolean crossingXa, boolean lostCommit, Reuse reuse) {
        return generate(seed, shards, transactions, secondsOnlyTimestamps, crossingXa, lostCommit, reuse, 40_000);
    }

    /** The same, with transactions up to {@code maxGapMicros} apart (40 ms above; a busy cluster is denser). */
    static ShardHistory generate(long seed, int shards, int transactions, boolean secondsOnlyTimestamps,
                                 boolean crossingXa, boolean lostCommit, Reuse reuse, int maxGapMicros) {
        Random r = new Random(seed);
        ShardHistory h = new ShardHistory(shards, 100);
        // events on each shard keyed by real time in microseconds
        List<TreeMap<Long, ShardUnit<String>>> timeline = new ArrayList<>();
        for (int s = 0; s < shards; s++) {
            timeline.add(new TreeMap<>());
        }
        long now = 1_700_000_000_000_000L;
        int lost = lostCommit ? r.nextInt(Math.max(1, transactions / 4)) : -1;
        int xaCount = 0;
        // per XA gtrid: for each transaction that used it, when it commits or rolls back on each of its shards
        Map<String, List<Map<Integer, Long>>> finishedAt = new LinkedHashMap<>();
        for (int t = 0; t < transactions; t++) {
            now += 1 + r.nextInt(maxGapMicros);
            if (r.nextInt(4) != 0 || shards < 2) {
                int s = r.nextInt(shards);
                long ts = free(timeline.get(s), now);
                String name = "T" + t;
                timeline.get(s).put(ts, unit(s, Kind.TRANSACTION, ts, null, name, secondsOnlyTimestamps));
                h.transactions.add(new Txn(name, null, List.of(s), false, false, List.of(ts)));
            } else {
                List<Integer> branches = new ArrayList<>();
                for (int s = 0; s < shards; s++) {
                    if (branches.size() < 2 || r.nextBoolean()) {
                        branches.add(s);
                    }
                }
                Collections.shuffle(branches, r);
                branches = new ArrayList<>(branches.subList(0, Math.max(2, r.nextInt(branches.size()) + 1)));
                branches.sort(null);
                String name = "X" + t;
                String gtrid = reuse != Reuse.NONE && r.nextInt(3) == 0
                        ? reusable(finishedAt, branches, now, reuse).orElse(name) : name;
                // every other one uses the same xid (empty bqual) on each shard, as XA START 'x' does by hand
                boolean sameXid = t % 2 == 0;
                boolean rollback = r.nextInt(6) == 0;
                long prepareAt = now;
                for (int s : branches) {
                    long ts = free(timeline.get(s), prepareAt += 1 + r.nextInt(3_000));
                    timeline.get(s).put(ts, unit(s, Kind.XA_PREPARE, ts, xid(gtrid, s, sameXid), name + "-p" + s, secondsOnlyTimestamps));
                }
                // commits: after all prepares; sometimes much later (other transactions and heartbeats in between)
                long commitAt = prepareAt + 1 + r.nextInt(r.nextInt(5) == 0 ? 400_000 : 20_000);
                List<Long> commitTimes = new ArrayList<>();
                Map<Integer, Long> finished = new HashMap<>();
                for (int s : branches) {
                    finished.put(s, Long.MAX_VALUE); // until it commits or rolls back
                }
                List<Integer> order = new ArrayList<>(branches);
                if (crossingXa && xaCount % 2 == 1) {
                    Collections.reverse(order);
                }
                // reusing a gtrid while it is still prepared needs a use whose last branch commits long after its first
                long lastLate = reuse == Reuse.WHILE_PREPARED && r.nextInt(4) == 0 ? REUSE_AFTER_MICROS + r.nextInt(600_000) : 0;
                for (int s : order) {
                    if (s == order.get(order.size() - 1)) {
                        commitAt += lastLate;
                    }
                    long ts = free(timeline.get(s), commitAt += 1 + r.nextInt(r.nextInt(3) == 0 ? 150_000 : 5_000));
                    if (xaCount == lost && s == order.get(order.size() - 1) && !rollback) {
                        continue; // this branch never commits
                    }
                    timeline.get(s).put(ts, unit(s, rollback ? Kind.XA_ROLLBACK : Kind.XA_COMMIT, ts, xid(gtrid, s, sameXid),
                            name + (rollback ? "-r" : "-c") + s, secondsOnlyTimestamps));
                    commitTimes.add(ts);
                    finished.put(s, ts);
                }
                finishedAt.computeIfAbsent(gtrid, g -> new ArrayList<>()).add(finished);
                h.transactions.add(new Txn(name, gtrid, branches, true, rollback, commitTimes));
                xaCount++;
            }
        }
        long end = now + 2_000_000;
        for (long hb = 1_700_000_000_000L + h.heartbeatMs; hb * 1000 < end; hb += h.heartbeatMs) {
            for (int s = 0; s < shards; s++) {
                long ts = free(timeline.get(s), hb * 1000 + r.nextInt(300));
                ShardUnit<String> u = new ShardUnit<>(s, 0, Kind.HEARTBEAT, ts, null, hb, "hb" + hb + "@" + s,
                        ShardPosition.at("x", 4), ShardPosition.at("x", 4), null);
                timeline.get(s).put(ts, u);
            }
        }
        for (int s = 0; s < shards; s++) {
            List<ShardUnit<String>> list = new ArrayList<>();
            long offset = 4;
            for (ShardUnit<String> u : timeline.get(s).values()) {
                long next = offset + 100;
                list.add(new ShardUnit<>(s, offset, u.kind(), u.commitTimeMicros(), u.xid(), u.heartbeat(), u.key(),
                        ShardPosition.at("bin.000001", offset), ShardPosition.at("bin.000001", next), u.key()));
                offset = next;
            }
            h.units.add(list);
        }
        return h;
    }

    /**
     * The most recent gtrid a transaction on {@code shards} starting at {@code now} may use again: with
     * {@link Reuse#FINISHED}, every earlier use committed or rolled back on all its shards at least
     * {@link #REUSE_AFTER_MICROS} before; with {@link Reuse#WHILE_PREPARED}, on each of {@code shards} that long
     * before, or, on a shard it never was on, on its first shard to finish that long before (it may still be
     * prepared elsewhere).
     */
    private static Optional<String> reusable(Map<String, List<Map<Integer, Long>>> finishedAt, List<Integer> shards,
                                             long now, Reuse reuse) {
        String found = null;
        String stillPrepared = null;
        for (Map.Entry<String, List<Map<Integer, Long>>> gtrid : finishedAt.entrySet()) {
            // (a branch that never finishes is at Long.MAX_VALUE: compare without adding to it)
            long before = now - REUSE_AFTER_MICROS;
            boolean free = gtrid.getValue().stream().allMatch(at -> reuse == Reuse.FINISHED
                    ? Collections.max(at.values()) < before
                    : shards.stream().allMatch(s -> at.getOrDefault(s, Collections.min(at.values())) < before));
            if (free) {
                found = gtrid.getKey();
                if (gtrid.getValue().stream().anyMatch(at -> Collections.max(at.values()) >= now)) {
                    stillPrepared = gtrid.getKey();
                }
            }
        }
        // the rarer case first: most earlier uses have finished everywhere long before
        return Optional.ofNullable(stillPrepared != null ? stillPrepared : found);
    }

    private static long free(TreeMap<Long, ?> timeline, long ts) {
        while (timeline.containsKey(ts)) {
            ts++;
        }
        return ts;
    }

    private static ShardUnit<String> unit(int shard, Kind kind, long ts, XaXid xid, String key, boolean secondsOnly) {
        long commit = secondsOnly ? ts / 1_000_000 * 1_000_000 : ts;
        return new ShardUnit<>(shard, 0, kind, commit, xid, 0, key, ShardPosition.at("x", 4), ShardPosition.at("x", 4),
                null);
    }

    private static XaXid xid(String gtrid, int shard, boolean sameOnEveryShard) {
        return new XaXid(1, gtrid.getBytes(StandardCharsets.US_ASCII),
                (sameOnEveryShard ? "" : "b" + shard).getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * The same timeline without its XA transactions: every shard keeps its single-shard transactions and
     * heartbeats, at their positions.
     */
    ShardHistory singlesOnly() {
        ShardHistory h = new ShardHistory(shardCount, heartbeatMs);
        for (List<ShardUnit<String>> list : units) {
            h.units.add(list.stream().filter(u -> u.kind() == Kind.TRANSACTION || u.kind() == Kind.HEARTBEAT).toList());
        }
        transactions.stream().filter(t -> !t.xa()).forEach(h.transactions::add);
        return h;
    }

    /**
     * The same binlogs with, after about one heartbeat in eight, a heartbeat that does not increase (the same
     * value again, or the one before), as a clock stepping back on a server writes; a sorter ignores them.
     */
    ShardHistory withRepeatedHeartbeats(Random r) {
        ShardHistory h = new ShardHistory(shardCount, heartbeatMs);
        for (List<ShardUnit<String>> list : units) {
            List<ShardUnit<String>> copy = new ArrayList<>();
            long previous = 0;
            for (ShardUnit<String> u : list) {
                copy.add(u);
                if (u.kind() == Kind.HEARTBEAT && r.nextInt(8) == 0) {
                    long stale = previous > 0 && r.nextBoolean() ? previous : u.heartbeat();
                    String key = "hb" + stale + "@" + u.shard() + "-again" + u.sequence();
                    long at = u.sequence() + 50;
                    copy.add(new ShardUnit<>(u.shard(), at, Kind.HEARTBEAT, u.commitTimeMicros(), null, stale, key,
                            ShardPosition.at("bin.000001", at), u.end(), key));
                }
                if (u.kind() == Kind.HEARTBEAT) {
                    previous = u.heartbeat();
                }
            }
            h.units.add(copy);
        }
        h.transactions.addAll(transactions);
        return h;
    }

    /**
     * The same history, where shard 0's binlog still begins with an earlier daemon's heartbeat, an hour before the
     * first of this history, and a transaction ({@code OLD}) after it; the other shards' binlogs no longer hold that
     * heartbeat (purged with their older files), as a first start with {@code start: earliest} finds them.
     */
    ShardHistory withAnOlderHeartbeatOnShardZero() {
        long first = units.get(0).stream().filter(u -> u.kind() == Kind.HEARTBEAT).mapToLong(ShardUnit::heartbeat).min()
                .orElse(1_700_000_000_000L);
        long old = first - 3_600_000;
        long ts = (old + 1_000) * 1000;
        ShardHistory h = new ShardHistory(shardCount, heartbeatMs);
        List<ShardUnit<String>> zero = new ArrayList<>();
        zero.add(new ShardUnit<>(0, 1, Kind.HEARTBEAT, old * 1000, null, old, "hb-old@0", ShardPosition.at("bin.000001", 1),
                ShardPosition.at("bin.000001", 2), "hb-old@0"));
        zero.add(new ShardUnit<>(0, 2, Kind.TRANSACTION, ts, null, 0, "OLD", ShardPosition.at("bin.000001", 2),
                ShardPosition.at("bin.000001", 4), "OLD"));
        zero.addAll(units.get(0));
        h.units.add(zero);
        h.units.addAll(units.subList(1, units.size()));
        h.transactions.add(new Txn("OLD", null, List.of(0), false, false, List.of(ts)));
        h.transactions.addAll(transactions);
        return h;
    }

    /** Whether every shard's binlog holds heartbeat {@code beat} (a cut across all of them). */
    boolean onEveryShard(long beat) {
        if (commonBeats == null) {
            java.util.Set<Long> common = null;
            for (List<ShardUnit<String>> list : units) {
                java.util.Set<Long> here = new java.util.HashSet<>();
                list.stream().filter(u -> u.kind() == Kind.HEARTBEAT).forEach(u -> here.add(u.heartbeat()));
                if (common == null) {
                    common = here;
                } else {
                    common.retainAll(here);
                }
            }
            commonBeats = common;
        }
        return commonBeats.contains(beat);
    }

    private java.util.Set<Long> commonBeats;

    /**
     * The same timeline with one or two stretches without heartbeats (the daemon was down: nothing wrote them), as
     * a catch-up reads it: every shard's heartbeats in each stretch are gone. In a stretch one shard may also take
     * no single-shard transactions (an idle shard, passed only through the heartbeat after the stretch), and each
     * shard's clock may be off by up to {@code skewMicros} (the shards' units keep their order; their commit
     * timestamps shift).
     */
    ShardHistory withStretchesWithoutHeartbeats(Random r, long skewMicros) {
        List<Long> beats = units.get(0).stream().filter(u -> u.kind() == Kind.HEARTBEAT).map(ShardUnit::heartbeat)
                .toList();
        ShardHistory h = new ShardHistory(shardCount, heartbeatMs);
        if (beats.size() < 8) {
            h.units.addAll(units);
            h.transactions.addAll(transactions);
            return h;
        }
        List<long[]> stretches = new ArrayList<>();
        int count = 1 + r.nextInt(2);
        for (int i = 0; i < count; i++) {
            // the last heartbeats stay: after a catch-up the daemon beats again
            int from = r.nextInt(beats.size() - 5);
            int to = Math.min(beats.size() - 5, from + 1 + r.nextInt(Math.max(1, beats.size() / 2)));
            stretches.add(new long[] {beats.get(from), beats.get(to)});
        }
        int idle = r.nextBoolean() ? r.nextInt(shardCount) : -1;
        long[] skew = new long[shardCount];
        for (int s = 0; s < shardCount; s++) {
            skew[s] = skewMicros == 0 ? 0 : r.nextLong(-skewMicros, skewMicros + 1);
        }
        java.util.Set<String> dropped = new java.util.HashSet<>();
        for (List<ShardUnit<String>> list : units) {
            List<ShardUnit<String>> copy = new ArrayList<>();
            for (ShardUnit<String> u : list) {
                long ms = u.kind() == Kind.HEARTBEAT ? u.heartbeat() : u.commitTimeMicros() / 1000;
                boolean inStretch = stretches.stream().anyMatch(st -> ms >= st[0] && ms <= st[1]);
                if (inStretch && (u.kind() == Kind.HEARTBEAT || (u.kind() == Kind.TRANSACTION && u.shard() == idle))) {
                    if (u.kind() == Kind.TRANSACTION) {
                        dropped.add(u.key());
                    }
                    continue;
                }
                long ts = u.kind() == Kind.HEARTBEAT ? u.commitTimeMicros() : u.commitTimeMicros() + skew[u.shard()];
                copy.add(new ShardUnit<>(u.shard(), u.sequence(), u.kind(), ts, u.xid(), u.heartbeat(), u.key(),
                        u.start(), u.end(), u.payload()));
            }
            h.units.add(copy);
        }
        transactions.stream().filter(t -> !dropped.contains(t.name())).forEach(h.transactions::add);
        return h;
    }

    /**
     * The same timeline as a catch-up after an outage reads it: no shard has a heartbeat before the last
     * {@code kept} of the timeline (nothing wrote them while the daemon was down; it beats again once started).
     */
    ShardHistory afterAnOutage(int kept) {
        ShardHistory h = new ShardHistory(shardCount, heartbeatMs);
        long last = units.get(0).stream().filter(u -> u.kind() == Kind.HEARTBEAT).mapToLong(ShardUnit::heartbeat).max()
                .orElse(0);
        for (List<ShardUnit<String>> list : units) {
            h.units.add(list.stream().filter(u -> u.kind() != Kind.HEARTBEAT || u.heartbeat() > last - kept * heartbeatMs)
                    .toList());
        }
        h.transactions.addAll(transactions);
        return h;
    }

    /** The commit-order position of each unit key on its shard. */
    int indexOn(int shard, String key) {
        List<ShardUnit<String>> list = units.get(shard);
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i).key().equals(key)) {
                return i;
            }
        }
        return -1;
    }
}
