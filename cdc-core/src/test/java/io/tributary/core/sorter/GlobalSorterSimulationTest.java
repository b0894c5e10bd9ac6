package io.tributary.core.sorter;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.sorter.ShardHistory.Reuse;
import io.tributary.core.sorter.ShardUnit.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Seeded simulations of the sorter over generated shard histories (Kafka's RaftEventSimulationTest
 * style): each seed builds a history, feeds it in random interleavings, and checks the invariants of
 * ARCHITECTURE.md by name on the output. A failing seed is printed in the test name to replay it.
 */
class GlobalSorterSimulationTest {

    private static final Duration MAX_WAIT = Duration.ofSeconds(60);

    @TestFactory
    Stream<DynamicTest> invariantsHoldOnGeneratedHistories() {
        return LongStream.range(0, Long.getLong("tributary.sorter.seeds", 60))
                .mapToObj(seed -> DynamicTest.dynamicTest("seed " + seed, () -> invariantsHold(seed, Reuse.NONE)));
    }

    /** The same, with XA transactions that use the gtrid of an earlier one again (issue 4). */
    @TestFactory
    Stream<DynamicTest> invariantsHoldWhenXidsAreUsedAgain() {
        return LongStream.range(0, Long.getLong("tributary.sorter.seeds", 60))
                .mapToObj(seed -> DynamicTest.dynamicTest("seed " + seed, () -> invariantsHold(seed, Reuse.FINISHED)));
    }

    /**
     * The same, with gtrids used again also while an earlier use is still prepared on other shards (on the shards
     * of the new use the earlier one has finished, as a server requires; issue 4).
     */
    @TestFactory
    Stream<DynamicTest> invariantsHoldWhenXidsAreUsedAgainWhileStillPrepared() {
        return LongStream.range(0, Long.getLong("tributary.sorter.seeds", 60))
                .mapToObj(seed -> DynamicTest.dynamicTest("seed " + seed, () -> invariantsHold(seed, Reuse.WHILE_PREPARED)));
    }

    /**
     * Issue 18: the same, over histories with stretches without heartbeats (history written while the daemon was
     * down), an idle shard in a stretch now and then, and shard clocks up to 200 ms apart: the stretches are ordered
     * by commit timestamps, and every invariant holds, determinism (whatever the arrival interleaving) included.
     */
    @TestFactory
    Stream<DynamicTest> invariantsHoldAcrossStretchesWithoutHeartbeats() {
        return LongStream.range(0, Long.getLong("tributary.sorter.seeds", 60))
                .mapToObj(seed -> DynamicTest.dynamicTest("seed " + seed, () -> invariantsHold(seed, Reuse.NONE,
                        h -> h.withStretchesWithoutHeartbeats(new Random(seed ^ 0x5eed), 200_000))));
    }

    /**
     * Issue 18: the same over dense catch-ups, as a busy cluster's outage leaves them: 4 shards, a transaction
     * every millisecond on average (a quarter of them XA, some crossing, some rolled back), MariaDB's whole-second
     * commit timestamps and no heartbeat until the end, so hundreds of XA uses are open at a time. Every invariant
     * holds, whatever the arrival. No commit is lost here (a branch is given up after {@code xaMaxWait} of
     * heartbeat time, and the catch-up has none), and gtrids are not used again: the generator reuses one 250 ms
     * after its last commit, which only heartbeats tell apart; in a stretch without them a use is told from the
     * next only beyond {@link XaGroup#CLOCK_SKEW_MICROS} (docs/architecture.md), and such histories stitch two uses
     * into one, as before.
     */
    @TestFactory
    Stream<DynamicTest> invariantsHoldOverDenseCatchUps() {
        return LongStream.range(0, Long.getLong("tributary.sorter.denseSeeds", 8))
                .mapToObj(seed -> DynamicTest.dynamicTest("seed " + seed, () -> {
                    Random r = new Random(seed);
                    ShardHistory h = ShardHistory.generate(seed, 4, 1_500 + r.nextInt(1_000), true, true, false,
                            Reuse.NONE, 2_000).afterAnOutage(5);
                    everyInvariantHolds(h, seed, r);
                }));
    }

