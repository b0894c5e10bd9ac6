package io.tributary.core.naming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.event.ColumnType;
import io.tributary.core.event.TableMapEvent;
import io.tributary.core.event.TableMapOptionalMetadata;
import io.tributary.core.event.rows.RowsReshaper;
import io.tributary.core.schema.LogicalSchema;
import io.tributary.core.schema.SchemaColumn;
import io.tributary.core.schema.SchemaDdl;
import io.tributary.core.schema.SchemaTable;
import io.tributary.core.schema.TableName;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * {@link LogicalShape} (how a shard's rows are written in the logical shape) and {@link ShardShapes} (which shape
 * each physical table is in while a DDL rolls out).
 */
class LogicalShapeTest {

    private static final SchemaDdl DDL = new SchemaDdl(BinlogFlavor.MARIADB);
    private static final TableName ORDERS = new TableName("shop", "orders");

    static SchemaTable table(String columns) {
        return DDL.parseCreateTable(LogicalSchema.empty("utf8mb4", "utf8mb4_general_ci"), "shop",
                "CREATE TABLE orders (" + columns + ") DEFAULT CHARSET=utf8mb4").withName(ORDERS);
    }

    /** The TABLE_MAP a MariaDB shard without optional metadata writes for a table of this shape. */
    static TableMapEvent map(SchemaTable t) {
        List<ColumnType> types = new ArrayList<>();
        List<Integer> meta = new ArrayList<>();
        BitSet nullable = new BitSet();
        for (int i = 0; i < t.columns().size(); i++) {
            SchemaColumn c = t.columns().get(i);
            types.add(LogicalShape.type(c));
            meta.add(LogicalShape.metadata(c));
            nullable.set(i, c.nullable());
        }
        return new TableMapEvent(7, 1, "shop_01", "orders_0001", types, meta, nullable, TableMapOptionalMetadata.EMPTY);
    }

    private static RowsReshaper plan(SchemaTable from, SchemaTable to) {
        return LogicalShape.plan("s1", "shop_01.orders_0001", map(from), from, to).orElseThrow();
    }

    @Test
    void shouldMatchColumnsByNameWideningAddingDefaultsAndLeavingOutDroppedOnes() {
        SchemaTable from = table("id int NOT NULL, a varchar(10), b smallint unsigned, gone int");
        SchemaTable to = table("id bigint NOT NULL, b int, a varchar(40), c int DEFAULT 7, d int NOT NULL,"
                + " e varchar(5) NOT NULL, f int, g varchar(300) DEFAULT 'x', h bigint unsigned DEFAULT 18446744073709551615");
        RowsReshaper r = plan(from, to);
        TableMapEvent m = r.targetMap();
        assertThat(m.columnTypes()).containsExactly(ColumnType.LONGLONG, ColumnType.LONG, ColumnType.VARCHAR,
                ColumnType.LONG, ColumnType.LONG, ColumnType.VARCHAR, ColumnType.LONG, ColumnType.VARCHAR,
                ColumnType.LONGLONG);
        assertThat(m.metadata()).containsExactly(0, 0, 160, 0, 0, 20, 0, 1200, 0);
        assertThat(m.optional().isEmpty()).as("binlog_row_metadata=NO_LOG (the shard's map has none): none").isTrue();
        assertThat(m.nullable().get(0)).isFalse();
        assertThat(m.nullable().get(1)).isTrue();
        String targets = r.toString();
        assertThat(targets).contains("Widen[source=0, signed=true]", "Widen[source=2, signed=false]",
                "Widen[source=1, signed=true]");
        assertThat(constantsOf(r)).containsExactly(new byte[] {7, 0, 0, 0}, new byte[] {0, 0, 0, 0}, new byte[] {0}, null,
                new byte[] {1, 0, 'x'}, new byte[] {-1, -1, -1, -1, -1, -1, -1, -1});
    }

