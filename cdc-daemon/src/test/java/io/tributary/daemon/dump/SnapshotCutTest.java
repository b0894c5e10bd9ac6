package io.tributary.daemon.dump;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.core.position.ShardPosition;
import io.tributary.storage.binlog.BinlogPosition;
import io.tributary.storage.binlog.DurableCut;
import io.tributary.storage.binlog.DurableMark;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The decision behind the position a snapshot answers: wait while the global binlog does not hold a shard up to its
 * snapshot position, exact (G1) when it holds every shard exactly up to there, at-least-once (G0) when some shard's
 * transaction after its snapshot position is already in it.
 */
class SnapshotCutTest {

    private static final DurableMark MARK = new DurableMark(new BinlogPosition("binlog.000001", 900), 12);

    private static ShardPosition at(String file, long pos) {
        return ShardPosition.at(file, pos);
    }

    private static DurableCut cut(List<ShardPosition> through, ShardPosition... lastTransactions) {
        return new DurableCut(MARK, through, Arrays.asList(lastTransactions));
    }

    @Test
    void shouldWaitWhileAShardIsNotHeldUpToItsSnapshotPosition() {
        SnapshotCut.Decision d = SnapshotCut.decide(List.of(at("b.000001", 500), at("b.000003", 100)),
                cut(List.of(at("b.000001", 500), at("b.000002", 9000)), at("b.000001", 500), at("b.000002", 9000)));
        assertThat(d.kind()).isEqualTo(SnapshotCut.Kind.BEHIND);
        assertThat(d.shard()).isEqualTo(1);
        assertThat(SnapshotCut.decide(List.of(at("b.000001", 500)), cut(Arrays.asList((ShardPosition) null),
                (ShardPosition) null)).kind()).isEqualTo(SnapshotCut.Kind.BEHIND);
    }

    @Test
    void shouldBeExactWhenEveryShardIsHeldUpToItsPositionAndNoTransactionPastIt() {
        // shard 0: its last transaction ends right at the snapshot position; shard 1: heartbeats read past its position,
        // its last transaction before it; shard 2: nothing written since the start
        SnapshotCut.Decision d = SnapshotCut.decide(List.of(at("b.000001", 500), at("b.000002", 300), at("b.000001", 4)),
                cut(List.of(at("b.000001", 500), at("b.000003", 200), at("b.000001", 700)), at("b.000001", 500),
                        at("b.000002", 120), null));
        assertThat(d.kind()).isEqualTo(SnapshotCut.Kind.EXACT);
        assertThat(d.cut().mark()).isEqualTo(MARK);
    }

    @Test
    void shouldBeAtLeastOnceWhenATransactionPastASnapshotPositionIsDurable() {
        SnapshotCut.Decision d = SnapshotCut.decide(List.of(at("b.000001", 500), at("b.000002", 300)),
                cut(List.of(at("b.000001", 800), at("b.000002", 300)), at("b.000001", 400), at("b.000002", 301)));
        assertThat(d.kind()).isEqualTo(SnapshotCut.Kind.PASSED);
        assertThat(d.shard()).isEqualTo(1);
        // a later file counts as past, whatever the offsets
        assertThat(SnapshotCut.decide(List.of(at("b.000001", 500)), cut(List.of(at("b.000002", 10)),
                at("b.000002", 10))).kind()).isEqualTo(SnapshotCut.Kind.PASSED);
    }

    @Test
    void shouldRefuseACutOfAnotherNumberOfShards() {
        assertThatThrownBy(() -> SnapshotCut.decide(List.of(at("b.000001", 4)), cut(List.of(at("b.000001", 4),
                at("b.000001", 4)), null, null))).hasMessageContaining("reads 2 shards").hasMessageContaining("knows 1");
    }
}
