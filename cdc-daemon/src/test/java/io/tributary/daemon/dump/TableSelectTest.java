package io.tributary.daemon.dump;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.packet.ColumnDefinition;
import io.tributary.core.schema.LogicalSchema;
import io.tributary.core.schema.SchemaDdl;
import io.tributary.storage.schema.SchemaHistory;
import java.util.List;
import org.junit.jupiter.api.Test;

class TableSelectTest {

    private static final LogicalSchema SCHEMA = schema();

    private static LogicalSchema schema() {
        SchemaDdl ddl = new SchemaDdl(BinlogFlavor.MARIADB);
        LogicalSchema s = SchemaHistory.emptySchema(BinlogFlavor.MARIADB);
        for (String sql : List.of("CREATE DATABASE shop", "CREATE TABLE shop.orders (id bigint unsigned NOT NULL"
                + " AUTO_INCREMENT PRIMARY KEY, customer int NOT NULL, status enum('new','paid') NOT NULL DEFAULT 'new',"
                + " amount decimal(12,2) NOT NULL DEFAULT 0, note varchar(100) COLLATE utf8mb4_general_ci,"
                + " doc json, KEY by_customer (customer))")) {
            s = ((SchemaDdl.Applied) ddl.apply(s, "", sql)).schema();
        }
        return s;
    }

    private static TableSelect.Plan plan(String sql) {
        return TableSelect.plan(sql, "shop", SCHEMA, BinlogFlavor.MARIADB);
    }

    private static int refusal(String sql) {
        try {
            plan(sql);
        } catch (TableSelect.Refused e) {
            return e.error().code();
        }
        throw new AssertionError("not refused: " + sql);
    }

    @Test
    void shouldSendEachShardTheLogicalColumnsTheConditionAndTheOrderWithHiddenSortKeys() {
        TableSelect.Plan p = plan("SELECT * FROM orders WHERE orders.id BETWEEN 3 AND 9 AND (note IS NULL OR"
                + " customer IN (1, 2)) ORDER BY id DESC LIMIT 5 OFFSET 2");
        assertThat(p.shardQuery("shop_01", "orders_0002")).isEqualTo("SELECT CAST(`id` AS CHAR), CAST(`customer` AS CHAR),"
                + " `status`, CAST(`amount` AS CHAR), `note`, `doc`, `id` FROM `shop_01`.`orders_0002` WHERE id BETWEEN 3 AND 9 AND (note IS NULL OR"
                + " customer IN (1, 2)) ORDER BY `id` DESC LIMIT 7");
        assertThat(p.offset()).isEqualTo(2);
        assertThat(p.limit()).isEqualTo(5);
        assertThat(p.columns()).extracting(ColumnDefinition::name)
                .containsExactly("id", "customer", "status", "amount", "note", "doc");
        ColumnDefinition id = p.columns().get(0);
        assertThat(id.schema()).isEqualTo("shop");
        assertThat(id.table()).isEqualTo("orders");
        assertThat(id.type()).isEqualTo(LogicalColumn.LONGLONG);
        assertThat(id.flags() & 0x223).as("NOT NULL, PRI_KEY, UNSIGNED, AUTO_INCREMENT").isEqualTo(0x223);
        assertThat(p.columns().get(3).type()).isEqualTo(LogicalColumn.NEWDECIMAL);
        assertThat(p.columns().get(3).decimals()).isEqualTo(2);
    }

    @Test
    void shouldOrderTextByCollationWeightAndEnumsByNumber() {
        assertThat(plan("SELECT id AS k FROM shop.orders ORDER BY note, status").shardQuery("d", "t")).isEqualTo(
                "SELECT CAST(`id` AS CHAR), WEIGHT_STRING(RTRIM(`note`)), (`status`+0) FROM `d`.`t` ORDER BY `note` ASC, `status` ASC");
        assertThat(plan("SELECT id AS k FROM shop.orders ORDER BY k").orderBy().get(0).name()).isEqualTo("id");
        assertThat(plan("SELECT id FROM orders WHERE (customer IN (1, 2) OR note IS NULL) AND id > 3").where())
                .isEqualTo("(customer IN (1, 2) OR note IS NULL) AND id > 3");
        assertThat(plan("SELECT id, note FROM shop.orders LIMIT 3, 4").shardQuery("d", "t"))
                .isEqualTo("SELECT CAST(`id` AS CHAR), `note` FROM `d`.`t` LIMIT 7");
    }

