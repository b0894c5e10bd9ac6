package io.tributary.storage.binlog;

import io.tributary.core.position.ShardPosition;
import java.util.List;

/**
 * The global binlog's durable end together with how much of each shard's binlog it holds, read at one moment
 * ({@code MergeStage.durableCut}): up to {@code mark} the global binlog holds of shard i exactly its transactions that
 * end at or before {@code readThrough(i)}, the last of them ending at {@code lastTransactionEnd(i)}. Lists in shard
 * index order.
 *
 * @param mark               the global binlog's durable end
 * @param readThrough        per shard, where in its binlog what the global binlog holds up to {@code mark} ends (its
 *                           last transaction there, or, when none of its units waited, everything read: heartbeats too); null:
 *                           nothing of it durable yet
 * @param lastTransactionEnd per shard, where its last transaction held up to {@code mark} ends; null: none written
 *                           since the start
 */
public record DurableCut(DurableMark mark, List<ShardPosition> readThrough, List<ShardPosition> lastTransactionEnd) {
}
