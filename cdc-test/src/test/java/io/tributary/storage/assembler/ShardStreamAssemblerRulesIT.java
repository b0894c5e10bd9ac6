package io.tributary.storage.assembler;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.reader.ShardEvent;
import io.tributary.core.reader.ShardEventSink;
import io.tributary.core.reader.ShardReader;
import io.tributary.core.reader.ShardReaderConfig;
import io.tributary.core.sorter.ShardUnit;
import io.tributary.storage.buffer.BufferedTransaction;
import io.tributary.storage.buffer.LivePersistSettings;
import io.tributary.storage.buffer.PersistConfig;
import io.tributary.storage.buffer.SpillStore;
import io.tributary.storage.buffer.TransactionBuffer;
import io.tributary.test.junit.WithShards;
import io.tributary.test.shard.ShardCluster;
import io.tributary.test.shard.ShardFlavor;
import io.tributary.test.shard.ShardInfo;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rules by which a shard's stream becomes units, on what a real MariaDB 10.11 writes, read by the real shard
 * reader (whose framer finds the boundaries) into the assembler: an XA's two phases (MariaDB writes the second
 * after a GTID that is not standalone and with no BEGIN), an XA rolled back after its prepare, a one-phase XA, a
 * {@code CREATE TABLE ... SELECT} (one transaction on the shard, a GTID with {@code FL_DDL}: handed on as the DDL and
 * then its rows, while the reader restarts only after the whole), a MyISAM write ended by a COMMIT query, a plain
 * transaction; and where the reader may restart after each of them.
 */
@WithShards(count = 1, flavor = ShardFlavor.MARIADB_10_11)
class ShardStreamAssemblerRulesIT {

    @TempDir
    Path dir;

    /** A unit as a user of the sorter would describe it: kind, xid, and what it holds. */
    record Seen(ShardUnit.Kind kind, String xid, boolean hasGtid, List<String> events) {
    }

