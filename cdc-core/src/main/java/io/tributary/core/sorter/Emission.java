package io.tributary.core.sorter;

import io.tributary.core.position.ShardCheckpoint;
import java.util.List;

/**
 * What the {@link GlobalSorter} emits, in global order: one shard transaction, or the branches of one XA
 * transaction stitched together. Each carries the checkpoints that become true once it is durable.
 *
 * @param <P> payload type of the units
 */
public sealed interface Emission<P> {

    /** Checkpoints of every shard whose resume point moved since the previous emission. */
    List<ShardCheckpoint> checkpoints();

    /** A transaction of one shard (or an XA transaction committed in one phase). */
    record Single<P>(ShardUnit<P> transaction, List<ShardCheckpoint> checkpoints) implements Emission<P> {
        public Single {
            checkpoints = List.copyOf(checkpoints);
        }
    }

    /**
     * The committed branches of one XA transaction as ONE transaction: their prepared parts in order of
     * shard index then branch qualifier.
     *
     * @param gtrid      format id and gtrid
     * @param branches   the XA_PREPARE units, whose payloads hold the branches' events
     * @param commits    the XA_COMMIT units, one per branch
     * @param abandoned  shards of branches given up after {@code cdc.xa.maxWait} (normally empty)
     * @param reordered  true when it was written ahead of units before its commit on some shard, to break a
     *                   cycle of XA transactions whose commits cross (logged; normally false)
     */
    record Distributed<P>(String gtrid, List<ShardUnit<P>> branches, List<ShardUnit<P>> commits,
            List<Integer> abandoned, boolean reordered, List<ShardCheckpoint> checkpoints) implements Emission<P> {
        public Distributed {
            branches = List.copyOf(branches);
            commits = List.copyOf(commits);
            abandoned = List.copyOf(abandoned);
            checkpoints = List.copyOf(checkpoints);
        }
    }
}
