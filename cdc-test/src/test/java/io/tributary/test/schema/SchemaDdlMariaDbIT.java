package io.tributary.test.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.schema.CreateTableText;
import io.tributary.core.schema.LogicalSchema;
import io.tributary.core.schema.SchemaDdl;
import io.tributary.core.schema.TableName;
import io.tributary.test.junit.WithShards;
import io.tributary.test.shard.ShardCluster;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The logical schema's DDL application against a live MariaDB 10.11: the same statements run on the server and on
 * a {@link LogicalSchema}; after each one, every table's {@code SHOW CREATE TABLE} on the server is what the schema
 * prints, and the server's {@code SHOW CREATE TABLE} text read back by the schema prints the same again.
 */
@WithShards(count = 1)
class SchemaDdlMariaDbIT {

    private static final List<String> SCRIPT = List.of(
            "CREATE TABLE orders (id bigint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY, customer int NOT NULL,"
                    + " note varchar(100), amount decimal(12,2) NOT NULL DEFAULT '0', created timestamp NOT NULL"
                    + " DEFAULT current_timestamp, KEY by_customer (customer)) ENGINE=InnoDB",
            "ALTER TABLE orders ADD COLUMN status enum('new','paid') NOT NULL DEFAULT 'new' AFTER customer,"
                    + " ADD INDEX (status), MODIFY note varchar(200) CHARACTER SET latin1 COMMENT 'free text'",
            "ALTER TABLE orders CHANGE note remark text, DROP INDEX by_customer, ADD UNIQUE KEY uk_c (customer, status),"
                    + " RENAME COLUMN amount TO total",
            "CREATE TABLE items LIKE orders",
            "ALTER TABLE items DROP PRIMARY KEY, DROP COLUMN id, ADD PRIMARY KEY (customer, status)",
            "RENAME TABLE items TO line_items",
            "CREATE INDEX ix_total ON line_items (total)",
            "ALTER TABLE line_items ALTER COLUMN total SET DEFAULT 5, ADD COLUMN flag bool DEFAULT true FIRST",
            "CREATE TABLE t2 (a int, b char, c integer(5) zerofill, d double(8,3), e float, f datetime(6) DEFAULT now(6)"
                    + " ON UPDATE now(6), g date, h varbinary(10), k bit(3) DEFAULT b'101', l set('a','b') DEFAULT 'a',"
                    + " m year, n mediumtext, o smallint unsigned NOT NULL DEFAULT 7, p time(3), UNIQUE (a), KEY (b),"
                    + " KEY (b, a)) DEFAULT CHARSET latin1 COLLATE latin1_bin COMMENT='x''y'",
            "ALTER TABLE t2 CONVERT TO CHARACTER SET utf8mb4",
            "ALTER TABLE t2 DROP COLUMN b, ADD COLUMN j json, ADD COLUMN q varchar(10) COLLATE utf8mb4_bin NOT NULL",
            "ALTER TABLE t2 COMMENT = 'changed', ENGINE = InnoDB",
            "ALTER TABLE t2 RENAME TO t3",
            "CREATE TABLE `odd name` (`x y` int NOT NULL DEFAULT -1, z varchar(5) DEFAULT 'it''s')",
            "DROP TABLE line_items",
            "TRUNCATE TABLE t3");

    @Test
    void shouldPrintWhatTheServerPrintsAfterEveryStatement(ShardCluster shards) throws SQLException {
        SchemaDdl ddl = new SchemaDdl(BinlogFlavor.MARIADB);
        try (Connection c = shards.info(0).openAdminConnection(); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS ddl_check");
            s.execute("CREATE DATABASE ddl_check CHARACTER SET utf8mb4");
            s.execute("USE ddl_check");
            LogicalSchema schema;
            try (ResultSet rs = s.executeQuery("SELECT @@character_set_server, @@collation_server")) {
                rs.next();
                schema = LogicalSchema.empty(rs.getString(1), rs.getString(2));
            }
            schema = ((SchemaDdl.Applied) ddl.apply(schema, "", "CREATE DATABASE ddl_check CHARACTER SET utf8mb4")).schema();
            for (String sql : SCRIPT) {
                s.execute(sql);
                SchemaDdl.Outcome o = ddl.apply(schema, "ddl_check", sql);
                assertThat(o).as(sql).isInstanceOf(SchemaDdl.Applied.class);
                schema = ((SchemaDdl.Applied) o).schema();
                List<String> serverTables = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SHOW TABLES FROM ddl_check")) {
                    while (rs.next()) {
                        serverTables.add(rs.getString(1));
                    }
                }
                assertThat(schema.tablesOf("ddl_check").stream().map(t -> t.name().table()).sorted().toList())
                        .as("tables after %s", sql).isEqualTo(serverTables.stream().sorted().toList());
                for (String t : serverTables) {
                    String server;
                    try (ResultSet rs = s.executeQuery("SHOW CREATE TABLE `" + t.replace("`", "``") + "`")) {
                        rs.next();
                        server = rs.getString(2);
                    }
                    String ours = CreateTableText.render(schema.table(new TableName("ddl_check", t)).orElseThrow(),
                            BinlogFlavor.MARIADB);
                    assertThat(ours).as("SHOW CREATE TABLE %s after: %s", t, sql).isEqualTo(server);
                    assertThat(CreateTableText.render(ddl.parseCreateTable(schema, "ddl_check", server),
                            BinlogFlavor.MARIADB)).as("the server's text read back").isEqualTo(server);
                }
            }
            s.execute("DROP DATABASE ddl_check");
        }
    }
}
