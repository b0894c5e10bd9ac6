package io.tributary.storage.merge;

import static io.tributary.storage.merge.StageUnits.heartbeat;
import static io.tributary.storage.merge.StageUnits.sealed;
import static io.tributary.storage.merge.StageUnits.transaction;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.FormatDescription;
import io.tributary.core.naming.LogicalNames;
import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.position.ShardPosition;
import io.tributary.storage.binlog.BinlogConfig;
import io.tributary.storage.binlog.BinlogRecovery;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.storage.buffer.BufferedTransaction;
import io.tributary.storage.buffer.LivePersistSettings;
import io.tributary.storage.buffer.PersistConfig;
import io.tributary.storage.buffer.SpillStore;
import io.tributary.storage.buffer.TransactionBuffer;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write that fails on the append thread (here: the writer was closed under it) is the stage's failure, with the
 * cause, for whoever waits on the stage and for the next hand-over; closing the stage then does not hang.
 */
class MergeStageAppendFailureTest {

    @TempDir
    Path dir;

    @Test
    void aFailedAppendIsTheStagesFailureWithItsCause() throws Exception {
        CorpusEvents corpus = CorpusEvents.load("append failure test on real events");
        List<BinlogEvent> dml = corpus.tableMapAndRows();
        FormatDescription fde = corpus.fde();
        BinlogConfig config = BinlogConfig.parse(Map.of("binlog.dir", dir.resolve("binlog").toString(),
                "binlog.sync", "none", "binlog.flavor", "mariadb"));
        Map<String, String> values = new HashMap<>(Map.of("storage.path", dir.resolve("spill").toString()));
        try (SpillStore store = SpillStore.open(dir.resolve("spill"));
                TransactionBuffer buffer = new TransactionBuffer(new LivePersistSettings(new PersistConfig(1L << 30), values),
                        store)) {
            GlobalBinlogWriter writer = GlobalBinlogWriter.open(config, BinlogRecovery.recover(config), Clock.systemUTC());
            MergeStage stage = new MergeStage(List.of(ShardCheckpoint.at("s0", ShardPosition.at("bin.000001", 4))),
                    writer, buffer, LogicalNames.defaults(), Duration.ofSeconds(60), 16);
            stage.offer(heartbeat(10, 1));
            stage.offer(transaction(sealed(buffer, fde, dml, "0-1-1"), 20));
            writer.close(); // every later append fails
            stage.offer(heartbeat(30, 2));
            stage.drain(); // hands the transaction over; the append thread fails on it

            assertThatThrownBy(stage::awaitAppended).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("global binlog appends failed")
                    .rootCause().hasMessageContaining("is closed");
            assertThat(stage.failure()).hasMessageContaining("is closed");

            stage.offer(transaction(sealed(buffer, fde, dml, "0-1-2"), 40));
            stage.offer(heartbeat(50, 3));
            assertThatThrownBy(stage::drain).as("the next hand-over")
                    .hasMessageContaining("global-binlog-append failed").rootCause().hasMessageContaining("is closed");
            stage.close(); // returns: the failed ring drains by discarding
            assertThat(stage.transactionsWritten()).isZero();
        }
    }
}
