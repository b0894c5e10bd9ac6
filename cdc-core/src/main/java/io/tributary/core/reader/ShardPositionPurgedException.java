package io.tributary.core.reader;

import io.tributary.core.position.ShardPosition;
import java.util.List;

/**
 * The shard cannot serve the requested position (server error 1236, or 1789 for GTIDs): its
 * binlog was purged, or the file or offset does not exist. Lists what the shard still has. Not
 * retried: resuming needs a decision (a new snapshot or an older backup).
 */
public final class ShardPositionPurgedException extends ShardReaderException {
    /** One binlog file the shard still has. */
    public record BinlogFile(String name, long size) {
    }

    private final ShardPosition requested;
    private final List<BinlogFile> available;
    private final int serverErrorCode;
    private final String serverMessage;

    public ShardPositionPurgedException(String shard, ShardPosition requested, List<BinlogFile> available,
                                        int serverErrorCode, String serverMessage, Throwable cause) {
        super(shard, "position " + requested + " is not available (server error " + serverErrorCode + ": "
                + serverMessage + "); the shard has " + describe(available), false, cause);
        this.requested = requested;
        this.available = List.copyOf(available);
        this.serverErrorCode = serverErrorCode;
        this.serverMessage = serverMessage;
    }

    private static String describe(List<BinlogFile> files) {
        if (files.isEmpty()) {
            return "no binlog files (or SHOW BINARY LOGS failed)";
        }
        BinlogFile first = files.get(0);
        BinlogFile last = files.get(files.size() - 1);
        return files.size() + " binlog file(s), from " + first.name() + ":4 to " + last.name() + ":" + last.size();
    }

    public ShardPosition requested() {
        return requested;
    }

    public List<BinlogFile> available() {
        return available;
    }

    public int serverErrorCode() {
        return serverErrorCode;
    }

    public String serverMessage() {
        return serverMessage;
    }
}