    private static List<byte[]> constantsOf(RowsReshaper r) {
        List<byte[]> out = new ArrayList<>();
        for (RowsReshaper.TargetColumn t : targetsOf(r)) {
            if (t.value() instanceof RowsReshaper.Constant c) {
                out.add(c.bytes());
            }
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static List<RowsReshaper.TargetColumn> targetsOf(RowsReshaper r) {
        try {
            java.lang.reflect.Field f = RowsReshaper.class.getDeclaredField("targets");
            f.setAccessible(true);
            return (List<RowsReshaper.TargetColumn>) f.get(r);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void shouldNeedNoRewriteWhenTheShapesHaveTheSameRowLayout() {
        SchemaTable t = table("id int NOT NULL, a varchar(10)");
        assertThat(LogicalShape.plan("s1", "shop_01.orders_0001", map(t), t, table("id int NOT NULL, a varchar(10)"
                + " DEFAULT 'x' COMMENT 'c'"))).isEmpty();
    }

    @Test
    void shouldTakeAColumnRenamedInPlaceForTheSameColumn() {
        RowsReshaper r = plan(table("id int NOT NULL, a int"), table("id int NOT NULL, b bigint"));
        assertThat(r.toString()).contains("Copy[source=0]", "Widen[source=1, signed=true]");
    }

    @Test
    void shouldStopOnANarrowingNamingTheTablesTheShardAndBothShapes() {
        assertThatThrownBy(() -> plan(table("id int NOT NULL, c bigint"), table("id int NOT NULL, c int")))
                .isInstanceOf(ShapeConflictException.class)
                .hasMessageContaining("rows of logical table shop.orders from shard s1 (shop_01.orders_0001)")
                .hasMessageContaining("column `c` bigint(20) -> int(11): the logical type is narrower")
                .hasMessageContaining("Shard's shape: (`id` int(11) NOT NULL, `c` bigint(20))")
                .hasMessageContaining("logical shape: (`id` int(11) NOT NULL, `c` int(11))");
        assertThatThrownBy(() -> plan(table("c int"), table("c int unsigned"))).isInstanceOf(ShapeConflictException.class)
                .hasMessageContaining("signed to unsigned");
        assertThatThrownBy(() -> plan(table("c varchar(20)"), table("c varchar(10)")))
                .isInstanceOf(ShapeConflictException.class).hasMessageContaining("shorter");
        assertThatThrownBy(() -> plan(table("c varchar(20)"), table("c int"))).isInstanceOf(ShapeConflictException.class)
                .hasMessageContaining("no conversion between these types");
        assertThatThrownBy(() -> plan(table("c int"), table("c int, t int DEFAULT (1 + 1)")))
                .isInstanceOf(ShapeConflictException.class).hasMessageContaining("default is an expression ((1 + 1))")
                .hasMessageContaining("supplied: CURRENT_TIMESTAMP on TIMESTAMP and DATETIME");
        assertThatThrownBy(() -> plan(table("c int"), table("c int, t datetime DEFAULT (current_timestamp() + 1)")))
                .isInstanceOf(ShapeConflictException.class).hasMessageContaining("default is an expression");
        assertThatThrownBy(() -> plan(table("c int"), table("c int, t date DEFAULT current_timestamp()")))
                .isInstanceOf(ShapeConflictException.class).hasMessageContaining("default is an expression");
        assertThatThrownBy(() -> plan(table("c int"), table("c int, d json NOT NULL")))
                .isInstanceOf(ShapeConflictException.class).hasMessageContaining("NOT NULL JSON column");
        assertThatThrownBy(() -> plan(table("c int"), table("c int, d timestamp NULL DEFAULT '2020-01-01 00:00:00'")))
                .isInstanceOf(ShapeConflictException.class).hasMessageContaining("column `d`")
                .hasMessageContaining("in the time zone of the DDL's session: the shard server's time zone is not known");
        assertThatThrownBy(() -> plan(table("c int"), table("c int, d datetime DEFAULT current_timestamp()")))
                .isInstanceOf(ShapeConflictException.class).hasMessageContaining("column `d`")
                .hasMessageContaining("the local time in the shard server's time zone");
        assertThatThrownBy(() -> plan(table("c int"), table("c int, d enum('a','b') DEFAULT 'z'")))
                .isInstanceOf(ShapeConflictException.class).hasMessageContaining("'z' is not a member of 'a','b'");
    }

    @Test
    void shouldGiveAnAddedCurrentTimestampTheRowsTimeAndReadTimestampLiteralsInTheDdlSessionsTimeZone() {
        SchemaTable from = table("c int");
        SchemaTable to = table("c int, t timestamp(3) NOT NULL DEFAULT current_timestamp(3), d datetime DEFAULT now()"
                + " ON UPDATE now(), u timestamp NULL DEFAULT NULL ON UPDATE current_timestamp(),"
                + " l timestamp NULL DEFAULT '2020-01-01 00:00:00'");
        ShardServer paris = ShardServer.of(BinlogFlavor.MARIADB, java.time.ZoneId.of("Europe/Paris"));
        RowsReshaper r = LogicalShape.plan("s1", "shop_01.orders_0001", map(from), from, to,
                paris.withDdlTimeZone("+05:30")).orElseThrow();
        List<RowsReshaper.TargetColumn> t = targetsOf(r);
        assertThat(t.get(1).value()).isEqualTo(new RowsReshaper.RowTime(null, 3, null, false));
        assertThat(t.get(2).value()).isEqualTo(new RowsReshaper.RowTime(java.time.ZoneId.of("Europe/Paris"), 0, null,
                true));
        assertThat(t.get(3).value()).isInstanceOf(RowsReshaper.RowTime.class);
        assertThat(((RowsReshaper.RowTime) t.get(3).value()).otherwise().bytes()).as("NULL but on update").isNull();
        // 2020-01-01 00:00:00 at +05:30 (the DDL's session), not in Paris (the server's)
        long seconds = java.time.OffsetDateTime.parse("2020-01-01T00:00:00+05:30").toEpochSecond();
        assertThat(constantsOf(r)).containsExactly(java.nio.ByteBuffer.allocate(4).putInt((int) seconds).array());
        RowsReshaper inParis = LogicalShape.plan("s1", "shop_01.orders_0001", map(from), from, to, paris).orElseThrow();
        long parisSeconds = java.time.ZonedDateTime.parse("2020-01-01T00:00:00+01:00[Europe/Paris]").toEpochSecond();
        assertThat(constantsOf(inParis)).as("no zone of the DDL's session: the server's")
                .containsExactly(java.nio.ByteBuffer.allocate(4).putInt((int) parisSeconds).array());
    }

    @Test
    void shouldAddAJsonColumnInTheStorageOfTheShardsFlavor() {
        SchemaTable from = table("c int");
        SchemaTable to = table("c int, j json, k json DEFAULT '{\"a\": 1}'");
        RowsReshaper maria = LogicalShape.plan("s1", "shop_01.orders_0001", map(from), from, to,
                ShardServer.withoutTimeZone(BinlogFlavor.MARIADB)).orElseThrow();
        assertThat(maria.targetMap().columnTypes()).containsExactly(ColumnType.LONG, ColumnType.BLOB, ColumnType.BLOB);
        assertThat(constantsOf(maria).get(1)).isEqualTo(new byte[] {8, 0, 0, 0, '{', '"', 'a', '"', ':', ' ', '1', '}'});
        SchemaTable nullOnly = table("c int, j json");
        RowsReshaper mysql = LogicalShape.plan("s1", "shop_01.orders_0001", map(from), from, nullOnly,
                ShardServer.withoutTimeZone(BinlogFlavor.MYSQL)).orElseThrow();
        assertThat(mysql.targetMap().columnTypes()).containsExactly(ColumnType.LONG, ColumnType.JSON);
        assertThat(mysql.targetMap().metadata()).containsExactly(0, 4);
        assertThatThrownBy(() -> LogicalShape.plan("s1", "shop_01.orders_0001", map(from), from, to,
                ShardServer.withoutTimeZone(BinlogFlavor.MYSQL))).isInstanceOf(ShapeConflictException.class)
                .hasMessageContaining("column `k`").hasMessageContaining("no value of type JSON can be supplied");
    }

    @Test
    void shouldReadAServersTimeZoneAsJavaDoes() {
        assertThat(ShardServer.zone("SYSTEM", "UTC")).isEqualTo(java.time.ZoneId.of("UTC"));
        assertThat(ShardServer.zone("+05:30", null)).isEqualTo(java.time.ZoneOffset.ofHoursMinutes(5, 30));
        assertThat(ShardServer.zone("-3:00", null)).isEqualTo(java.time.ZoneOffset.ofHours(-3));
        assertThat(ShardServer.zone("Europe/Paris", null)).isEqualTo(java.time.ZoneId.of("Europe/Paris"));
        assertThat(ShardServer.zone("SYSTEM", "EST")).isEqualTo(java.time.ZoneOffset.ofHours(-5));
        assertThatThrownBy(() -> ShardServer.zone("SYSTEM", "CEST")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("time zone 'CEST' is not a zone name or offset Java knows")
                .hasMessageContaining("@@global.time_zone");
    }

    @Test
    void shouldStopWhenTheTableMapDisagreesWithTheShapeTheTableShouldBeIn() {
        SchemaTable from = table("id int NOT NULL, c int");
        assertThatThrownBy(() -> LogicalShape.plan("s1", "shop_01.orders_0001", map(table("id int NOT NULL")), from,
                table("id int NOT NULL"))).isInstanceOf(ShapeConflictException.class)
                .hasMessageContaining("its TABLE_MAP has 1 columns, the shape it should be in 2");
    }

    private static Function<SchemaTable, Optional<SchemaTable>> applying(String sql) {
        return t -> {
            SchemaDdl.Outcome o = DDL.apply(LogicalSchema.empty("utf8mb4", "utf8mb4_general_ci").withTable(t), "shop", sql);
            return o instanceof SchemaDdl.Applied a ? a.schema().table(ORDERS) : null;
        };
    }

    @Test
    void shouldKeepEachPhysicalTableInItsOwnShapeUntilItsCopyArrivesAndSurviveARestart() {
        SchemaTable v0 = table("id int NOT NULL, a int");
        SchemaTable v1 = table("id int NOT NULL, a int, c int DEFAULT 7");
        SchemaTable v2 = table("id int NOT NULL, c int DEFAULT 7");
        String add = "ALTER TABLE orders ADD COLUMN c int DEFAULT 7";
        String drop = "ALTER TABLE orders DROP COLUMN a";
        ShardShapes s = ShardShapes.NONE.afterCopy("s0", "shop_00", "orders_0000", ORDERS, v0, v1, true, applying(add));
        assertThat(s.shapeOf("s0", "shop_00", "orders_0000", ORDERS, map(v1), v1)).contains(v1);
        assertThat(s.shapeOf("s1", "shop_01", "orders_0001", ORDERS, map(v0), v1)).contains(v0);
        assertThat(s.shapeOf("s2", "shop_02", "orders_0002", ORDERS, map(v1), v1))
                .as("no copy yet, but its TABLE_MAP is in the logical shape (created after the DDL)").isEmpty();
        // the second DDL is written while s1 is still before the first
        s = s.afterCopy("s0", "shop_00", "orders_0000", ORDERS, v1, v2, true, applying(drop));
        s = s.afterCopy("s1", "SHOP_01", "ORDERS_0001", ORDERS, v2, v2, false, applying(add));
        assertThat(s.shapeOf("s1", "shop_01", "orders_0001", ORDERS, map(v1), v2)).contains(v1);
        assertThat(s.shapeOf("s3", "shop_03", "orders_0003", ORDERS, map(v0), v2)).contains(v0);
        ShardShapes back = ShardShapes.decode(s.encode(BinlogFlavor.MARIADB), DDL);
        ShardShapes zoned = ShardShapes.NONE.afterCopy("s0", "shop_00", "orders_0000", ORDERS, table("id int NOT NULL"),
                table("id int NOT NULL, t timestamp NULL DEFAULT '2020-01-01 00:00:00'"), true, "+05:30",
                applying("ALTER TABLE orders ADD COLUMN t timestamp NULL DEFAULT '2020-01-01 00:00:00'"));
        assertThat(ShardShapes.decode(zoned.encode(BinlogFlavor.MARIADB), DDL).ddlTimeZone(ORDERS)).as("stored")
                .contains("+05:30");
        assertThat(ShardShapes.decode(zoned.encode(BinlogFlavor.MARIADB), DDL)).isEqualTo(zoned);
        assertThat(back).isEqualTo(s);
        assertThat(back.shapeOf("s1", "shop_01", "orders_0001", ORDERS, map(v1), v2)).contains(v1);
        for (String shard : List.of("s1", "s2", "s3")) {
            String n = shard.substring(1);
            if (!shard.equals("s1")) {
                s = s.afterCopy(shard, "shop_0" + n, "orders_000" + n, ORDERS, v2, v2, false, applying(add));
            }
            s = s.afterCopy(shard, "shop_0" + n, "orders_000" + n, ORDERS, v2, v2, false, applying(drop));
        }
        assertThat(s.shapeOf("s3", "shop_03", "orders_0003", ORDERS, map(v2), v2)).contains(v2);
        assertThat(s.isEmpty()).as("the base is still behind: the rollout stays open").isFalse();
    }

    @Test
    void shouldOpenNoRolloutForADdlThatLeavesTheRowLayoutAndCloseOneThatComesBack() {
        SchemaTable v0 = table("id int NOT NULL, a int");
        SchemaTable keyed = table("id int NOT NULL, a int, KEY k (a)");
        assertThat(ShardShapes.NONE.afterCopy("s0", "shop_00", "orders_0000", ORDERS, v0, keyed, true,
                applying("ALTER TABLE orders ADD KEY k (a)")).isEmpty()).isTrue();
        SchemaTable v1 = table("id int NOT NULL, a int, c int");
        ShardShapes s = ShardShapes.NONE.afterCopy("s0", "shop_00", "orders_0000", ORDERS, v0, v1, true,
                applying("ALTER TABLE orders ADD COLUMN c int"));
        s = s.afterCopy("s0", "shop_00", "orders_0000", ORDERS, v1, v0, true, applying("ALTER TABLE orders DROP COLUMN c"));
        assertThat(s.isEmpty()).isTrue();
    }
}
