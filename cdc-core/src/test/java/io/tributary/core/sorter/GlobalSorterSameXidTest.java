package io.tributary.core.sorter;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.core.event.XaXid;
import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.sorter.ShardUnit.Kind;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Each shard is its own server, so {@code XA START 'tx1'} (default empty bqual) on two shards gives two
 * branches with the SAME full xid. A branch is (shard, xid): both must become one transaction. Found by the
 * benchmark runner: the second prepare replaced the first, and a commit left queued without its group
 * stopped the pipeline with a NullPointerException in the cycle breaker. Commit times (microseconds) are on the
 * heartbeats' clock (milliseconds), as on a real shard: a shard that commits on for more than a second after an XA
 * commit without a heartbeat is in a stretch without heartbeats, where commit timestamps fix XA transactions.
 */
class GlobalSorterSameXidTest {

    private static XaXid xid(String gtrid) {
        return new XaXid(1, gtrid.getBytes(StandardCharsets.US_ASCII), new byte[0]);
    }

    private static final XaXid TX1 = xid("tx1");
    private static final XaXid TX2 = xid("tx2");

    private static final class Shard {
        final int index;
        long seq;

        Shard(int index) {
            this.index = index;
        }

        ShardUnit<String> unit(Kind kind, XaXid xid, long hb, long ts, String rows) {
            seq += 100;
            ShardPosition p = ShardPosition.at("bin.000001", seq);
            return new ShardUnit<>(index, seq, kind, ts, xid, hb, "bin.000001:" + seq, p,
                    ShardPosition.at("bin.000001", seq + 50), rows);
        }

        ShardUnit<String> prepare(XaXid xid, long ts) {
            return unit(Kind.XA_PREPARE, xid, 0, ts, "shard " + index + " rows of " + xid);
        }

        ShardUnit<String> commit(XaXid xid, long ts) {
            return unit(Kind.XA_COMMIT, xid, 0, ts, null);
        }

        ShardUnit<String> txn(String rows, long ts) {
            return unit(Kind.TRANSACTION, null, 0, ts, rows);
        }

        ShardUnit<String> hb(long value) {
            return unit(Kind.HEARTBEAT, null, value, 0, null);
        }
    }

    private static GlobalSorter<String> sorter() {
        return new GlobalSorter<>(List.of(ShardCheckpoint.at("s0", ShardPosition.at("bin.000001", 4)),
                ShardCheckpoint.at("s1", ShardPosition.at("bin.000001", 4))), Duration.ofSeconds(60));
    }

    /** Every payload written, in output order: a Single's rows, a Distributed's branches' rows. */
    private static List<String> rows(List<Emission<String>> out) {
        List<String> rows = new ArrayList<>();
        for (Emission<String> e : out) {
            if (e instanceof Emission.Single<String> s) {
                rows.add(s.transaction().payload());
            } else if (e instanceof Emission.Distributed<String> d) {
                d.branches().forEach(b -> rows.add(b.payload()));
            }
        }
        return rows;
    }

    private static void beats(GlobalSorter<String> sorter, List<Emission<String>> out, Shard s0, Shard s1, long... values) {
        for (long v : values) {
            sorter.offer(s0.hb(v));
            sorter.offer(s1.hb(v));
            out.addAll(sorter.drain());
        }
    }

    @Test
    void theSameXidOnTwoShardsIsOneTransactionWithBothBranches() {
        GlobalSorter<String> sorter = sorter();
        Shard s0 = new Shard(0);
        Shard s1 = new Shard(1);
        List<Emission<String>> out = new ArrayList<>();
        beats(sorter, out, s0, s1, 100);
        sorter.offer(s0.prepare(TX1, 110_000));
        sorter.offer(s1.prepare(TX1, 111_000));
        sorter.offer(s0.commit(TX1, 120_000));
        out.addAll(sorter.drain());
        sorter.offer(s1.commit(TX1, 121_000));
        sorter.offer(s0.txn("shard 0 after", 130_000));
        sorter.offer(s1.txn("shard 1 after", 131_000));
        beats(sorter, out, s0, s1, 200, 300, 400);

        assertThat(out).hasSize(3);
        assertThat(out.get(0)).isInstanceOf(Emission.Distributed.class);
        Emission.Distributed<String> xa = (Emission.Distributed<String>) out.get(0);
        assertThat(xa.branches()).extracting(ShardUnit::shard).containsExactly(0, 1);
        assertThat(xa.commits()).extracting(ShardUnit::shard).containsExactly(0, 1);
        assertThat(xa.abandoned()).isEmpty();
        assertThat(rows(out)).containsExactly("shard 0 rows of " + TX1, "shard 1 rows of " + TX1, "shard 0 after",
                "shard 1 after");
        assertThat(sorter.waiting()).isZero();
    }

