package io.tributary.storage.binlog;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.EventType;
import io.tributary.core.event.RowsEvent;
import io.tributary.core.event.TableMapEvent;
import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.sorter.HeldTransaction;
import io.tributary.core.transaction.GlobalEvent;
import io.tributary.core.transaction.GlobalTransaction;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Real row transactions from the shared corpus ({@code <tributary.shared.dir>/testdata/binlog}), cut at
 * GTID..XID and turned into {@link GlobalTransaction}s the way the merger hands them over: logical names
 * {@code logical_<db>.<table>}, global table ids from 1000, and a checkpoint that is the source position
 * after the transaction's XID. Tests are skipped with a reason when the corpus is absent.
 */
final class SourceTransactions {
    static final String MYSQL_SOURCE = "mysql-8.0/pbs__data_80045_gtid_binlog.000001";
    static final String MARIADB_SOURCE = "mariadb-10.x/rmc__mariadb-bin.000001";

    /** One source transaction: its table maps and rows, and where it ends in its source. */
    record Source(String file, long endOffset, long commitMicros, List<BinlogEvent> events) {
    }

    private SourceTransactions() {
    }

    static Path corpus() {
        String shared = System.getProperty("tributary.shared.dir");
        Path dir = shared == null ? null : Path.of(shared, "testdata", "binlog");
        assumeTrue(dir != null && Files.isDirectory(dir),
                "binlog corpus not found (system property tributary.shared.dir = " + shared + ")");
        return dir;
    }

    /** The row transactions of a corpus file, in order. */
    static List<Source> read(String relative) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(corpus().resolve(relative));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Source> out = new ArrayList<>();
        List<BinlogEvent> txn = null;
        for (BinlogEventDecoder d = new BinlogEventDecoder(relative, bytes); d.hasNext(); ) {
            BinlogEvent e = d.next();
            EventType t = e.type();
            if (t == EventType.GTID || t == EventType.ANONYMOUS_GTID || t == EventType.MARIA_GTID) {
                txn = new ArrayList<>();
            } else if (txn != null && (t == EventType.TABLE_MAP || isRows(t))) {
                txn.add(e);
            } else if (txn != null && t == EventType.XID) {
                if (!txn.isEmpty()) {
                    out.add(new Source(relative, e.offset() + e.length(), e.header().timestamp() * 1_000_000, txn));
                }
                txn = null;
            }
        }
        return out;
    }

    /** {@code source} as a global transaction from {@code shard}, its checkpoint in source file {@code sourceFile}. */
    static HeldTransaction global(Source source, String shard, String sourceFile) {
        Map<Long, Long> ids = new HashMap<>();
        List<GlobalEvent> events = new ArrayList<>();
        for (BinlogEvent e : source.events()) {
            if (e.type() == EventType.TABLE_MAP) {
                TableMapEvent m = e.body(TableMapEvent.class);
                long id = 1000 + Math.floorMod((m.database() + "." + m.table()).hashCode(), 100_000);
                ids.put(m.tableId(), id);
                events.add(new GlobalEvent.TableMap(e, id, "logical_" + m.database(), m.table()));
            } else {
                events.add(new GlobalEvent.Rows(e, ids.get(e.body(RowsEvent.class).tableId())));
            }
        }
        ShardPosition pos = ShardPosition.at(sourceFile, source.endOffset());
        return new HeldTransaction(GlobalTransaction.Kind.ROWS, source.commitMicros(), events, List.of(ShardCheckpoint.at(shard, pos)),
                shard + " " + pos);
    }

    /** A DDL transaction. */
    static HeldTransaction ddl(String shard, String sourceFile, long sourceOffset, String database, String sql) {
        ShardPosition pos = ShardPosition.at(sourceFile, sourceOffset);
        return new HeldTransaction(GlobalTransaction.Kind.DDL, 1_700_000_000_000_000L,
                List.of(new GlobalEvent.Query(1_700_000_000L, database, sql)), List.of(ShardCheckpoint.at(shard, pos)),
                shard + " " + pos);
    }

    /**
     * An endless deterministic feed: the corpus transactions again and again, round r pretending to come
     * from source file {@code shard-bin.<r>}, so every transaction has a distinct checkpoint.
     */
    static Iterator<HeldTransaction> feed(String shard, List<Source> pool) {
        return new Iterator<>() {
            private long n;

            @Override
            public boolean hasNext() {
                return true;
            }

            @Override
            public HeldTransaction next() {
                Source s = pool.get((int) (n % pool.size()));
                long round = n / pool.size() + 1;
                n++;
                return global(s, shard, String.format("%s-bin.%06d", shard, round));
            }
        };
    }

    static boolean isRows(EventType t) {
        return t != null && switch (t) {
            case WRITE_ROWS_V1, UPDATE_ROWS_V1, DELETE_ROWS_V1, WRITE_ROWS_V2, UPDATE_ROWS_V2, DELETE_ROWS_V2 -> true;
            default -> false;
        };
    }
}
