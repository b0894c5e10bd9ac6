package io.tributary.storage.binlog;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The child JVM of {@link GlobalBinlogCrashTest}: recovers {@code binlog.dir}, resumes the deterministic
 * {@link CrashFeed} from the recovered checkpoint, prints {@code READY <index>} and writes until it is
 * killed. Arguments: directory, flavor, file size, sync policy.
 */
public final class CrashTestWriter {
    private CrashTestWriter() {
    }

    public static void main(String[] args) throws Exception {
        BinlogConfig config = BinlogConfig.parse(Map.of("binlog.dir", args[0], "binlog.flavor", args[1],
                "binlog.file.size", args[2], "binlog.sync", args[3], "binlog.server.id", "7"));
        List<SourceTransactions.Source> pool = new ArrayList<>(SourceTransactions.read(SourceTransactions.MYSQL_SOURCE));
        pool.addAll(SourceTransactions.read(SourceTransactions.MARIADB_SOURCE));
        CrashFeed feed = new CrashFeed(pool);
        RecoveredBinlog recovered = BinlogRecovery.recover(config);
        long next = CrashFeed.resumeIndex(recovered);
        try (GlobalBinlogWriter writer = GlobalBinlogWriter.open(config, recovered, Clock.systemUTC())) {
            System.out.println("READY " + next + " " + String.join(" | ", recovered.actions()));
            System.out.flush();
            for (long i = next; ; i++) {
                writer.append(feed.transaction(i));
            }
        }
    }

}
