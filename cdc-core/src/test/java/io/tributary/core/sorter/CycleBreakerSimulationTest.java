package io.tributary.core.sorter;

import static io.tributary.core.sorter.GlobalSorterSimulationTest.feed;
import static io.tributary.core.sorter.GlobalSorterSimulationTest.noTransactionLostOrDoubled;
import static io.tributary.core.sorter.GlobalSorterSimulationTest.perShardOrderIsKept;
import static io.tributary.core.sorter.GlobalSorterSimulationTest.render;
import static io.tributary.core.sorter.GlobalSorterSimulationTest.restartFromAnyCheckpointResumesExactlyOnce;
import static io.tributary.core.sorter.LaneOrderSimulationTest.start;
import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.core.sorter.ShardHistory.Reuse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Seeded simulations of cycle breaking ({@link CycleBreaker}) on histories where XA transactions commit in
 * opposite orders on two shards: which transaction is written out of its shards' order, and where in the output,
 * must not depend on arrival (several interleavings, one with shards read far ahead, and a restart from a
 * checkpoint); each one written out of order lies on a cycle of the binlogs' commit order, and every other
 * emission keeps its shards' order. A failing seed is printed in the test name; {@code -Dtributary.sorter.seeds}
 * sets how many run.
 */
class CycleBreakerSimulationTest {

    private static final Duration MAX_WAIT = Duration.ofSeconds(60);

    @TestFactory
    Stream<DynamicTest> aCycleIsBrokenTheSameWhateverTheArrival() {
        return LongStream.range(0, Long.getLong("tributary.sorter.seeds", 60))
                .mapToObj(seed -> DynamicTest.dynamicTest("seed " + seed, () -> brokenTheSame(seed)));
    }

    /**
     * Issue 18: the same over histories with stretches without heartbeats, where commit timestamps order and the
     * shards' clocks fix XA transactions: a cycle is broken the same whatever the arrival, and only a transaction on
     * a cycle is written out of order.
     */
    @TestFactory
    Stream<DynamicTest> aCycleIsBrokenTheSameWhateverTheArrivalAcrossStretchesWithoutHeartbeats() {
        return LongStream.range(0, Long.getLong("tributary.sorter.seeds", 60))
                .mapToObj(seed -> DynamicTest.dynamicTest("seed " + seed, () -> brokenTheSame(seed,
                        h -> h.withStretchesWithoutHeartbeats(new Random(seed ^ 0xc1c1e), 100_000))));
    }

    /** The sweep above is not empty: crossing commits do form cycles that are broken. */
    @Test
    void theGeneratedHistoriesHaveCyclesToBreak() {
        int broken = 0;
        for (long seed = 0; seed < 20; seed++) {
            broken += brokenTheSame(seed).size();
        }
        assertThat(broken).isPositive();
    }

    /** Checks one seed; returns the transactions written out of order, as output index and name. */
    static List<String> brokenTheSame(long seed) {
        return brokenTheSame(seed, h -> h);
    }

    /** The same over the binlogs {@code binlogs} makes of the generated ones. */
    static List<String> brokenTheSame(long seed, java.util.function.UnaryOperator<ShardHistory> binlogs) {
        Random r = new Random(seed);
        ShardHistory h = binlogs.apply(ShardHistory.generate(seed, 2 + r.nextInt(4), 80 + r.nextInt(200),
                r.nextBoolean(), true, false, Reuse.NONE));
        List<Emission<String>> out = feed(h, new GlobalSorter<>(start(h), MAX_WAIT), seed * 31 + 1,
                new int[h.shardCount]);
        List<String> broken = reordered(out);

        noTransactionLostOrDoubled(h, out);
        perShardOrderIsKept(h, out);
        Map<String, Set<String>> waitsFor = waitsFor(h);
        for (String b : broken) {
            String name = b.substring(b.indexOf(' ') + 1);
            assertThat(onCycle(name, waitsFor)).as("%s, written out of order, is on a cycle of commit order", name)
                    .isTrue();
        }
        for (int i = 0; i < 3; i++) {
            List<Emission<String>> other = feed(h, new GlobalSorter<>(start(h), MAX_WAIT), r.nextLong(),
                    new int[h.shardCount], i == 0 ? 300 : 8);
            assertThat(reordered(other)).as("written out of order, arrival %d", i).isEqualTo(broken);
            assertThat(render(other)).as("output, arrival %d", i).isEqualTo(render(out));
        }
        restartFromAnyCheckpointResumesExactlyOnce(h, out, r);
        return broken;
    }

    /** The emissions written out of their shards' order, as "output index name". */
    static List<String> reordered(List<Emission<String>> out) {
        List<String> r = new ArrayList<>();
        for (int i = 0; i < out.size(); i++) {
            if (out.get(i) instanceof Emission.Distributed<String> d && d.reordered()) {
                String key = d.branches().get(0).key();
                r.add(i + " " + key.substring(0, key.indexOf("-p")));
            }
        }
        return r;
    }

    /** Per committed XA transaction, the ones whose commit precedes one of its commits on a shard, from the binlogs. */
    static Map<String, Set<String>> waitsFor(ShardHistory h) {
        Map<String, Set<String>> waits = new HashMap<>();
        for (int s = 0; s < h.shardCount; s++) {
            List<String> commits = new ArrayList<>();
            for (ShardUnit<String> u : h.units.get(s)) {
                if (u.kind() == ShardUnit.Kind.XA_COMMIT) {
                    String name = u.key().substring(0, u.key().indexOf("-c"));
                    waits.computeIfAbsent(name, n -> new HashSet<>()).addAll(commits);
                    commits.add(name);
                }
            }
        }
        return waits;
    }

    static boolean onCycle(String name, Map<String, Set<String>> waitsFor) {
        Set<String> seen = new HashSet<>();
        List<String> todo = new ArrayList<>(waitsFor.getOrDefault(name, Set.of()));
        while (!todo.isEmpty()) {
            String next = todo.remove(todo.size() - 1);
            if (next.equals(name)) {
                return true;
            }
            if (seen.add(next)) {
                todo.addAll(waitsFor.getOrDefault(next, Set.of()));
            }
        }
        return false;
    }
}
