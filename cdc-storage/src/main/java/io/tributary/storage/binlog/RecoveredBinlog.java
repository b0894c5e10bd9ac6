package io.tributary.storage.binlog;

import io.tributary.core.position.ShardCheckpoint;
import io.tributary.storage.checkpoint.BinlogCheckpoint;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What {@link BinlogRecovery} found and left behind: the files (the last one ends exactly at the
 * checkpoint), the checkpoint itself, and what it did. A fresh directory has no files and no checkpoint.
 *
 * @param files      the files that remain, oldest first, with their previous-GTID sequence numbers
 * @param checkpoint the last durable checkpoint, empty in a fresh directory
 * @param actions    what recovery did, one line each (also logged)
 * @param lastEventTimestamp the header timestamp (seconds) of the last event before the checkpoint, 0 in a fresh
 *                   directory: the binlog time the writer's next ROTATE, file header or STOP carries until it
 *                   writes a transaction (see {@link GlobalBinlogWriter}, "Timestamps")
 */
public record RecoveredBinlog(List<BinlogIndex.Entry> files, Optional<BinlogCheckpoint> checkpoint, List<String> actions,
        long lastEventTimestamp) {
    public RecoveredBinlog {
        files = List.copyOf(files);
        actions = List.copyOf(actions);
    }

    /** Where each shard reader resumes (empty in a fresh directory: start from configuration). */
    public Map<String, ShardCheckpoint> shardCheckpoints() {
        return checkpoint.map(BinlogCheckpoint::shards).orElse(Map.of());
    }

    /** The GTID sequence number the next global transaction gets. */
    public long nextSequence() {
        return checkpoint.map(c -> c.lastSequence() + 1).orElse(1L);
    }

    public boolean isFresh() {
        return files.isEmpty();
    }
}
