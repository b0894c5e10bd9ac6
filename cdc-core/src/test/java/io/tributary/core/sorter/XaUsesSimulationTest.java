package io.tributary.core.sorter;

import static io.tributary.core.sorter.GlobalSorterSimulationTest.distributedTransactionsAreAtomic;
import static io.tributary.core.sorter.GlobalSorterSimulationTest.feed;
import static io.tributary.core.sorter.GlobalSorterSimulationTest.hex;
import static io.tributary.core.sorter.GlobalSorterSimulationTest.noTransactionLostOrDoubled;
import static io.tributary.core.sorter.GlobalSorterSimulationTest.render;
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
import org.junit.jupiter.api.TestFactory;

/**
 * Seeded simulations of the XA part of the sorter ({@link XaUses}, {@link XaGroup}): branches are grouped into the
 * uses of their gtrid, also when a gtrid is used again while an earlier use is still prepared elsewhere and one
 * shard is read far ahead (it brings a later use first). Checked against the generated timeline: every emitted
 * use is one transaction's committed branches with their own commits, a gtrid is written once per committed use,
 * uses of one gtrid on one shard come in that shard's order, rolled-back branches never appear and never wait, and
 * a branch given up after {@code xaMaxWait} keeps waiting for its own commit. A failing seed is printed in the test
 * name; {@code -Dtributary.sorter.seeds} sets how many run.
 */
class XaUsesSimulationTest {

    private static final Duration MAX_WAIT = Duration.ofSeconds(60);

    @TestFactory
    Stream<DynamicTest> usesOfAGtridAreGroupedAsTheyRan() {
        return LongStream.range(0, Long.getLong("tributary.sorter.seeds", 60)).boxed()
                .flatMap(seed -> Stream.of(Reuse.values()).map(reuse -> DynamicTest.dynamicTest(
                        "seed " + seed + " " + reuse, () -> usesHold(seed, reuse))));
    }

    @TestFactory
    Stream<DynamicTest> aBranchGivenUpKeepsWaitingForItsOwnCommit() {
        return LongStream.range(0, Long.getLong("tributary.sorter.seeds", 60))
                .mapToObj(seed -> DynamicTest.dynamicTest("seed " + seed, () -> givenUp(seed)));
    }

    static void usesHold(long seed, Reuse reuse) {
        Random r = new Random(seed);
        ShardHistory h = ShardHistory.generate(seed, 2 + r.nextInt(5), 80 + r.nextInt(200), r.nextBoolean(), false,
                false, reuse);
        GlobalSorter<String> sorter = new GlobalSorter<>(start(h), MAX_WAIT);
        List<Emission<String>> out = feed(h, sorter, seed * 31 + 1, new int[h.shardCount]);

        noTransactionLostOrDoubled(h, out);
        distributedTransactionsAreAtomic(h, out);
        eachBranchComesWithItsOwnCommit(out);
        usesOfOneGtridKeepTheirShardsOrder(h, out);
        rolledBackBranchesDoNotWait(h, sorter);
        // a shard read far ahead brings later uses of a gtrid before earlier ones
        List<Emission<String>> ahead = feed(h, new GlobalSorter<>(start(h), MAX_WAIT), seed * 31 + 2,
                new int[h.shardCount], 200);
        assertThat(render(ahead)).as("output with shards read far ahead").isEqualTo(render(out));
    }

    /** The commit written with each branch is that branch's own, not one of another use of its gtrid. */
    static void eachBranchComesWithItsOwnCommit(List<Emission<String>> out) {
        for (Emission<String> e : out) {
            if (e instanceof Emission.Distributed<String> d) {
                assertThat(d.commits().stream().map(ShardUnit::key).toList()).as("commits of %s", d.gtrid())
                        .isEqualTo(d.branches().stream().map(b -> b.key().replace("-p", "-c")).toList());
            }
        }
    }

