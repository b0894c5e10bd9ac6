package io.tributary.core.naming;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.core.transaction.DdlHistory;
import io.tributary.core.transaction.GlobalEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DdlDeduplicatorTest {

    private final DdlRewriter rewriter = new DdlRewriter(LogicalNames.defaults());

    private String logical(String db, String sql) {
        return rewriter.rewrite(db, sql).sql();
    }

    @Test
    void shouldRenameTablesAndDatabasesButNotColumnsIndexesOrLiterals() {
        assertThat(logical("shop_03", "ALTER TABLE orders_0007 ADD COLUMN note_1 VARCHAR(10) DEFAULT 'x_1'"))
                .isEqualTo("ALTER TABLE orders ADD COLUMN note_1 VARCHAR(10) DEFAULT 'x_1'");
        assertThat(logical("", "alter table `shop_03`.`orders_0007` add index idx_2 (c_3)"))
                .isEqualTo("alter table `shop`.`orders` add index idx_2 (c_3)");
        assertThat(logical("shop_01", "CREATE TABLE IF NOT EXISTS items_0001 (id INT PRIMARY KEY, order_id INT,"
                + " FOREIGN KEY (order_id) REFERENCES orders_0001 (id)) /* shard 1 */"))
                .isEqualTo("CREATE TABLE IF NOT EXISTS items (id INT PRIMARY KEY, order_id INT,"
                        + " FOREIGN KEY (order_id) REFERENCES orders (id)) /* shard 1 */");
        assertThat(logical("shop_01", "DROP TABLE IF EXISTS a_1, shop_01.b_2"))
                .isEqualTo("DROP TABLE IF EXISTS a, shop.b");
        assertThat(logical("shop_01", "RENAME TABLE a_1 TO a_old_1, b_1 TO b_old_1"))
                .isEqualTo("RENAME TABLE a TO a_old, b TO b_old");
        assertThat(logical("shop_01", "ALTER TABLE t_1 RENAME COLUMN c_1 TO c_2"))
                .isEqualTo("ALTER TABLE t RENAME COLUMN c_1 TO c_2");
        assertThat(logical("shop_01", "ALTER TABLE t_1 RENAME TO u_1")).isEqualTo("ALTER TABLE t RENAME TO u");
        assertThat(logical("shop_01", "CREATE INDEX ix_1 ON t_1 (c_1)")).isEqualTo("CREATE INDEX ix_1 ON t (c_1)");
        assertThat(logical("", "CREATE DATABASE IF NOT EXISTS shop_07 CHARACTER SET utf8mb4"))
                .isEqualTo("CREATE DATABASE IF NOT EXISTS shop CHARACTER SET utf8mb4");
        assertThat(logical("shop_01", "TRUNCATE t_9")).isEqualTo("TRUNCATE t");
        assertThat(logical("shop_01", "CREATE TABLE copy_1 LIKE orig_1")).isEqualTo("CREATE TABLE copy LIKE orig");
    }

    @Test
    void normalisedFormIgnoresCaseQuotingCommentsAndWhitespace() {
        DdlRewriter.Rewritten a = rewriter.rewrite("shop_00", "ALTER TABLE `orders_0000`  ADD c INT; ");
        DdlRewriter.Rewritten b = rewriter.rewrite("shop_01", "alter table orders_0001\n add C int -- from shard 1");
        assertThat(a.normalized()).isEqualTo(b.normalized()).isEqualTo("alter table orders add c int");
        assertThat(a.tables()).containsExactly(new LogicalTable("shop", "orders"));
    }

    @Test
    void theSameLogicalDdlFromEveryShardAppearsOnceFirstWins() {
        DdlDeduplicator d = new DdlDeduplicator(LogicalNames.defaults(), Set.of("s0", "s1", "s2"));
        Optional<GlobalEvent.Query> first = d.accept("s1", 100, "shop_01", "ALTER TABLE orders_0001 ADD c INT");
        assertThat(first).contains(new GlobalEvent.Query(100, "shop", "ALTER TABLE orders ADD c INT"));
        assertThat(d.accept("s0", 101, "shop_00", "alter table `orders_0000` add c int")).isEmpty();
        // Another statement interleaved is its own.
        assertThat(d.accept("s0", 102, "shop_00", "ALTER TABLE orders_0000 ADD d INT")).isPresent();
        assertThat(d.accept("s2", 103, "shop_02", "ALTER TABLE orders_0002 ADD c INT")).isEmpty();
        assertThat(d.rememberedStatements()).as("c and d").isEqualTo(2);
        // The same statement again later is a new logical statement.
        assertThat(d.accept("s2", 200, "shop_02", "ALTER TABLE orders_0002 ADD c INT")).isPresent();
        assertThat(d.accept("s1", 201, "shop_01", "ALTER TABLE orders_0001 ADD c INT")).isEmpty();
    }

    @Test
    void aShardRepeatingAStatementBeforeOthersCaughtUpIsANewStatement() {
        DdlDeduplicator d = new DdlDeduplicator(LogicalNames.defaults(), Set.of("s0", "s1"));
        assertThat(d.accept("s0", 1, "shop_00", "DROP TABLE IF EXISTS tmp_0")).isPresent();
        assertThat(d.accept("s0", 2, "shop_00", "DROP TABLE IF EXISTS tmp_0")).isPresent();
        assertThat(d.accept("s1", 3, "shop_01", "DROP TABLE IF EXISTS tmp_1")).isEmpty();
    }

    @Test
    void physicalTablesOfOneLogicalTableOnOneShardAreCopiesToo() {
        DdlDeduplicator d = new DdlDeduplicator(LogicalNames.defaults(), Set.of("s0", "s1"));
        assertThat(d.accept("s0", 1, "shop_01", "ALTER TABLE orders_0001 ADD c INT")).isPresent();
        assertThat(d.accept("s0", 2, "shop_01", "ALTER TABLE orders_0002 ADD c INT")).as("same shard, other table").isEmpty();
        assertThat(d.accept("s1", 3, "shop_02", "ALTER TABLE `orders_0003`  ADD c INT")).as("other shard").isEmpty();
        assertThat(d.accept("s1", 4, "shop_02", "ALTER TABLE orders_0004 ADD c INT")).isEmpty();
        // run again on one physical table: a new run of the logical statement, its other copies are duplicates
        assertThat(d.accept("s1", 5, "shop_02", "alter table `orders_0004` add c int")).isPresent();
        assertThat(d.accept("s0", 6, "shop_01", "ALTER TABLE orders_0002 ADD c INT")).isEmpty();
    }

    @Test
    void addDropAddIsWrittenThreeTimesWhateverTheInterleaving() {
        String add = "ALTER TABLE orders_%d ADD INDEX ix (c)";
        String drop = "ALTER TABLE orders_%d DROP INDEX ix";
        // shard 0 runs all three on both its tables before shard 1 starts
        DdlDeduplicator d = new DdlDeduplicator(LogicalNames.defaults(), Set.of("s0", "s1"));
        List<String> out = new ArrayList<>();
        for (String sql : List.of(add, drop, add)) {
            for (int t : new int[] {1, 2}) {
                d.accept("s0", 1, "shop_00", String.format(sql, t)).ifPresent(q -> out.add(q.sql()));
            }
        }
        for (String sql : List.of(add, drop, add)) {
            for (int t : new int[] {3, 4}) {
                d.accept("s1", 1, "shop_01", String.format(sql, t)).ifPresent(q -> out.add(q.sql()));
            }
        }
        assertThat(out).containsExactly("ALTER TABLE orders ADD INDEX ix (c)", "ALTER TABLE orders DROP INDEX ix",
                "ALTER TABLE orders ADD INDEX ix (c)");
    }

    @Test
    void theHistoryGivenBackAtARestartRecognisesCopiesAlreadyWritten() {
        DdlDeduplicator before = new DdlDeduplicator(LogicalNames.defaults(), Set.of("s0", "s1"));
        assertThat(before.accept("s0", 1, "shop_00", "ALTER TABLE orders_0 ADD c INT")).isPresent();
        assertThat(before.accept("s0", 2, "shop_00", "ALTER TABLE orders_1 ADD c INT")).isEmpty();
        DdlHistory stored = before.history();
        DdlDeduplicator after = new DdlDeduplicator(LogicalNames.defaults(), Set.of("s0", "s1"), stored,
                DdlDeduplicator.DEFAULT_CAPACITY);
        assertThat(after.history()).isEqualTo(stored);
        assertThat(after.accept("s1", 3, "shop_01", "ALTER TABLE orders_2 ADD c INT")).isEmpty();
        assertThat(after.accept("s0", 4, "shop_00", "ALTER TABLE orders_0 ADD c INT")).as("a new run").isPresent();
        DdlDeduplicator forgetful = new DdlDeduplicator(LogicalNames.defaults(), Set.of("s0", "s1"));
        assertThat(forgetful.accept("s1", 3, "shop_01", "ALTER TABLE orders_2 ADD c INT"))
                .as("without the history the copy would be written again").isPresent();
    }

    @Test
    void onlyTheMostRecentlySeenStatementsAreRemembered() {
        DdlDeduplicator d = new DdlDeduplicator(LogicalNames.defaults(), Set.of("s0", "s1"), DdlHistory.EMPTY, 2);
        assertThat(d.accept("s0", 1, "shop_00", "ALTER TABLE a_0 ADD c INT")).isPresent();
        assertThat(d.accept("s0", 1, "shop_00", "ALTER TABLE b_0 ADD c INT")).isPresent();
        assertThat(d.accept("s1", 1, "shop_01", "ALTER TABLE a_1 ADD c INT")).as("a seen again: now the newest").isEmpty();
        assertThat(d.accept("s0", 1, "shop_00", "ALTER TABLE c_0 ADD c INT")).isPresent();
        assertThat(d.rememberedStatements()).isEqualTo(2);
        assertThat(d.accept("s1", 1, "shop_01", "ALTER TABLE a_1 ADD c INT")).as("a remembered").isPresent();
        assertThat(d.accept("s1", 1, "shop_01", "ALTER TABLE b_1 ADD c INT")).as("b forgotten: written again").isPresent();
    }

    @Test
    void differentTablesOrDatabasesAreDifferentStatements() {
        DdlDeduplicator d = new DdlDeduplicator(LogicalNames.defaults(), Set.of("s0", "s1"));
        assertThat(d.accept("s0", 1, "shop_00", "ALTER TABLE orders_0 ADD c INT")).isPresent();
        assertThat(d.accept("s1", 1, "shop_01", "ALTER TABLE items_1 ADD c INT")).isPresent();
        assertThat(d.accept("s1", 1, "crm_01", "ALTER TABLE orders_1 ADD c INT")).as("other logical database").isPresent();
    }
}
