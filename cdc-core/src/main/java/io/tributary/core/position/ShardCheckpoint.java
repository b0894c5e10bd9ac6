package io.tributary.core.position;

import java.util.Objects;
import java.util.Set;

/**
 * Where one shard's reader resumes after a restart, so that no shard transaction is lost and none is
 * written twice (ARCHITECTURE.md, invariant 5).
 *
 * <p>Global order may emit a shard's later transactions before an earlier one is complete (a prepared
 * XA branch waits for its commit while what follows it on the shard moves on). The reader must then
 * resume at the earliest event not yet written, {@code resumeFrom}, and skip the transactions after it
 * that are already in the global binlog, named in {@code writtenAfter} by their key: the shard GTID
 * ({@code 0-101-42}, {@code uuid:7}) or, without GTIDs, {@code file:position} of the transaction's first
 * event. In the common case {@code writtenAfter} is empty.
 *
 * <p>{@code clock} is the sorter's state of that shard at {@code resumeFrom}, so that units read again
 * after a restart are ordered exactly as they were the first time (invariant 4).
 *
 * @param shard        shard name from configuration
 * @param resumeFrom   position of the earliest event whose transaction is not yet durable in the output
 * @param writtenAfter keys of transactions after {@code resumeFrom} already durable in the output
 * @param clock        the shard's ordering clock at {@code resumeFrom}
 */
public record ShardCheckpoint(String shard, ShardPosition resumeFrom, Set<String> writtenAfter, Clock clock) {

    /**
     * The sorter's clock of one shard: the last heartbeat value read, and the running maximum of
     * (window, commit time) of its transactions, which keeps a shard's order when its clock steps back.
     */
    public record Clock(long heartbeat, long window, long timeMicros) {
        /** A shard read from its start: no heartbeat seen yet. */
        public static final Clock START = new Clock(0, 0, Long.MIN_VALUE);
    }

    public ShardCheckpoint {
        Objects.requireNonNull(shard, "shard");
        Objects.requireNonNull(resumeFrom, "resumeFrom");
        Objects.requireNonNull(clock, "clock");
        writtenAfter = Set.copyOf(writtenAfter);
    }

    public ShardCheckpoint(String shard, ShardPosition resumeFrom, Set<String> writtenAfter) {
        this(shard, resumeFrom, writtenAfter, Clock.START);
    }

    public static ShardCheckpoint at(String shard, ShardPosition resumeFrom) {
        return new ShardCheckpoint(shard, resumeFrom, Set.of(), Clock.START);
    }
}
