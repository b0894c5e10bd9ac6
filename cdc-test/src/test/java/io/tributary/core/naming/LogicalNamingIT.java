package io.tributary.core.naming;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.DecoderOptions;
import io.tributary.core.event.EventType;
import io.tributary.core.event.QueryEvent;
import io.tributary.core.event.RowsEvent;
import io.tributary.core.transaction.GlobalEvent;
import io.tributary.test.junit.WithShards;
import io.tributary.test.shard.EmbeddedMariaDbShard;
import io.tributary.test.shard.ShardCluster;
import io.tributary.test.shard.ShardFlavor;
import io.tributary.test.shard.ShardInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Logical naming on what real MariaDB shards write: three shards each create {@code shop_0N.orders_000N}
 * (shard 2 with an extra column), insert rows, then all run the same ALTER. Their binlogs, fed through
 * the table registry and the DDL deduplicator, give one logical table {@code shop.orders}, one global id
 * for the equal layouts, a reported (not merged) layout conflict for shard 2, and each logical DDL once.
 */
@WithShards(count = 3, flavor = ShardFlavor.MARIADB_10_11)
class LogicalNamingIT {

    private record Fed(List<GlobalEvent.TableMap> maps, List<String> shardOfMap, List<GlobalEvent.Rows> rows) {
    }

