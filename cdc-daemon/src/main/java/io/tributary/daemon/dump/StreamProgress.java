package io.tributary.daemon.dump;

import io.tributary.storage.binlog.DurableCut;

/**
 * How far the global binlog durably holds each shard's binlog, as the dump server needs it to answer a binlog position
 * that matches what a client's {@code SELECT}s see ({@link StreamPositions}): the pipeline's durable cut, and a way to
 * ask for a heartbeat when a shard's binlog ends in events that only a heartbeat lets the pipeline pass. Shards are
 * in configuration order, as {@link ShardSource#shards()} lists them. Thread-safe.
 */
public interface StreamProgress {

    /** No pipeline: positions are the writer's durable end, as without shards. */
    StreamProgress NONE = new StreamProgress() {
        @Override
        public DurableCut cut() {
            return null;
        }

        @Override
        public void nudge() {
        }
    };

    /** The durable cut ({@link DurableCut}, read by {@code MergeStage.durableCut}); null while the pipeline is not running. */
    DurableCut cut();

    /** Something waits for the pipeline to move: write a heartbeat soon (returns at once). */
    void nudge();
}
