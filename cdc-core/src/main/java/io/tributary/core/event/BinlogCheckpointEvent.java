package io.tributary.core.event;

/**
 * MariaDB BINLOG_CHECKPOINT_EVENT (161): the oldest binlog file still needed for crash recovery.
 * Body: {@code name_length(4) name}.
 */
public record BinlogCheckpointEvent(String fileName) implements EventBody {

    static BinlogCheckpointEvent read(EventReader r) {
        long length = r.u32("checkpoint file name length");
        return new BinlogCheckpointEvent(r.string(length, "checkpoint file name"));
    }
}
