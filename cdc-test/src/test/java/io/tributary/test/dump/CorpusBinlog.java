package io.tributary.test.dump;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.event.EventType;
import io.tributary.core.event.RowsEvent;
import io.tributary.core.event.TableMapEvent;
import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.sorter.HeldTransaction;
import io.tributary.core.transaction.GlobalEvent;
import io.tributary.core.transaction.GlobalTransaction;
import io.tributary.storage.binlog.BinlogConfig;
import io.tributary.storage.binlog.BinlogRecovery;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A global binlog filled with real transactions: the row transactions of a corpus binlog
 * ({@code <tributary.shared.dir>/testdata/binlog}), relayed through {@link GlobalBinlogWriter} as the merger
 * would hand them over (logical database {@code logical_<db>}, global table ids). Skips the test when the
 * corpus is absent.
 */
final class CorpusBinlog {
    static final String MYSQL_SOURCE = "mysql-8.0/pbs__data_80045_gtid_binlog.000001";
    static final String MARIADB_SOURCE = "mariadb-10.x/rmc__mariadb-bin.000001";

    private final List<List<BinlogEvent>> transactions;
    private long fed;

    private CorpusBinlog(List<List<BinlogEvent>> transactions) {
        this.transactions = transactions;
    }

    /** The row transactions of the corpus file that matches {@code flavor}. */
    static CorpusBinlog forFlavor(BinlogFlavor flavor) {
        String shared = System.getProperty("tributary.shared.dir");
        Path dir = shared == null ? null : Path.of(shared, "testdata", "binlog");
        assumeTrue(dir != null && Files.isDirectory(dir),
                "binlog corpus not found (system property tributary.shared.dir = " + shared + ")");
        String relative = flavor.isMariaDb() ? MARIADB_SOURCE : MYSQL_SOURCE;
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(dir.resolve(relative));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        CorpusBinlog c = fromBytes(relative, bytes, db -> true);
        assumeTrue(c.size() > 0, relative + " holds no row transactions");
        return c;
    }

    /** The row transactions of a binlog file's bytes whose tables are all in databases {@code keep} accepts. */
    static CorpusBinlog fromBytes(String name, byte[] bytes, java.util.function.Predicate<String> keep) {
        List<List<BinlogEvent>> out = new ArrayList<>();
        List<BinlogEvent> txn = null;
        boolean kept = true;
        for (BinlogEventDecoder d = new BinlogEventDecoder(name, bytes); d.hasNext(); ) {
            BinlogEvent e = d.next();
            EventType t = e.type();
            if (t == EventType.GTID || t == EventType.ANONYMOUS_GTID || t == EventType.MARIA_GTID) {
                txn = new ArrayList<>();
                kept = true;
            } else if (txn != null && (t == EventType.TABLE_MAP || isRows(t))) {
                if (t == EventType.TABLE_MAP) {
                    kept &= keep.test(e.body(TableMapEvent.class).database());
                }
                txn.add(e);
            } else if (txn != null && t == EventType.XID) {
                if (!txn.isEmpty() && kept) {
                    out.add(txn);
                }
                txn = null;
            }
        }
        return new CorpusBinlog(out);
    }

    static GlobalBinlogWriter openWriter(Path dir, BinlogFlavor flavor, long fileSize, String retention) throws IOException {
        return openWriter(dir, flavor, fileSize, retention, "commit");
    }

    /** A writer with {@code binlog.sync} = {@code sync} ({@code none}: durable once written, no fsync). */
    static GlobalBinlogWriter openWriter(Path dir, BinlogFlavor flavor, long fileSize, String retention, String sync)
            throws IOException {
        BinlogConfig config = BinlogConfig.parse(Map.of("binlog.dir", dir.toString(), "binlog.flavor",
                flavor.name().toLowerCase(), "binlog.file.size", Long.toString(fileSize), "binlog.sync", sync,
                "binlog.server.id", "7", "binlog.retention.size", retention));
        return GlobalBinlogWriter.open(config, BinlogRecovery.recover(config), Clock.systemUTC());
    }

    int size() {
        return transactions.size();
    }

    /** The source events (table maps and rows) of the {@code n}-th transaction appended, counting from 1. */
    List<BinlogEvent> source(long n) {
        return transactions.get((int) ((n - 1) % transactions.size()));
    }

    /** Appends the next {@code n} corpus transactions (cycling), each with a checkpoint of its own. */
    void append(GlobalBinlogWriter writer, int n) throws IOException {
        for (int i = 0; i < n; i++) {
            writer.append(next());
        }
    }

    /** Appends one DDL transaction ({@code database} is the default database it runs in, may be empty). */
    static void appendDdl(GlobalBinlogWriter writer, String database, String sql) throws IOException {
        ShardPosition pos = ShardPosition.at("shard-0-bin.000001", 4);
        List<GlobalEvent> events = List.of(new GlobalEvent.Query(System.currentTimeMillis() / 1000, database, sql));
        writer.append(new HeldTransaction(GlobalTransaction.Kind.DDL, System.currentTimeMillis() * 1000, events,
                List.of(ShardCheckpoint.at("shard-0", pos)), "ddl " + sql));
    }

    private GlobalTransaction next() {
        List<BinlogEvent> source = transactions.get((int) (fed % transactions.size()));
        long n = ++fed;
        Map<Long, Long> ids = new HashMap<>();
        List<GlobalEvent> events = new ArrayList<>();
        for (BinlogEvent e : source) {
            if (e.type() == EventType.TABLE_MAP) {
                TableMapEvent m = e.body(TableMapEvent.class);
                long id = 1000 + Math.floorMod((m.database() + "." + m.table()).hashCode(), 100_000);
                ids.put(m.tableId(), id);
                events.add(new GlobalEvent.TableMap(e, id, "logical_" + m.database(), m.table()));
            } else {
                events.add(new GlobalEvent.Rows(e, ids.get(e.body(RowsEvent.class).tableId())));
            }
        }
        ShardPosition pos = ShardPosition.at("shard-0-bin.000001", 1000 + n);
        List<ShardCheckpoint> checkpoints = List.of(ShardCheckpoint.at("shard-0", pos));
        return new HeldTransaction(GlobalTransaction.Kind.ROWS, System.currentTimeMillis() * 1000, events, checkpoints,
                "shard-0 " + pos);
    }

    private static boolean isRows(EventType t) {
        return t != null && switch (t) {
            case WRITE_ROWS_V1, UPDATE_ROWS_V1, DELETE_ROWS_V1, WRITE_ROWS_V2, UPDATE_ROWS_V2, DELETE_ROWS_V2 -> true;
            default -> false;
        };
    }
}
