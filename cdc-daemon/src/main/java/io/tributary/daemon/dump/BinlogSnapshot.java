package io.tributary.daemon.dump;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.storage.binlog.BinlogIndex;
import io.tributary.storage.binlog.BinlogPosition;
import io.tributary.storage.binlog.DurableMark;
import io.tributary.storage.binlog.GlobalBinlogWriter;

import java.util.List;
import java.util.UUID;

/**
 * What the statements about the binlog report, taken at one moment from the writer: the durable end, the
 * last durable GTID sequence number, the oldest GTID still in the files, and the file list.
 *
 * @param purgedUpTo the sequence number of the last transaction no longer in any file (0 = none purged)
 */
record BinlogSnapshot(BinlogFlavor flavor, UUID serverUuid, long serverId, long domainId, BinlogPosition end,
                      long lastSequence, long purgedUpTo, List<BinlogIndex.Entry> files) {

    static BinlogSnapshot of(GlobalBinlogWriter w) {
        return of(w, w.durability().current());
    }

    /** As {@link #of(GlobalBinlogWriter)}, with the end at {@code mark} (a durable mark of {@code w}). */
    static BinlogSnapshot of(GlobalBinlogWriter w, DurableMark mark) {
        List<BinlogIndex.Entry> files = w.index().entries();
        return new BinlogSnapshot(w.flavor(), w.serverUuid(), w.config().serverId(), w.config().domainId(),
                mark.position(), mark.lastSequence(), files.isEmpty() ? 0 : files.get(0).previousSequence(), files);
    }

    /** {@code @@gtid_executed} (MySQL) or {@code @@gtid_binlog_pos} (MariaDB). */
    String executedGtids() {
        return gtidsUpTo(lastSequence);
    }

    /** {@code @@gtid_purged}: what was written but no longer is in the files. */
    String purgedGtids() {
        return flavor.isMariaDb() ? "" : gtidsUpTo(purgedUpTo);
    }

    String gtidsUpTo(long sequence) {
        if (sequence <= 0) {
            return "";
        }
        return flavor.isMariaDb() ? domainId + "-" + serverId + "-" + sequence : serverUuid + ":1-" + sequence;
    }
}