    /**
     * Issue 18: the same over longer histories (10 to 30 s, so stretches without heartbeats reach past
     * {@link Lane#STALE_WINDOW_MS}) where shard 0's binlog still begins with an earlier daemon's heartbeat, an hour
     * old, that the other shards' binlogs no longer hold: windows follow commit times in the stretches, and every
     * invariant holds.
     */
    @TestFactory
    Stream<DynamicTest> invariantsHoldWhereOneShardStillHoldsAnOlderHeartbeat() {
        return LongStream.range(0, Long.getLong("tributary.sorter.seeds", 60) / 2)
                .mapToObj(seed -> DynamicTest.dynamicTest("seed " + seed, () -> {
                    Random r = new Random(seed);
                    ShardHistory h = ShardHistory.generate(seed, 2 + r.nextInt(4), 80 + r.nextInt(150), r.nextBoolean(),
                            r.nextBoolean(), false, Reuse.NONE, 250_000)
                            .withStretchesWithoutHeartbeats(new Random(seed ^ 0x01d), 200_000)
                            .withAnOlderHeartbeatOnShardZero();
                    everyInvariantHolds(h, seed, r);
                }));
    }

    static void invariantsHold(long seed, Reuse reuse) {
        invariantsHold(seed, reuse, h -> h);
    }

    static void invariantsHold(long seed, Reuse reuse, java.util.function.UnaryOperator<ShardHistory> binlogs) {
        Random r = new Random(seed);
        ShardHistory h = binlogs.apply(ShardHistory.generate(seed, 2 + r.nextInt(5), 80 + r.nextInt(200),
                r.nextBoolean(), r.nextBoolean(), false, reuse));
        everyInvariantHolds(h, seed, r);
    }

    /** Feeds {@code h} in an interleaving drawn from {@code seed} and checks every invariant on the output. */
    static void everyInvariantHolds(ShardHistory h, long seed, Random r) {
        List<Emission<String>> out = feed(h, seed * 31 + 1, MAX_WAIT);
        noTransactionLostOrDoubled(h, out);
        distributedTransactionsAreAtomic(h, out);
        perShardOrderIsKept(h, out);
        cutsAreRespected(h, out);
        outputIsDeterministic(h, out, seed);
        restartFromAnyCheckpointResumesExactlyOnce(h, out, r);
    }

    /**
     * Issue 4, seed 1724: three XA transactions wait for each other across shards (X78 behind X83 on shard 5,
     * X83 behind X94 on shard 0, X94 behind X78 on shard 4), and the cycle closes only with commits of a
     * later heartbeat window. Depending on arrival, X78 was written to break the cycle before or after the
     * single transactions T91, T90, T88, T89 of the window between: a cycle is now broken at the key of the
     * last group it waits for, so whether it precedes a transaction no longer depends on having read that
     * later commit yet. The wide sweep: {@code -Dtributary.sorter.seeds=20000}.
     */
    @org.junit.jupiter.api.Test
    void crossingCycleCompletedInALaterWindowIsDeterministic() {
        invariantsHold(1724, Reuse.NONE);
    }

    /**
     * Issue 4, seed 3764 of {@link Reuse#WHILE_PREPARED}: gtrid X24 is used by X24 (shards 0-2, still prepared on
     * shard 0 until 1.21 s), X45 (shards 2 and 3, rolled back on shard 3 at 0.95 s, on shard 2 only at 1.74 s) and
     * X61 (shards 1 and 3, prepared at 1.26 s). With shard 3 read ahead, X45's branch there came first and X24's
     * branches joined its group; X45's branch on shard 2 then joined X61's, which kept it: X61 waited for it
     * and was written after T63-T67 instead of before. The open uses of a gtrid are now grouped again from
     * positions and windows when the earliest of them is fixed, rolled-back branches included.
     */
    @org.junit.jupiter.api.Test
    void usesOfAGtridReadLaterUseFirstAreGroupedTheSameWhateverTheArrival() {
        invariantsHold(3764, Reuse.WHILE_PREPARED);
    }

