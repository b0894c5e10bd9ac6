package io.tributary.core.transaction;

import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.schema.SchemaChange;
import java.util.Iterator;
import java.util.List;

/**
 * One transaction of the global order, as the merger hands it to the global binlog writer: the contract
 * between the sorter/merger (cdc-core) and the binlog files (cdc-storage).
 *
 * <p>The writer gives it a GTID of its own, frames it ({@code GTID, BEGIN, table maps and rows, XID} for
 * {@link Kind#ROWS}; {@code GTID, QUERY} for {@link Kind#DDL}), and once it is durable stores
 * {@link #checkpoints()} with it, so that a restart resumes every shard exactly after what is written.
 *
 * <p>{@link #events()} may be read once, and may stream from the spill store: a 10 GB transaction is
 * never held in memory as a whole. Implementations are handed from one thread to the next and used by
 * one thread at a time.
 */
public interface GlobalTransaction {

    /** What the transaction holds. */
    enum Kind {
        /** Row changes: table maps and rows events. */
        ROWS,
        /** One DDL statement with logical names. */
        DDL
    }

    Kind kind();

    /**
     * Commit time in microseconds since the epoch: the latest commit time of its source transactions (of
     * all branches, for an XA transaction). It becomes the GTID's commit timestamp and is what delay is
     * measured from.
     */
    long commitTimeMicros();

    /** The events in output order; one pass. */
    Iterator<GlobalEvent> events();

    /**
     * Where every shard this transaction moved resumes once it is durable. Shards it did not touch keep
     * their last checkpoint.
     */
    List<ShardCheckpoint> checkpoints();

    /**
     * The DDL deduplication's memory as of this transaction, stored with its checkpoints; null when it did not
     * change since the previous transaction (the stored one stays).
     */
    default DdlHistory ddlHistory() {
        return null;
    }

    /**
     * What this transaction's DDL did to the logical schema, stored in the schema history with its GTID sequence
     * before the checkpoint that covers it; null when it changed nothing (every ROWS transaction).
     */
    default SchemaChange schemaChange() {
        return null;
    }

    /** Provenance for logs and errors: source shards with their GTIDs or positions, e.g. {@code shard-0 0-101-42}. */
    String provenance();
}
