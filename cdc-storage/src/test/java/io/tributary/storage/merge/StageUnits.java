package io.tributary.storage.merge;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.FormatDescription;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.sorter.ShardUnit;
import io.tributary.storage.buffer.BufferedTransaction;
import io.tributary.storage.buffer.TransactionBuffer;
import java.util.List;

/** Units of shard 0 ({@code bin.000001}) offered straight to a {@link MergeStage} in tests, no reader in between. */
final class StageUnits {

    private StageUnits() {
    }

    static ShardUnit<BufferedTransaction> heartbeat(long sequence, long beat) {
        ShardPosition at = ShardPosition.at("bin.000001", sequence);
        return new ShardUnit<>(0, sequence, ShardUnit.Kind.HEARTBEAT, 0, null, beat, "hb-" + beat, at, at, null);
    }

    /** {@code events} buffered as one sealed transaction named {@code key} of shard {@code s0}. */
    static BufferedTransaction sealed(TransactionBuffer buffer, FormatDescription fde, List<BinlogEvent> events, String key) {
        BufferedTransaction t = buffer.begin("s0", key, fde);
        events.forEach(t::append);
        t.seal();
        return t;
    }

    static ShardUnit<BufferedTransaction> transaction(BufferedTransaction t, long sequence) {
        ShardPosition at = ShardPosition.at("bin.000001", sequence);
        return new ShardUnit<>(0, sequence, ShardUnit.Kind.TRANSACTION, 1_000_000L, null, 0, t.key(), at, at, t);
    }
}