    /**
     * Issue 4, seed 150 of {@link Reuse#WHILE_PREPARED}: X78 (gtrid X47) rolled back on shard 2 and stays
     * prepared on shard 0; X104 uses the gtrid again on shards 1 and 2. The checkpoint of emission 75 resumed
     * shard 2 after X78's rolled-back branch, so the restarted sorter did not know X78 had ended there and took
     * X104's branches for X78's: X104 waited for X78's rollback and came after T107 and T112. A rolled-back
     * branch now stays pending until its use is finished, and is then recorded as written.
     */
    @org.junit.jupiter.api.Test
    void aRestartReadsTheRollbackOfAUseStillPreparedElsewhere() {
        invariantsHold(150, Reuse.WHILE_PREPARED);
    }

    @TestFactory
    Stream<DynamicTest> aBranchThatNeverCommitsIsGivenUpAfterMaxWait() {
        return LongStream.range(100, 110).mapToObj(seed -> DynamicTest.dynamicTest("seed " + seed, () -> {
            ShardHistory h = ShardHistory.generate(seed, 3, 120, false, false, true, Reuse.NONE);
            List<Emission<String>> out = feed(h, seed, Duration.ofMillis(500));
            List<Emission.Distributed<String>> given = givenUp(out);
            ShardHistory.Txn lost = h.firstWithLostCommit();
            if (lost == null) {
                assertThat(given).isEmpty();
                return;
            }
            assertThat(given).singleElement().satisfies(d -> {
                assertThat(d.gtrid()).endsWith(hex(lost.gtrid()));
                assertThat(d.commits()).hasSize(lost.shards().size() - 1);
            });
            perShardOrderIsKept(h, out);
        }));
    }

    /** Feeds every shard's units in a random interleaving of small chunks, draining as it goes. */
    static List<Emission<String>> feed(ShardHistory h, long seed, Duration maxWait) {
        List<ShardCheckpoint> start = new ArrayList<>();
        for (int s = 0; s < h.shardCount; s++) {
            start.add(ShardCheckpoint.at("shard-" + s, ShardPosition.at("bin.000001", 4)));
        }
        return feed(h, new GlobalSorter<>(start, maxWait), seed, new int[h.shardCount]);
    }

    static List<Emission<String>> feed(ShardHistory h, GlobalSorter<String> sorter, long seed, int[] from) {
        return feed(h, sorter, seed, from, 8);
    }

    /** The same, in chunks of 1 to {@code maxChunk} units (a large one reads a shard far ahead of the others). */
    static List<Emission<String>> feed(ShardHistory h, GlobalSorter<String> sorter, long seed, int[] from, int maxChunk) {
        Random r = new Random(seed);
        int[] next = from.clone();
        List<Emission<String>> out = new ArrayList<>();
        while (true) {
            List<Integer> open = new ArrayList<>();
            for (int s = 0; s < h.shardCount; s++) {
                if (next[s] < h.units.get(s).size()) {
                    open.add(s);
                }
            }
            if (open.isEmpty()) {
                break;
            }
            int s = open.get(r.nextInt(open.size()));
            int chunk = 1 + r.nextInt(maxChunk);
            for (int i = 0; i < chunk && next[s] < h.units.get(s).size(); i++) {
                sorter.offer(h.units.get(s).get(next[s]++));
            }
            out.addAll(sorter.drain());
        }
        out.addAll(sorter.drain());
        return out;
    }

    // ---- invariants, each named as in ARCHITECTURE.md ----

    /** Invariant 5 (its in-process half): every committed transaction is emitted exactly once. */
    /** The XA transactions emitted with branches given up (they waited longer than the max wait). */
    static List<Emission.Distributed<String>> givenUp(List<Emission<String>> out) {
        return out.stream()
                .filter(e -> e instanceof Emission.Distributed<String> d && !d.abandoned().isEmpty())
                .map(e -> (Emission.Distributed<String>) e).toList();
    }

    static void noTransactionLostOrDoubled(ShardHistory h, List<Emission<String>> out) {
        List<String> emitted = new ArrayList<>();
        for (Emission<String> e : out) {
            if (e instanceof Emission.Single<String> s) {
                emitted.add(s.transaction().key());
            } else if (e instanceof Emission.Distributed<String> d) {
                d.branches().forEach(b -> emitted.add(b.key()));
            }
        }
        List<String> expected = new ArrayList<>();
        for (ShardHistory.Txn t : h.transactions) {
            if (!t.xa()) {
                expected.add(t.name());
            } else if (!t.rolledBack()) {
                t.shards().forEach(s -> expected.add(t.name() + "-p" + s));
            }
        }
        assertThat(emitted).as("emitted transactions").doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(expected);
    }