    @Test
    void shardTablesBecomeOneLogicalTableWithConflictsReportedAndDdlOnce(ShardCluster shards) throws Exception {
        Map<String, Long> phaseEnd = new HashMap<>();
        for (ShardInfo s : shards.infos()) {
            String db = "shop_0" + s.index();
            String table = "orders_000" + s.index();
            try (Connection c = s.openAdminConnection(); Statement st = c.createStatement()) {
                st.execute("CREATE DATABASE " + db);
                st.execute("CREATE TABLE " + db + "." + table + " (id INT PRIMARY KEY, item VARCHAR(50) NOT NULL, qty INT"
                        + " NOT NULL" + (s.index() == 2 ? ", note VARCHAR(20)" : "") + ") ENGINE=InnoDB");
                st.execute("INSERT INTO " + db + "." + table + " (id, item, qty) VALUES (1, 'a', 1), (2, 'b', 2)");
                phaseEnd.put(s.name(), masterPosition(st));
            }
        }
        for (ShardInfo s : shards.infos()) {
            try (Connection c = s.openAdminConnection(); Statement st = c.createStatement()) {
                st.execute("USE shop_0" + s.index());
                st.execute("ALTER TABLE orders_000" + s.index() + " ADD COLUMN note2 INT");
                st.execute("INSERT INTO orders_000" + s.index() + " (id, item, qty, note2) VALUES (3, 'c', 3, 3)");
            }
        }

        Map<String, List<BinlogEvent>> events = new HashMap<>();
        for (ShardInfo s : shards.infos()) {
            events.put(s.name(), readBinlog(((EmbeddedMariaDbShard) shards.shard(s.index())).binlogDirectory()));
        }
        Set<String> names = new LinkedHashSet<>();
        shards.infos().forEach(s -> names.add(s.name()));
        List<LayoutConflict> conflicts = new ArrayList<>();
        GlobalTableRegistry registry = new GlobalTableRegistry(LogicalNames.defaults(), conflicts::add);
        DdlDeduplicator ddl = new DdlDeduplicator(LogicalNames.defaults(), names);
        List<String> ddlOut = new ArrayList<>();
        Fed phase1 = new Fed(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        Fed phase2 = new Fed(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        // Phase 1 of every shard, then phase 2 of every shard: the order a heartbeat cut between them gives.
        for (int phase = 1; phase <= 2; phase++) {
            for (ShardInfo s : shards.infos()) {
                long end = phaseEnd.get(s.name());
                for (BinlogEvent e : events.get(s.name())) {
                    boolean inPhase1 = e.offset() < end;
                    if (inPhase1 != (phase == 1)) {
                        continue;
                    }
                    feed(s.name(), e, registry, ddl, ddlOut, phase == 1 ? phase1 : phase2);
                }
            }
        }

        assertThat(phase1.maps()).extracting(m -> m.database() + "." + m.table()).containsOnly("shop.orders").hasSize(3);
        long idA = phase1.maps().get(0).tableId();
        assertThat(phase1.maps().get(1).tableId()).as("shard 1, same layout as shard 0").isEqualTo(idA);
        assertThat(phase1.maps().get(2).tableId()).as("shard 2, extra column: not merged").isNotEqualTo(idA);
        assertThat(phase1.rows()).extracting(GlobalEvent.Rows::tableId)
                .containsExactly(idA, idA, phase1.maps().get(2).tableId());
        assertThat(phase2.maps()).hasSize(3);
        assertThat(phase2.maps().get(1).tableId()).isEqualTo(phase2.maps().get(0).tableId()).isNotIn(idA);
        assertThat(phase2.maps().get(2).tableId()).isNotEqualTo(phase2.maps().get(0).tableId());

        LayoutConflict first = conflicts.get(0);
        assertThat(first.table()).isEqualTo(new LogicalTable("shop", "orders"));
        assertThat(first.source()).isEqualTo(shards.info(2).name() + " shop_02.orders_0002");
        assertThat(first.layout().names()).as("column names from binlog_row_metadata=FULL")
                .containsExactly("id", "item", "qty", "note");
        assertThat(first.firstLayout().names()).containsExactly("id", "item", "qty");
        assertThat(first.message()).contains("logical table shop.orders", "note", "not merged");

        assertThat(ddlOut).containsExactly(
                "CREATE DATABASE shop",
                "CREATE TABLE shop.orders (id INT PRIMARY KEY, item VARCHAR(50) NOT NULL, qty INT NOT NULL) ENGINE=InnoDB",
                "CREATE TABLE shop.orders (id INT PRIMARY KEY, item VARCHAR(50) NOT NULL, qty INT NOT NULL,"
                        + " note VARCHAR(20)) ENGINE=InnoDB",
                "ALTER TABLE orders ADD COLUMN note2 INT");
    }

    private static void feed(String shard, BinlogEvent e, GlobalTableRegistry registry, DdlDeduplicator ddl,
            List<String> ddlOut, Fed fed) {
        EventType type = e.type();
        if (type == EventType.TABLE_MAP) {
            fed.maps().add(registry.tableMap(shard, e));
            fed.shardOfMap().add(shard);
        } else if (e.body() instanceof RowsEvent) {
            fed.rows().add(registry.rows(shard, e));
        } else if (type == EventType.XID) {
            registry.endTransaction(shard);
        } else if (type == EventType.QUERY) {
            QueryEvent q = e.body(QueryEvent.class);
            String sql = q.sql().strip().toUpperCase(Locale.ROOT);
            if (sql.equals("BEGIN") || sql.equals("COMMIT") || sql.startsWith("XA ")) {
                return;
            }
            ddl.accept(shard, e.header().timestamp(), q.database(), q.sql()).ifPresent(out -> ddlOut.add(out.sql()));
            registry.endTransaction(shard);
        }
    }

    private static long masterPosition(Statement st) throws Exception {
        try (ResultSet rs = st.executeQuery("SHOW MASTER STATUS")) {
            rs.next();
            return rs.getLong("Position");
        }
    }

    private static List<BinlogEvent> readBinlog(Path dir) throws Exception {
        List<BinlogEvent> out = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(p -> p.getFileName().toString().matches("mariadb-bin\\.\\d+")).sorted().toList();
        }
        assertThat(files).as("binlog files in %s", dir).hasSize(1);
        new BinlogEventDecoder(files.get(0).toString(), Files.readAllBytes(files.get(0)), DecoderOptions.FULL)
                .forEachRemaining(out::add);
        return out;
    }
}
