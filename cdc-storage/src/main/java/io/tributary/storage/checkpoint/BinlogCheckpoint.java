package io.tributary.storage.checkpoint;

import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.transaction.DdlHistory;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What ties the global binlog to its inputs: the end of the last durable global transaction and, for
 * every shard, where its reader resumes so that the next transaction it delivers is the first one not
 * in the binlog up to that end.
 *
 * <p>Example (as {@link CheckpointFile} stores it, names URL-encoded, {@code !} for absent):
 * <pre>
 * tributary-checkpoint 4
 * binlog binlog.000003 104857
 * sequence 4711
 * shard shard-0 mysql-bin.000012 4096 3e11fa47-71ca-11e1-9e33-c80aa9429562%3A1-42 0 1732233600123 1732233600123 1732233600101000
 * ddl 3q2-7wAAbbbCCCdddEEE 1 2 Zm9vYmFyYmF6cXV4 1 YmF6cXV4Zm9vYmFy 1
 * shape c2hvcABvcmRlcnMAQ1JFQVRFIFRBQkxFIGBvcmRlcnNgIC4uLg
 * crc 2844172912
 * </pre>
 *
 * @param file         the global binlog file holding the end of the last durable transaction
 * @param position     offset in {@code file} just past that transaction (or past the file header)
 * @param lastSequence GTID sequence number of that transaction (0 before the first)
 * @param shards       resume positions by shard name
 * @param ddl          the DDL deduplication's memory as of that transaction, with the shapes of physical tables
 *                     behind a DDL rolling out (the {@code shape} lines)
 */
public record BinlogCheckpoint(String file, long position, long lastSequence, Map<String, ShardCheckpoint> shards,
        DdlHistory ddl) {
    public BinlogCheckpoint {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(ddl, "ddl");
        if (position < 4) {
            throw new IllegalArgumentException("checkpoint position " + position + " in " + file + " is inside the magic");
        }
        if (lastSequence < 0) {
            throw new IllegalArgumentException("negative GTID sequence " + lastSequence);
        }
        shards = java.util.Collections.unmodifiableMap(new TreeMap<>(shards));
    }

    /** A checkpoint with no DDL remembered. */
    public BinlogCheckpoint(String file, long position, long lastSequence, Map<String, ShardCheckpoint> shards) {
        this(file, position, lastSequence, shards, DdlHistory.EMPTY);
    }

    @Override
    public String toString() {
        return file + ":" + position + " seq=" + lastSequence + " shards=" + shards.values()
                + (ddl.statements().isEmpty() ? "" : " ddl statements remembered=" + ddl.statements().size());
    }
}