    @Test
    void commitsOfTwoSameXidTransactionsCrossingOnTwoShardsAreBothWrittenWhole() {
        GlobalSorter<String> sorter = sorter();
        Shard s0 = new Shard(0);
        Shard s1 = new Shard(1);
        List<Emission<String>> out = new ArrayList<>();
        beats(sorter, out, s0, s1, 100);
        sorter.offer(s0.prepare(TX1, 110_000));
        sorter.offer(s1.prepare(TX1, 110_100));
        sorter.offer(s0.prepare(TX2, 110_200));
        sorter.offer(s1.prepare(TX2, 110_300));
        // the commits cross: tx1 then tx2 on shard 0, tx2 then tx1 on shard 1
        sorter.offer(s0.commit(TX1, 120_000));
        sorter.offer(s1.commit(TX2, 120_100));
        sorter.offer(s0.commit(TX2, 120_200));
        sorter.offer(s1.commit(TX1, 120_300));
        sorter.offer(s0.txn("shard 0 after", 130_000));
        sorter.offer(s1.txn("shard 1 after", 131_000));
        beats(sorter, out, s0, s1, 200, 300, 400);

        assertThat(out).hasSize(4);
        List<Emission.Distributed<String>> xa = out.subList(0, 2).stream()
                .map(e -> (Emission.Distributed<String>) e).toList();
        assertThat(xa).extracting(Emission.Distributed::gtrid).containsExactlyInAnyOrder(
                new ShardUnit<String>(0, 1, Kind.XA_COMMIT, 0, TX1, 0, "k", ShardPosition.at("b", 4),
                        ShardPosition.at("b", 5), null).gtrid(),
                new ShardUnit<String>(0, 1, Kind.XA_COMMIT, 0, TX2, 0, "k", ShardPosition.at("b", 4),
                        ShardPosition.at("b", 5), null).gtrid());
        for (Emission.Distributed<String> d : xa) {
            assertThat(d.branches()).extracting(ShardUnit::shard).containsExactly(0, 1);
            assertThat(d.commits()).extracting(ShardUnit::shard).containsExactly(0, 1);
        }
        assertThat(xa).extracting(Emission.Distributed::reordered).containsExactly(true, false);
        assertThat(rows(out)).containsExactlyInAnyOrder("shard 0 rows of " + TX1, "shard 1 rows of " + TX1,
                "shard 0 rows of " + TX2, "shard 1 rows of " + TX2, "shard 0 after", "shard 1 after");
        assertThat(rows(out).subList(4, 6)).containsExactly("shard 0 after", "shard 1 after");
        assertThat(sorter.waiting()).isZero();
    }

    /**
     * What waits is counted per shard ({@code waiting(shard)}, which lets the merge move a shard's durable end past
     * its heartbeats while another shard's XA transaction is open): a prepared branch counts for its shard only, and
     * nothing is left once the transaction is emitted.
     */
    @Test
    void whatWaitsIsCountedPerShard() {
        GlobalSorter<String> sorter = sorter();
        Shard s0 = new Shard(0);
        Shard s1 = new Shard(1);
        sorter.offer(s0.hb(1000));
        sorter.offer(s1.hb(1000));
        sorter.offer(s1.prepare(TX1, 1_000_100));
        sorter.drain();
        assertThat(sorter.waiting(0)).isZero();
        assertThat(sorter.waiting(1)).isEqualTo(1);
        assertThat(sorter.waiting()).isEqualTo(1);
        sorter.offer(s1.commit(TX1, 1_000_200));
        for (long hb = 1100; hb <= 1400; hb += 100) {
            sorter.offer(s0.hb(hb));
            sorter.offer(s1.hb(hb));
        }
        assertThat(rows(sorter.drain())).containsExactly("shard 1 rows of " + TX1);
        assertThat(sorter.waiting(0)).isZero();
        assertThat(sorter.waiting(1)).isZero();
    }
}
