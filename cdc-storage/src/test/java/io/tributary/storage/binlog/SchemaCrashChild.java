package io.tributary.storage.binlog;

import java.time.Clock;
import java.util.Map;

/**
 * Child JVM of {@link SchemaHistoryCrashTest}: recovers, seeds the schema on the first start, then appends
 * {@link SchemaDdlFeed} transactions until killed.
 */
public final class SchemaCrashChild {
    private SchemaCrashChild() {
    }

    public static void main(String[] args) throws Exception {
        BinlogConfig config = BinlogConfig.parse(Map.of("binlog.dir", args[0], "binlog.flavor", args[1],
                "binlog.file.size", "8192", "binlog.sync", args[2], "binlog.server.id", "7"));
        RecoveredBinlog recovered = BinlogRecovery.recover(config);
        try (GlobalBinlogWriter writer = GlobalBinlogWriter.open(config, recovered, Clock.systemUTC())) {
            if (!writer.schemaHistory().seeded()) {
                writer.seedSchema(SchemaDdlFeed.seed(config.flavor()));
            }
            System.out.println("READY " + writer.lastSequence());
            System.out.flush();
            for (long i = writer.lastSequence() + 1; ; i++) {
                writer.append(SchemaDdlFeed.transaction(i, writer.schemaHistory().latest(), config.flavor()));
            }
        }
    }
}
