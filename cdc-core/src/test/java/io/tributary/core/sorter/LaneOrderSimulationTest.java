package io.tributary.core.sorter;

import static io.tributary.core.sorter.GlobalSorterSimulationTest.cutsAreRespected;
import static io.tributary.core.sorter.GlobalSorterSimulationTest.feed;
import static io.tributary.core.sorter.GlobalSorterSimulationTest.outputIsDeterministic;
import static io.tributary.core.sorter.GlobalSorterSimulationTest.perShardOrderIsKept;
import static io.tributary.core.sorter.GlobalSorterSimulationTest.render;
import static io.tributary.core.sorter.GlobalSorterSimulationTest.restartFromAnyCheckpointResumesExactlyOnce;
import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.sorter.ShardHistory.Reuse;
import io.tributary.core.sorter.ShardUnit.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Seeded simulations of the ordering part of the sorter ({@link GlobalSorter} with its {@link Lane}s) on histories
 * of single-shard transactions and heartbeats only: the output must be exactly the transactions of the closed
 * windows sorted by their keys, computed here from each shard's binlog as ARCHITECTURE.md defines them (window of
 * the last heartbeat before the unit, commit time, shard, position; window and time as running maxima along the
 * shard). Per-shard order and heartbeat cuts then hold strictly, whatever the arrival and however far one shard is
 * read ahead. A failing seed is printed in the test name; {@code -Dtributary.sorter.seeds} sets how many run.
 */
class LaneOrderSimulationTest {

    private static final Duration MAX_WAIT = Duration.ofSeconds(60);

    @TestFactory
    Stream<DynamicTest> transactionsComeInKeyOrderAndRespectEveryCut() {
        return LongStream.range(0, Long.getLong("tributary.sorter.seeds", 60))
                .mapToObj(seed -> DynamicTest.dynamicTest("seed " + seed, () -> ordered(seed)));
    }

    static void ordered(long seed) {
        Random r = new Random(seed);
        ShardHistory h = ShardHistory.generate(seed, 1 + r.nextInt(6), 80 + r.nextInt(300), r.nextBoolean(), false,
                false, Reuse.NONE).singlesOnly();
        GlobalSorter<String> sorter = new GlobalSorter<>(start(h), MAX_WAIT);
        // chunks of up to 1..60 units: from a close interleaving to one shard read far ahead
        List<Emission<String>> out = feed(h, sorter, seed * 31 + 1, new int[h.shardCount], 1 + r.nextInt(60));

        assertThat(out).allMatch(e -> e instanceof Emission.Single<String>);
        List<String> expected = inKeyOrder(h);
        assertThat(render(out)).as("the transactions of the closed windows, in key order").isEqualTo(expected);
        assertThat(sorter.waiting()).as("what waits: the transactions of the last, open window")
                .isEqualTo(h.transactions.size() - expected.size());
        perShardOrderIsKept(h, out);
        cutsAreRespected(h, out);
        outputIsDeterministic(h, out, seed);
        restartFromAnyCheckpointResumesExactlyOnce(h, out, r);
        assertThat(render(feed(h.withRepeatedHeartbeats(r), new GlobalSorter<>(start(h), MAX_WAIT), r.nextLong(),
                new int[h.shardCount]))).as("with heartbeats that do not increase (ignored)").isEqualTo(render(out));
    }

    /**
     * The expected output, computed from the binlogs alone: every transaction keyed (window, time, shard,
     * position), where window is the last heartbeat before it on its shard (0 before any) and (window, time)
     * never steps back along a shard; those of windows every shard has closed, sorted by key.
     */
    static List<String> inKeyOrder(ShardHistory h) {
        record Keyed(long window, long time, int shard, long position, String name) { }
        List<Keyed> keyed = new ArrayList<>();
        long closed = Long.MAX_VALUE;
        for (int s = 0; s < h.shardCount; s++) {
            long heartbeat = 0;
            long window = 0;
            long time = Long.MIN_VALUE;
            for (ShardUnit<String> u : h.units.get(s)) {
                if (u.kind() == Kind.HEARTBEAT) {
                    heartbeat = Math.max(heartbeat, u.heartbeat());
                    continue;
                }
                if (heartbeat > window || (heartbeat == window && u.commitTimeMicros() >= time)) {
                    window = heartbeat;
                    time = u.commitTimeMicros();
                }
                keyed.add(new Keyed(window, time, s, u.sequence(), u.key()));
            }
            closed = Math.min(closed, heartbeat);
        }
        final long lastClosed = closed;
        return keyed.stream().filter(k -> k.window() < lastClosed)
                .sorted(Comparator.comparingLong(Keyed::window).thenComparingLong(Keyed::time)
                        .thenComparingInt(Keyed::shard).thenComparingLong(Keyed::position))
                .map(Keyed::name).toList();
    }

    static List<ShardCheckpoint> start(ShardHistory h) {
        List<ShardCheckpoint> start = new ArrayList<>();
        for (int s = 0; s < h.shardCount; s++) {
            start.add(ShardCheckpoint.at("shard-" + s, ShardPosition.at("bin.000001", 4)));
        }
        return start;
    }
}