    /** Two uses of one gtrid on one shard are written in that shard's commit order (no cycle broken between). */
    static void usesOfOneGtridKeepTheirShardsOrder(ShardHistory h, List<Emission<String>> out) {
        Map<String, Integer> at = new HashMap<>();
        Set<String> reordered = new HashSet<>();
        for (int i = 0; i < out.size(); i++) {
            if (out.get(i) instanceof Emission.Distributed<String> d) {
                String name = d.branches().get(0).key().substring(0, d.branches().get(0).key().indexOf("-p"));
                at.put(name, i);
                if (d.reordered()) {
                    reordered.add(name);
                }
            }
        }
        Map<String, List<ShardHistory.Txn>> byGtrid = new HashMap<>();
        for (ShardHistory.Txn t : h.transactions) {
            if (t.xa() && !t.rolledBack() && at.containsKey(t.name()) && !reordered.contains(t.name())) {
                byGtrid.computeIfAbsent(t.gtrid(), g -> new ArrayList<>()).add(t);
            }
        }
        for (List<ShardHistory.Txn> uses : byGtrid.values()) {
            for (ShardHistory.Txn a : uses) {
                for (ShardHistory.Txn b : uses) {
                    for (int s : a.shards()) {
                        int ia = h.indexOn(s, a.name() + "-c" + s);
                        int ib = h.indexOn(s, b.name() + "-c" + s);
                        if (a != b && ia >= 0 && ib >= 0 && ia < ib) {
                            assertThat(at.get(a.name())).as("%s before %s, uses of gtrid %s on shard %d", a.name(),
                                    b.name(), a.gtrid(), s).isLessThan(at.get(b.name()));
                        }
                    }
                }
            }
        }
    }

    /** Rolled-back branches leave their use: neither the prepare nor the rollback is still waiting at the end. */
    static void rolledBackBranchesDoNotWait(ShardHistory h, GlobalSorter<String> sorter) {
        Set<String> rolledBack = new HashSet<>();
        for (ShardHistory.Txn t : h.transactions) {
            if (t.xa() && t.rolledBack()) {
                t.shards().forEach(s -> {
                    rolledBack.add(t.name() + "-p" + s);
                    rolledBack.add(t.name() + "-r" + s);
                });
            }
        }
        List<String> waiting = new ArrayList<>();
        sorter.forEachWaiting(waiting::add);
        assertThat(waiting).as("units still waiting").hasSize(sorter.waiting()).filteredOn(rolledBack::contains)
                .isEmpty();
    }

    /**
     * A branch that never commits is given up {@code xaMaxWait} after the first commit: its use is written once,
     * without it, naming its shard, and the branch keeps waiting for its own commit.
     */
    static void givenUp(long seed) {
        Random r = new Random(seed);
        ShardHistory h = ShardHistory.generate(seed, 2 + r.nextInt(4), 80 + r.nextInt(120), r.nextBoolean(), false,
                true, r.nextBoolean() ? Reuse.NONE : Reuse.FINISHED);
        GlobalSorter<String> sorter = new GlobalSorter<>(start(h), Duration.ofMillis(500));
        List<Emission<String>> out = feed(h, sorter, seed * 31 + 1, new int[h.shardCount]);
        List<Emission.Distributed<String>> given = GlobalSorterSimulationTest.givenUp(out);
        ShardHistory.Txn lost = h.firstWithLostCommit();
        if (lost == null) {
            assertThat(given).isEmpty();
            return;
        }
        int lostShard = lost.shards().stream().filter(s -> h.indexOn(s, lost.name() + "-c" + s) < 0).findFirst()
                .orElseThrow();
        assertThat(given).singleElement().satisfies(d -> {
            assertThat(d.gtrid()).isEqualTo("1:" + hex(lost.gtrid()));
            assertThat(d.abandoned()).containsExactly(lostShard);
            assertThat(d.branches().stream().map(ShardUnit::shard).toList())
                    .isEqualTo(lost.shards().stream().filter(s -> s != lostShard).toList());
        });
        eachBranchComesWithItsOwnCommit(out);
        List<String> waiting = new ArrayList<>();
        sorter.forEachWaiting(waiting::add);
        assertThat(waiting).as("the branch given up waits for its commit").contains(lost.name() + "-p" + lostShard);
    }
}