    @Test
    void shouldMakeOneUnitPerShardTransactionOfEachKindAndRestartAfterEach(ShardCluster cluster) throws Exception {
        ShardInfo shard = cluster.info(0);
        ShardPosition start;
        try (Connection c = shard.openAdminConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE rules");
            s.execute("CREATE TABLE rules.t (id INT PRIMARY KEY) ENGINE=InnoDB");
            s.execute("CREATE TABLE rules.m (id INT) ENGINE=MyISAM");
            start = masterStatus(s);
            s.execute("XA START 'two'");
            s.execute("INSERT INTO rules.t VALUES (1)");
            s.execute("XA END 'two'");
            s.execute("XA PREPARE 'two'");
            s.execute("XA COMMIT 'two'");
            s.execute("XA START 'undone'");
            s.execute("INSERT INTO rules.t VALUES (2)");
            s.execute("XA END 'undone'");
            s.execute("XA PREPARE 'undone'");
            s.execute("XA ROLLBACK 'undone'");
            s.execute("XA START 'one'");
            s.execute("INSERT INTO rules.t VALUES (3)");
            s.execute("XA END 'one'");
            s.execute("XA COMMIT 'one' ONE PHASE");
            s.execute("CREATE TABLE rules.u ENGINE=InnoDB SELECT * FROM rules.t");
            s.execute("INSERT INTO rules.m VALUES (4)");
            s.execute("INSERT INTO rules.t VALUES (5)");
        }
        ShardPosition end;
        try (Connection c = shard.openAdminConnection(); Statement s = c.createStatement()) {
            end = masterStatus(s);
        }

        List<Seen> units = new CopyOnWriteArrayList<>();
        Map<String, BufferedTransaction> prepared = new java.util.concurrent.ConcurrentHashMap<>();
        List<String> restarts = new CopyOnWriteArrayList<>();
        Map<String, String> values = new HashMap<>(Map.of("storage.path", dir.resolve("spill").toString()));
        try (SpillStore store = SpillStore.open(dir.resolve("spill"));
                TransactionBuffer buffer = new TransactionBuffer(new LivePersistSettings(new PersistConfig(1L << 30), values),
                        store)) {
            ShardStreamAssembler assembler = new ShardStreamAssembler(0, shard.name(), start, buffer,
                    u -> units.add(seen(u, prepared)));
            ShardEventSink sink = new ShardEventSink() {
                @Override
                public void onEvent(ShardEvent event) {
                    if (event.transactionEnd()) {
                        restarts.add(event.boundary() + (event.restartPosition().equals(event.position()) ? " at its end"
                                : " before " + event.restartPosition()));
                    }
                    assembler.accept(event);
                }

                @Override
                public void onRewind(ShardPosition restartPosition, long discardedEvents) {
                    assembler.rewind(restartPosition);
                }
            };
            ShardReaderConfig config = new ShardReaderConfig(shard.name(), shard.host(), shard.port(), shard.replUser(),
                    shard.replPassword(), 7001, start, Duration.ofSeconds(1), false, null, Duration.ofSeconds(10), 10_000,
                    64L << 20, new ShardReaderConfig.Backoff(Duration.ofMillis(200), Duration.ofSeconds(2), 2.0, 0));
            try (ShardReader reader = new ShardReader(config, sink)) {
                reader.start();
                long deadline = System.currentTimeMillis() + 30_000;
                while (!reader.restartPosition().file().equals(end.file())
                        || reader.restartPosition().position() < end.position()) {
                    assertThat(System.currentTimeMillis()).as("reader at %s within 30 s (at %s)", end,
                            reader.restartPosition()).isLessThan(deadline);
                    Thread.sleep(20);
                }
                assertThat(reader.restartPosition().position()).as("the reader may restart at the shard's end")
                        .isEqualTo(end.position());
            }
            // the committed branch is the sorter's to release; the rolled-back one the assembler released
            prepared.get("two").release();
            assembler.close();
            assertThat(buffer.openTransactions()).as("nothing left buffered").isZero();
        }

        assertThat(units).as("units of the shard").containsExactly(
                new Seen(ShardUnit.Kind.XA_PREPARE, "two", true, List.of("TABLE_MAP", "WRITE_ROWS_V1")),
                new Seen(ShardUnit.Kind.XA_COMMIT, "two", true, List.of()),
                new Seen(ShardUnit.Kind.XA_PREPARE, "undone", true, List.of("TABLE_MAP", "WRITE_ROWS_V1")),
                new Seen(ShardUnit.Kind.XA_ROLLBACK, "undone", true, List.of()),
                new Seen(ShardUnit.Kind.TRANSACTION, null, true, List.of("TABLE_MAP", "WRITE_ROWS_V1")),
                new Seen(ShardUnit.Kind.TRANSACTION, null, true, List.of("QUERY")),
                new Seen(ShardUnit.Kind.TRANSACTION, null, false, List.of("TABLE_MAP", "WRITE_ROWS_V1")),
                new Seen(ShardUnit.Kind.TRANSACTION, null, true, List.of("TABLE_MAP", "WRITE_ROWS_V1")),
                new Seen(ShardUnit.Kind.TRANSACTION, null, true, List.of("TABLE_MAP", "WRITE_ROWS_V1")));
        assertThat(restarts).as("where each transaction ends, the reader may restart").containsExactly(
                "XA_PREPARE at its end", "XA_COMMIT at its end", "XA_PREPARE at its end", "XA_ROLLBACK at its end",
                "XID at its end", "XID at its end", "COMMIT at its end", "XID at its end");
    }

    private static Seen seen(ShardUnit<BufferedTransaction> u, Map<String, BufferedTransaction> prepared) {
        String xid = u.xid() == null ? null : new String(u.xid().gtrid(), java.nio.charset.StandardCharsets.UTF_8);
        List<String> events = new ArrayList<>();
        if (u.payload() != null) {
            try (BufferedTransaction.EventIterator it = u.payload().events()) {
                while (it.hasNext()) {
                    BinlogEvent e = it.next();
                    events.add(String.valueOf(e.type()));
                }
            }
            if (u.kind() == ShardUnit.Kind.XA_PREPARE) {
                prepared.put(xid, u.payload());
            } else {
                u.payload().release();
            }
        }
        return new Seen(u.kind(), xid, !u.key().contains(":"), events);
    }

    private static ShardPosition masterStatus(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SHOW MASTER STATUS")) {
            rs.next();
            return ShardPosition.at(rs.getString(1), rs.getLong(2));
        }
    }
}
