package io.tributary.core.reader;

import io.tributary.core.position.ShardPosition;

/** An event from the shard failed a check (CRC32, declared size, a field past its end). Not retried. */
public final class CorruptShardEventException extends ShardReaderException {
    private final ShardPosition where;

    public CorruptShardEventException(String shard, ShardPosition where, String what) {
        super(shard, "corrupt event at " + where + ": " + what, false, null);
        this.where = where;
    }

    /** The position of the event's start. */
    public ShardPosition where() {
        return where;
    }
}