    @Test
    void shouldAnswerFlinkCdcsNextChunkEndAsTheLastRowOfTheOrderedWindow() {
        // what Flink CDC 3.2 sends for a key that is not evenly spread (StatementUtils.queryNextChunkMax)
        TableSelect.Plan p = plan("SELECT MAX(`id`) FROM (SELECT `id` FROM `shop`.`orders` WHERE `id` >= 4001 ORDER BY"
                + " `id` ASC LIMIT 8096) AS T");
        assertThat(p.pick()).isEqualTo(TableSelect.Pick.LAST);
        assertThat(p.limit()).isEqualTo(8096);
        assertThat(p.shardQuery("d", "t")).isEqualTo("SELECT CAST(`id` AS CHAR), `id` FROM `d`.`t` WHERE `id` >= 4001"
                + " ORDER BY `id` ASC LIMIT 8096");
        assertThat(p.columns()).extracting(ColumnDefinition::name).containsExactly("MAX(`id`)");
        assertThat(p.columns().get(0).flags() & 1).as("NOT NULL").isZero();
        assertThat(plan("SELECT MIN(id) m FROM (SELECT id FROM orders ORDER BY id DESC LIMIT 10) x").pick())
                .isEqualTo(TableSelect.Pick.LAST);
        assertThat(plan("SELECT MAX(id) FROM (SELECT id FROM orders ORDER BY id DESC LIMIT 10) x").pick())
                .isEqualTo(TableSelect.Pick.FIRST);
        assertThat(plan("SELECT id FROM orders").pick()).isNull();
        // anything else over a subquery stays refused
        assertThat(refusal("SELECT MAX(id) FROM (SELECT id FROM orders ORDER BY id) AS T")).isEqualTo(1235);
        assertThat(refusal("SELECT MAX(id) FROM (SELECT id FROM orders ORDER BY customer LIMIT 5) AS T")).isEqualTo(1235);
        assertThat(refusal("SELECT COUNT(id) FROM (SELECT id FROM orders ORDER BY id LIMIT 5) AS T")).isEqualTo(1235);
        assertThat(refusal("SELECT MAX(id) FROM (SELECT id FROM orders ORDER BY id LIMIT 5) AS T WHERE id > 3"))
                .isEqualTo(1235);
        assertThat(refusal("SELECT MAX(id) FROM (SELECT id FROM nope ORDER BY id LIMIT 5) AS T")).isEqualTo(1146);
    }

    @Test
    void shouldAskEachShardForItsAggregatesAndTheWeightsOfTextMinMax() {
        TableSelect.Plan p = plan("SELECT COUNT(*), MIN(id), MAX(note) AS last FROM orders WHERE customer > 1");
        assertThat(p.isAggregate()).isTrue();
        assertThat(p.shardQuery("d", "t")).isEqualTo("SELECT COUNT(*), MIN(`id`), MIN(`id`), MAX(`note`),"
                + " WEIGHT_STRING(RTRIM(MAX(`note`))) FROM `d`.`t` WHERE customer > 1");
        assertThat(p.columns()).extracting(ColumnDefinition::name).containsExactly("COUNT(*)", "MIN(id)", "last");
    }

    @Test
    void shouldSendTimesWithTheColumnsFractionalDigitsAsAServerDoes() {
        assertThat(LogicalColumn.withFraction("2026-11-21 10:11:12.101000", 3)).isEqualTo("2026-11-21 10:11:12.101");
        assertThat(LogicalColumn.withFraction("2026-11-21 10:11:12.5", 6)).isEqualTo("2026-11-21 10:11:12.500000");
        assertThat(LogicalColumn.withFraction("2026-11-21 10:11:12.000000", 0)).isEqualTo("2026-11-21 10:11:12");
        assertThat(LogicalColumn.withFraction("-838:59:59", 2)).isEqualTo("-838:59:59.00");
    }

    @Test
    void shouldRefuseWhatIsNotServedWith1235AndUnknownNamesAsAServerDoes() {
        for (String sql : List.of("SELECT * FROM orders o JOIN orders p ON o.id = p.id",
                "SELECT customer, COUNT(*) FROM orders GROUP BY customer", "SELECT DISTINCT customer FROM orders",
                "SELECT * FROM (SELECT * FROM orders) x", "SELECT * FROM orders WHERE id IN (SELECT 1)",
                "SELECT UPPER(note) FROM orders", "SELECT id + 1 FROM orders", "SELECT * FROM orders WHERE id + 1 > 3",
                "SELECT SUM(amount) FROM orders", "SELECT * FROM orders FOR UPDATE", "SELECT id, COUNT(*) FROM orders",
                "SELECT * FROM orders ORDER BY doc", "SELECT * FROM orders UNION SELECT * FROM orders",
                "SELECT * FROM orders WHERE note = NOW()")) {
            assertThat(refusal(sql)).as(sql).isEqualTo(1235);
        }
        assertThat(refusal("SELECT nope FROM orders")).isEqualTo(1054);
        assertThat(refusal("SELECT * FROM orders WHERE nope = 1")).isEqualTo(1054);
        assertThat(refusal("SELECT * FROM shop.nope")).isEqualTo(1146);
        assertThatThrownBy(() -> TableSelect.plan("SELECT * FROM orders", null, SCHEMA, BinlogFlavor.MARIADB))
                .isInstanceOfSatisfying(TableSelect.Refused.class, e -> assertThat(e.error().code()).isEqualTo(1046));
        assertThat(TableSelect.plan("SELECT 1", "shop", SCHEMA, BinlogFlavor.MARIADB)).as("no table").isNull();
        assertThat(TableSelect.plan("SELECT @@server_id FROM DUAL", null, SCHEMA, BinlogFlavor.MARIADB)).isNull();
    }
}