    /**
     * Invariant 2: the committed branches of one XA transaction are one transaction, under its gtrid, with no
     * branch of another transaction (also of one that used the same gtrid); rolled-back ones never appear.
     */
    static void distributedTransactionsAreAtomic(ShardHistory h, List<Emission<String>> out) {
        Map<String, Emission.Distributed<String>> byName = new HashMap<>();
        for (Emission<String> e : out) {
            if (e instanceof Emission.Distributed<String> d) {
                List<String> names = d.branches().stream().map(b -> b.key().substring(0, b.key().indexOf("-p")))
                        .distinct().toList();
                assertThat(names).as("transactions stitched into %s", d.gtrid()).hasSize(1);
                assertThat(byName.put(names.get(0), d)).as("%s emitted once", names.get(0)).isNull();
                assertThat(d.commits()).hasSameSizeAs(d.branches());
            }
        }
        for (ShardHistory.Txn t : h.transactions) {
            if (!t.xa()) {
                continue;
            }
            Emission.Distributed<String> d = byName.get(t.name());
            if (t.rolledBack()) {
                assertThat(d).as("rolled back %s", t.name()).isNull();
            } else {
                assertThat(d).as("committed %s", t.name()).isNotNull();
                assertThat(d.gtrid()).isEqualTo("1:" + hex(t.gtrid()));
                assertThat(d.branches().stream().map(ShardUnit::shard).toList()).isEqualTo(t.shards());
            }
        }
    }

    /** Invariant 1: on every shard, what it committed first comes first (cycles of crossing XA commits aside). */
    static void perShardOrderIsKept(ShardHistory h, List<Emission<String>> out) {
        for (int s = 0; s < h.shardCount; s++) {
            int last = -1;
            boolean lastReordered = false;
            for (Emission<String> e : out) {
                int index = -1;
                boolean reordered = false;
                if (e instanceof Emission.Single<String> single && single.transaction().shard() == s) {
                    index = h.indexOn(s, single.transaction().key());
                } else if (e instanceof Emission.Distributed<String> d) {
                    for (ShardUnit<String> c : d.commits()) {
                        if (c.shard() == s) {
                            index = Math.max(index, h.indexOn(s, c.key()));
                            reordered = d.reordered();
                        }
                    }
                }
                if (index < 0) {
                    continue;
                }
                if (index < last) {
                    assertThat(reordered || lastReordered).as("shard %d: %s emitted after a later unit; only an XA"
                            + " transaction written out of order to break a cycle may do that", s, e).isTrue();
                }
                if (index > last) {
                    last = index;
                    lastReordered = reordered;
                }
            }
        }
    }

    /**
     * Invariant 3: a transaction before a heartbeat on its shard precedes every transaction after that
     * heartbeat on any shard, unless it follows, on its shard, the early branch of an XA transaction that
     * committed across the cut.
     */
    static void cutsAreRespected(ShardHistory h, List<Emission<String>> out) {
        // per output index: the shards it touches and the window of its unit there (for XA: its latest commit)
        List<Map<Integer, Integer>> windows = new ArrayList<>();
        for (Emission<String> e : out) {
            Map<Integer, Integer> w = new HashMap<>();
            if (e instanceof Emission.Single<String> s) {
                w.put(s.transaction().shard(), window(h, s.transaction()));
            } else if (e instanceof Emission.Distributed<String> d) {
                int max = d.commits().stream().mapToInt(c -> window(h, c)).max().orElse(0);
                d.commits().forEach(c -> w.put(c.shard(), max));
            }
            windows.add(w);
        }
        for (int xi = 0; xi < out.size(); xi++) {
            if (!(out.get(xi) instanceof Emission.Single<String> x)) {
                continue;
            }
            int xs = x.transaction().shard();
            int xw = windows.get(xi).get(xs);
            for (int yi = 0; yi < xi; yi++) {
                final int y = yi;
                boolean later = windows.get(yi).values().stream().anyMatch(w -> w > xw)
                        && !windows.get(yi).containsKey(xs);
                if (later && !heldBack(out, windows, xi, y)) {
                    org.assertj.core.api.Assertions.fail("output %d (%s, shard %d, window %d) comes after output %d (%s,"
                            + " window %s) of a later heartbeat window, and nothing before it on its shard held it back",
                            xi, x.transaction().key(), xs, xw, y, out.get(y), windows.get(y));
                }
            }
        }
    }

