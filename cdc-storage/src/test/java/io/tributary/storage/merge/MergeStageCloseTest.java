package io.tributary.storage.merge;

import static io.tributary.storage.merge.StageUnits.heartbeat;
import static io.tributary.storage.merge.StageUnits.sealed;
import static io.tributary.storage.merge.StageUnits.transaction;
import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Closing the stage while the syncer thread is releasing a transaction that just became durable: close returns
 * only once that release is done, so the spill store is empty when the caller looks at it (or closes it) next.
 * LargeXaTransactionIT once found the store not empty: close had returned while the syncer was still
 * range-deleting the spilled branches.
 */
class MergeStageCloseTest {

    @TempDir
    Path dir;

    @Test
    void closeWaitsForAReleaseUnderWayOnTheSyncerThread() throws Exception {
        CorpusEvents corpus = CorpusEvents.load("close test on real events");
        List<BinlogEvent> dml = corpus.tableMapAndRows();
        FormatDescription fde = corpus.fde();
        BinlogConfig config = BinlogConfig.parse(Map.of("binlog.dir", dir.resolve("binlog").toString(),
                "binlog.sync", "commit", "binlog.flavor", "mariadb"));
        Map<String, String> values = new HashMap<>(Map.of(PersistConfig.PATH, dir.resolve("spill").toString(),
                PersistConfig.MODE, "FORCE"));
        try (SpillStore store = SpillStore.open(dir.resolve("spill"));
                TransactionBuffer buffer = new TransactionBuffer(new LivePersistSettings(new PersistConfig(1L << 30), values),
                        store);
                GlobalBinlogWriter writer = GlobalBinlogWriter.open(config, BinlogRecovery.recover(config), Clock.systemUTC())) {
            MergeStage stage = new MergeStage(List.of(ShardCheckpoint.at("s0", ShardPosition.at("bin.000001", 4))),
                    writer, buffer, LogicalNames.defaults(), Duration.ofSeconds(60), 16);
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch proceed = new CountDownLatch(1);
            // told of the durable transaction just before its buffers are released: hold the release there
            stage.delayListener((shard, commitMillis, durableMillis) -> {
                entered.countDown();
                try {
                    proceed.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            stage.offer(heartbeat(10, 1));
            BufferedTransaction spilled = sealed(buffer, fde, dml, "0-1-1");
            stage.offer(transaction(spilled, 20));
            stage.offer(heartbeat(30, 2));
            stage.drain();
            stage.awaitAppended();
            assertThat(entered.await(10, TimeUnit.SECONDS)).as("the durable transaction is being released").isTrue();
            assertThat(spilled.eventsOnDisk()).as("events of the FORCE transaction on disk").isEqualTo(dml.size());

            CountDownLatch closed = new CountDownLatch(1);
            Thread closer = new Thread(() -> {
                stage.close();
                closed.countDown();
            }, "stage-closer");
            closer.start();
            assertThat(closed.await(300, TimeUnit.MILLISECONDS)).as("close returned while a release was under way")
                    .isFalse();
            proceed.countDown();
            assertThat(closed.await(10, TimeUnit.SECONDS)).as("close returns once the release is done").isTrue();

            assertThat(spilled.state()).isEqualTo(BufferedTransaction.State.RELEASED);
            assertThat(buffer.spilledBytes()).isZero();
            store.compact();
            assertThat(store.isEmpty()).as("spill store empty after close").isTrue();
            assertThat(stage.transactionsWritten()).isEqualTo(1);
        }
    }
}
