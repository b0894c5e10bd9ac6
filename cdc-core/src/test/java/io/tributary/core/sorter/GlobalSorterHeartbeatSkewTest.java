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
 * A heartbeat is written to the shards one after the other, so it is no instantaneous cut: a shard written
 * early in a round may get that round's beat before a prepare that a later shard's commit follows. Seen on
 * live shards (GlobalBinlogPipelineIT): an XA transaction's branches were emitted as two transactions.
 */
class GlobalSorterHeartbeatSkewTest {

    private static final XaXid B0 = xid("b0");
    private static final XaXid B1 = xid("b1");

    private static XaXid xid(String bqual) {
        return new XaXid(1, "tx-1".getBytes(StandardCharsets.US_ASCII), bqual.getBytes(StandardCharsets.US_ASCII));
    }

    private static final class Shard {
        final int index;
        long seq;

        Shard(int index) {
            this.index = index;
        }

        ShardUnit<String> unit(Kind kind, XaXid xid, long hb, long ts) {
            seq += 100;
            ShardPosition p = ShardPosition.at("bin.000001", seq);
            return new ShardUnit<>(index, seq, kind, ts, xid, hb, "bin.000001:" + seq, p,
                    ShardPosition.at("bin.000001", seq + 50), kind == Kind.XA_PREPARE ? "rows of " + xid : null);
        }

        ShardUnit<String> hb(long value) {
            return unit(Kind.HEARTBEAT, null, value, 0);
        }
    }

    @Test
    void aBranchPreparedAfterTheNextBeatReachedItsShardStillJoinsItsTransaction() {
        GlobalSorter<String> sorter = new GlobalSorter<>(List.of(ShardCheckpoint.at("s0", ShardPosition.at("bin.000001", 4)),
                ShardCheckpoint.at("s1", ShardPosition.at("bin.000001", 4))), Duration.ofSeconds(60));
        Shard s0 = new Shard(0);
        Shard s1 = new Shard(1);
        List<Emission<String>> out = new ArrayList<>();
        // beat 200 reaches shard 0 at t=4, then shard 1 only at t=6.5, after b1 prepared (t=3) and committed (t=6);
        // b0 prepares at t=5, after beat 200 on its shard, and commits at t=7
        sorter.offer(s1.hb(100));
        sorter.offer(s1.unit(Kind.XA_PREPARE, B1, 0, 3_000_000));
        sorter.offer(s1.unit(Kind.XA_COMMIT, B1, 0, 6_000_000));
        sorter.offer(s1.hb(200));
        sorter.offer(s0.hb(100));
        sorter.offer(s0.hb(200));
        out.addAll(sorter.drain());
        sorter.offer(s0.unit(Kind.XA_PREPARE, B0, 0, 5_000_000));
        sorter.offer(s0.unit(Kind.XA_COMMIT, B0, 0, 7_000_000));
        sorter.offer(s0.hb(300));
        sorter.offer(s1.hb(300));
        out.addAll(sorter.drain());
        sorter.offer(s0.hb(400));
        sorter.offer(s1.hb(400));
        out.addAll(sorter.drain());
        assertThat(out).hasSize(1);
        assertThat(out.get(0)).isInstanceOf(Emission.Distributed.class);
        Emission.Distributed<String> xa = (Emission.Distributed<String>) out.get(0);
        assertThat(xa.branches()).extracting(ShardUnit::xid).containsExactly(B0, B1);
        assertThat(xa.abandoned()).isEmpty();
        assertThat(xa.commits()).extracting(ShardUnit::shard).containsExactlyInAnyOrder(0, 1);
    }
}
