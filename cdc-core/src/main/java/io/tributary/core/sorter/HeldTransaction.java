package io.tributary.core.sorter;

import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.transaction.GlobalEvent;
import io.tributary.core.transaction.GlobalTransaction;
import java.util.Iterator;
import java.util.List;

/**
 * A {@link GlobalTransaction} whose events are held in memory, so it can be read more than once: small
 * transactions, DDL, and recorded feeds for tests and benchmarks. Large transactions stream from the spill
 * store instead ({@code MergedTransaction} in cdc-storage).
 */
public record HeldTransaction(Kind kind, long commitTimeMicros, List<GlobalEvent> eventList,
        List<ShardCheckpoint> checkpoints, String provenance) implements GlobalTransaction {

    public HeldTransaction {
        eventList = List.copyOf(eventList);
        checkpoints = List.copyOf(checkpoints);
    }

    @Override
    public Iterator<GlobalEvent> events() {
        return eventList.iterator();
    }
}
