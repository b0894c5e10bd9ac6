package io.tributary.daemon.dump;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.packet.ColumnDefinition;
import io.tributary.core.schema.LogicalSchema;
import io.tributary.core.schema.SchemaDdl;
import io.tributary.storage.binlog.BinlogConfig;
import io.tributary.storage.binlog.BinlogRecovery;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.storage.schema.SchemaHistory;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The schema statements through the responder's dispatch, on the MySQL 8.0 flavor (the MariaDB flavor is compared
 * with a live server by {@code LogicalSchemaIT}): MySQL's column sets, its spelling of defaults, the WHERE forms
 * and the errors.
 */
class SchemaStatementsTest {

    @TempDir
    Path dir;

    private GlobalBinlogWriter open(BinlogFlavor flavor) throws Exception {
        BinlogConfig config = BinlogConfig.parse(Map.of("binlog.dir", dir.toString(), "binlog.flavor",
                flavor.name().toLowerCase(), "binlog.server.id", "7"));
        GlobalBinlogWriter w = GlobalBinlogWriter.open(config, BinlogRecovery.recover(config), Clock.systemUTC());
        SchemaDdl ddl = new SchemaDdl(flavor);
        LogicalSchema s = SchemaHistory.emptySchema(flavor);
        for (String sql : List.of("CREATE DATABASE shop", "CREATE TABLE shop.orders (id bigint unsigned NOT NULL"
                + " AUTO_INCREMENT PRIMARY KEY, customer int NOT NULL DEFAULT 0, note text, created timestamp NOT NULL"
                + " DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, UNIQUE KEY uk (customer, created))",
                "CREATE TABLE shop.items (sku varchar(20) NOT NULL PRIMARY KEY)")) {
            s = ((SchemaDdl.Applied) ddl.apply(s, "", sql)).schema();
        }
        w.seedSchema(s);
        return w;
    }

    private static QueryResponder responder(BinlogFlavor flavor, GlobalBinlogWriter w) {
        return new QueryResponder(new ServerVariables(flavor, 7, w.serverUuid().toString(), 3399, false), () -> w);
    }

    private static List<String> names(Answer a) {
        assertThat(a).isInstanceOf(Answer.Rows.class);
        return ((Answer.Rows) a).resultSet().columns().stream().map(ColumnDefinition::name).toList();
    }

    private static List<List<String>> rows(Answer a) {
        assertThat(a).as("%s", a).isInstanceOf(Answer.Rows.class);
        return ((Answer.Rows) a).resultSet().rows();
    }

    private static int code(Answer a) {
        assertThat(a).isInstanceOf(Answer.Error.class);
        return ((Answer.Error) a).packet().code();
    }

    @Test
    void shouldAnswerWithMySqlColumnSetsAndSpelling() throws Exception {
        try (GlobalBinlogWriter w = open(BinlogFlavor.MYSQL)) {
            QueryResponder r = responder(BinlogFlavor.MYSQL, w);
            DumpSession s = new DumpSession(1, "repl", BinlogFlavor.MYSQL, false);
            assertThat(rows(r.answer("SHOW CREATE TABLE shop.items", s)).get(0).get(1)).isEqualTo("""
                    CREATE TABLE `items` (
                      `sku` varchar(20) NOT NULL,
                      PRIMARY KEY (`sku`)
                    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci""");
            assertThat(names(r.answer("SHOW TABLE STATUS FROM shop", s))).containsExactly("Name", "Engine", "Version",
                    "Row_format", "Rows", "Avg_row_length", "Data_length", "Max_data_length", "Index_length", "Data_free",
                    "Auto_increment", "Create_time", "Update_time", "Check_time", "Collation", "Checksum",
                    "Create_options", "Comment");
            assertThat(names(r.answer("SHOW INDEX FROM orders FROM shop", s))).endsWith("Index_comment", "Visible",
                    "Expression");
            assertThat(rows(r.answer("SHOW COLUMNS FROM shop.orders", s))).containsExactly(
                    java.util.Arrays.asList("id", "bigint unsigned", "NO", "PRI", null, "auto_increment"),
                    java.util.Arrays.asList("customer", "int", "NO", "MUL", "0", ""),
                    java.util.Arrays.asList("note", "text", "YES", "", null, ""),
                    java.util.Arrays.asList("created", "timestamp", "NO", "", "CURRENT_TIMESTAMP",
                            "DEFAULT_GENERATED on update CURRENT_TIMESTAMP"));
            assertThat(names(r.answer("SELECT * FROM information_schema.COLUMNS WHERE TABLE_NAME = 'items'", s)))
                    .endsWith("GENERATION_EXPRESSION", "SRS_ID");
            assertThat(rows(r.answer("SHOW CREATE DATABASE shop", s)).get(0).get(1)).isEqualTo("CREATE DATABASE `shop`"
                    + " /*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_ai_ci */ /*!80016 DEFAULT ENCRYPTION='N' */");
        }
    }

    @Test
    void shouldFilterWithWhereAndLikeAndProjectInformationSchema() throws Exception {
        try (GlobalBinlogWriter w = open(BinlogFlavor.MARIADB)) {
            QueryResponder r = responder(BinlogFlavor.MARIADB, w);
            DumpSession s = new DumpSession(1, "repl", BinlogFlavor.MARIADB, false);
            assertThat(rows(r.answer("SHOW FULL TABLES IN `shop` WHERE Table_Type = 'BASE TABLE'", s))).hasSize(2);
            assertThat(rows(r.answer("SHOW FULL TABLES IN shop WHERE Table_type = 'VIEW'", s))).isEmpty();
            assertThat(rows(r.answer("SHOW TABLES FROM shop LIKE 'it%'", s))).containsExactly(List.of("items"));
            assertThat(rows(r.answer("SHOW DATABASES LIKE 'sh_p'", s))).containsExactly(List.of("shop"));
            assertThat(rows(r.answer("SELECT table_name AS t, COLUMN_NAME FROM information_schema.columns WHERE"
                    + " table_schema = 'shop' AND (table_name IN ('items') OR column_name = 'note') AND NOT (column_name LIKE 'x%') ORDER BY t DESC,"
                    + " COLUMN_NAME LIMIT 5", s))).containsExactly(List.of("orders", "note"), List.of("items", "sku"));
            Answer projected = r.answer("SELECT table_name AS t FROM information_schema.TABLES WHERE table_schema = 'shop'", s);
            assertThat(names(projected)).containsExactly("t");
            assertThat(((Answer.Rows) projected).resultSet().columns().get(0).orgName()).isEqualTo("TABLE_NAME");
            assertThat(code(r.answer("SHOW TABLES", s))).isEqualTo(1046);
            assertThat(code(r.answer("USE nope", s))).isEqualTo(1049);
            assertThat(r.answer("USE shop", s)).isInstanceOf(Answer.Ok.class);
            assertThat(rows(r.answer("SHOW TABLES", s))).hasSize(2);
            assertThat(code(r.answer("DESCRIBE nope", s))).isEqualTo(1146);
            assertThat(code(r.answer("SHOW FULL TABLES WHERE nope = 1", s))).isEqualTo(1054);
            assertThat(code(r.answer("SELECT * FROM information_schema.ENGINES", s))).isEqualTo(1235);
            assertThat(code(r.answer("SELECT * FROM information_schema.TABLES WHERE TABLE_NAME IN (SELECT 1)", s)))
                    .isEqualTo(1235);
        }
    }
}