    /**
     * Whether output {@code xi} was held back past output {@code yi} by what precedes it on its own shard:
     * its shard predecessor in the output came after {@code yi} and is an XA transaction (which may cross a
     * cut) or is itself held back.
     */
    private static boolean heldBack(List<Emission<String>> out, List<Map<Integer, Integer>> windows, int xi, int yi) {
        Emission.Single<String> x = (Emission.Single<String>) out.get(xi);
        int shard = x.transaction().shard();
        for (int p = xi - 1; p > yi; p--) {
            if (!windows.get(p).containsKey(shard)) {
                continue;
            }
            if (out.get(p) instanceof Emission.Distributed<String>) {
                return true;
            }
            return heldBack(out, windows, p, yi);
        }
        return false;
    }

    /** Invariant 4: the same shard binlogs give the same output whatever order they arrive in. */
    static void outputIsDeterministic(ShardHistory h, List<Emission<String>> out, long seed) {
        for (long other : new long[] {seed + 1000, seed + 2000}) {
            assertThat(render(feed(h, other, MAX_WAIT))).as("output with arrival order %d", other).isEqualTo(render(out));
        }
    }

    /** Invariant 5: a sorter started from the checkpoints of emission k emits exactly what followed k. */
    static void restartFromAnyCheckpointResumesExactlyOnce(ShardHistory h, List<Emission<String>> out, Random r) {
        if (out.size() < 2) {
            return;
        }
        int k = r.nextInt(out.size() - 1);
        Map<String, ShardCheckpoint> latest = new HashMap<>();
        for (int s = 0; s < h.shardCount; s++) {
            latest.put("shard-" + s, ShardCheckpoint.at("shard-" + s, ShardPosition.at("bin.000001", 4)));
        }
        for (int i = 0; i <= k; i++) {
            out.get(i).checkpoints().forEach(c -> latest.put(c.shard(), c));
        }
        List<ShardCheckpoint> start = new ArrayList<>();
        int[] from = new int[h.shardCount];
        for (int s = 0; s < h.shardCount; s++) {
            ShardCheckpoint c = latest.get("shard-" + s);
            start.add(c);
            List<ShardUnit<String>> units = h.units.get(s);
            while (from[s] < units.size() && units.get(from[s]).start().position() < c.resumeFrom().position()) {
                from[s]++;
            }
        }
        // heartbeats before the resume points are not re-read; the restarted sorter knows the last one per shard
        List<Emission<String>> again = feed(h, new GlobalSorter<>(start, MAX_WAIT), r.nextLong(), from);
        assertThat(render(again)).as("output after a restart at emission %d", k)
                .isEqualTo(render(out.subList(k + 1, out.size())));
    }

    private static int window(ShardHistory h, ShardUnit<String> u) {
        int w = 0;
        for (ShardUnit<String> x : h.units.get(u.shard())) {
            if (x == u || x.key().equals(u.key())) {
                return w;
            }
            if (x.kind() == Kind.HEARTBEAT && h.onEveryShard(x.heartbeat())) {
                w++; // a heartbeat only some shards' binlogs still hold cuts nothing
            }
        }
        throw new IllegalStateException(u + " not in its shard");
    }

    static List<String> render(List<Emission<String>> out) {
        List<String> r = new ArrayList<>();
        for (Emission<String> e : out) {
            if (e instanceof Emission.Single<String> s) {
                r.add(s.transaction().key());
            } else if (e instanceof Emission.Distributed<String> d) {
                r.add("XA" + d.branches().stream().map(ShardUnit::key).toList());
            }
        }
        return r;
    }

    static String hex(String s) {
        return java.util.HexFormat.of().formatHex(s.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }

}
