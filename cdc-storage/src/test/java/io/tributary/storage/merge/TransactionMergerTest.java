package io.tributary.storage.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.FormatDescription;
import io.tributary.core.naming.LogicalNames;
import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.sorter.Emission;
import io.tributary.core.sorter.ShardUnit;
import io.tributary.core.transaction.GlobalEvent;
import io.tributary.core.transaction.GlobalTransaction;
import io.tributary.storage.buffer.BufferedTransaction;
import io.tributary.storage.buffer.LivePersistSettings;
import io.tributary.storage.buffer.PersistConfig;
import io.tributary.storage.buffer.SpillStore;
import io.tributary.storage.buffer.TransactionBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The merger on real events (a MariaDB 10.0 binlog of the corpus): the same DDL from two shards is written
 * once and the duplicate's checkpoint rides with the next transaction written; a rows transaction comes out
 * under logical names.
 */
class TransactionMergerTest {

    @TempDir
    Path dir;

    @Test
    void aDuplicateDdlIsSkippedButItsCheckpointIsCarriedByTheNextTransaction() throws Exception {
        CorpusEvents corpus = CorpusEvents.load("merger test on real events");
        BinlogEvent ddl = corpus.createTable();
        List<BinlogEvent> dml = corpus.tableMapAndRows();
        FormatDescription fde = corpus.fde();
        Map<String, String> values = new HashMap<>(Map.of("storage.path", dir.resolve("spill").toString()));
        try (SpillStore store = SpillStore.open(dir.resolve("spill"));
                TransactionBuffer buffer = new TransactionBuffer(new LivePersistSettings(new PersistConfig(1L << 30), values),
                        store)) {
            TransactionMerger merger = new TransactionMerger(List.of("s0", "s1"), LogicalNames.defaults(), c -> { });
            ShardCheckpoint s0 = ShardCheckpoint.at("s0", ShardPosition.at("bin.000001", 500));
            ShardCheckpoint s1 = ShardCheckpoint.at("s1", ShardPosition.at("bin.000001", 700));
            ShardCheckpoint s1Later = ShardCheckpoint.at("s1", ShardPosition.at("bin.000001", 900));

            Optional<TransactionMerger.MergedTransaction> first = merger.merge(single(buffer, fde, 0, "0-1-1", List.of(ddl), s0));
            assertThat(first).isPresent();
            assertThat(first.get().kind()).isEqualTo(GlobalTransaction.Kind.DDL);
            assertThat(first.get().checkpoints()).containsExactly(s0);
            GlobalEvent only = first.get().events().next();
            assertThat(only).isInstanceOf(GlobalEvent.Query.class);

            Optional<TransactionMerger.MergedTransaction> duplicate = merger.merge(single(buffer, fde, 1, "0-2-1", List.of(ddl), s1));
            assertThat(duplicate).as("the same logical DDL from the second shard").isEmpty();
            assertThat(merger.pendingCheckpoints()).containsExactly(s1);

            Optional<TransactionMerger.MergedTransaction> rows = merger.merge(single(buffer, fde, 1, "0-2-2", dml, s1Later));
            assertThat(rows).isPresent();
            assertThat(rows.get().kind()).isEqualTo(GlobalTransaction.Kind.ROWS);
            // the later checkpoint of s1 replaces the duplicate's; the duplicate's buffer is released with it
            assertThat(rows.get().checkpoints()).containsExactly(s1Later);
            assertThat(rows.get().buffers()).hasSize(2);
            List<GlobalEvent> out = new ArrayList<>();
            rows.get().events().forEachRemaining(out::add);
            assertThat(out).hasSize(2);
            GlobalEvent.TableMap map = (GlobalEvent.TableMap) out.get(0);
            assertThat(map.tableId()).isPositive();
            assertThat(((GlobalEvent.Rows) out.get(1)).tableId()).isEqualTo(map.tableId());
            assertThat(map.database()).doesNotMatch(".*_\\d+$");
            assertThat(rows.get().provenance()).isEqualTo("s1 0-2-2");
            first.get().buffers().forEach(BufferedTransaction::release);
            rows.get().buffers().forEach(BufferedTransaction::release);
            assertThat(buffer.openTransactions()).isZero();
        }
    }

    private static Emission<BufferedTransaction> single(TransactionBuffer buffer, FormatDescription fde, int shard,
            String key, List<BinlogEvent> events, ShardCheckpoint checkpoint) {
        BufferedTransaction t = buffer.begin("s" + shard, key, fde);
        events.forEach(t::append);
        t.seal();
        ShardPosition at = checkpoint.resumeFrom();
        return new Emission.Single<>(new ShardUnit<>(shard, at.position(), ShardUnit.Kind.TRANSACTION, 1_000_000L, null, 0,
                key, at, at, t), List.of(checkpoint));
    }
}
