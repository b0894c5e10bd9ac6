package io.tributary.storage.binlog;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.EventType;
import io.tributary.core.event.RowsEvent;
import io.tributary.core.event.TableMapEvent;
import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.sorter.HeldTransaction;
import io.tributary.core.transaction.GlobalEvent;
import io.tributary.core.transaction.GlobalTransaction;
import java.util.ArrayList;
import java.util.List;

/**
 * The deterministic source of the crash test: transaction {@code i} is a real corpus transaction whose
 * logical database is {@code feed_<i>}, so each output transaction names the source transaction it came
 * from. Every 23rd is a large transaction (its rows repeated past several write chunks), every 50th a DDL.
 * The source position after transaction {@code i} is {@code feed.000001:<i+1>}: the checkpoint stored with
 * it says the shard resumes with transaction {@code i+1}.
 */
final class CrashFeed {
    static final String SHARD = "shard-0";
    static final String SOURCE_FILE = "feed.000001";

    private final List<SourceTransactions.Source> pool;

    CrashFeed(List<SourceTransactions.Source> pool) {
        this.pool = pool;
    }

    /** Where the shard resumes, from a recovered checkpoint (0 when there is none). */
    static long resumeIndex(RecoveredBinlog recovered) {
        ShardCheckpoint cp = recovered.shardCheckpoints().get(SHARD);
        return cp == null ? 0 : cp.resumeFrom().position();
    }

    GlobalTransaction transaction(long i) {
        List<ShardCheckpoint> checkpoint = List.of(ShardCheckpoint.at(SHARD, ShardPosition.at(SOURCE_FILE, i + 1)));
        if (i % 50 == 49) {
            return new HeldTransaction(GlobalTransaction.Kind.DDL, 1_700_000_000_000_000L + i,
                    List.of(new GlobalEvent.Query(1_700_000_000L, "feed_" + i, "CREATE TABLE t" + i + " (id INT)")),
                    checkpoint, "feed #" + i);
        }
        SourceTransactions.Source s = pool.get((int) (i % pool.size()));
        int repeat = i % 23 == 22 ? 20_000 : 1;
        List<GlobalEvent> events = new ArrayList<>();
        long tableId = 0;
        for (BinlogEvent e : s.events()) {
            if (e.type() == EventType.TABLE_MAP) {
                TableMapEvent m = e.body(TableMapEvent.class);
                tableId = 1000 + (m.tableId() % 1000);
                events.add(new GlobalEvent.TableMap(e, tableId, "feed_" + i, m.table()));
            } else {
                long id = 1000 + (e.body(RowsEvent.class).tableId() % 1000);
                for (int r = 0; r < repeat; r++) {
                    events.add(new GlobalEvent.Rows(e, id));
                }
            }
        }
        return new HeldTransaction(GlobalTransaction.Kind.ROWS, s.commitMicros(), events, checkpoint, "feed #" + i);
    }
}
