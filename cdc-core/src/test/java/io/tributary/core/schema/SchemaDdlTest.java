package io.tributary.core.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.core.event.BinlogFlavor;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * DDL applied to the logical schema, its {@code SHOW CREATE TABLE} text pinned against what MariaDB 10.11.19
 * printed for the same statements (the live comparison is {@code LogicalSchemaMariaDbIT} in cdc-test).
 */
class SchemaDdlTest {

    private final SchemaDdl ddl = new SchemaDdl(BinlogFlavor.MARIADB);

    private LogicalSchema run(LogicalSchema s, String db, List<String> statements) {
        for (String sql : statements) {
            SchemaDdl.Outcome o = ddl.apply(s, db, sql);
            assertThat(o).as(sql).isInstanceOf(SchemaDdl.Applied.class);
            s = ((SchemaDdl.Applied) o).schema();
        }
        return s;
    }

    private static String show(LogicalSchema s, String db, String table) {
        return CreateTableText.render(s.table(new TableName(db, table)).orElseThrow(), BinlogFlavor.MARIADB);
    }

    @Test
    void shouldPrintWhatMariaDbPrintsAfterCreateAlterRenameAndIndexStatements() {
        LogicalSchema s = run(LogicalSchema.empty("latin1", "latin1_swedish_ci"), "", List.of(
                "create database shop character set utf8mb4"));
        s = run(s, "shop", List.of(
                "create table orders (id bigint unsigned not null auto_increment primary key, customer int not null,"
                        + " note varchar(100), amount decimal(12,2) not null default '0', created timestamp not null"
                        + " default current_timestamp, key by_customer (customer)) engine=InnoDB",
                "alter table orders add column status enum('new','paid') not null default 'new' after customer,"
                        + " add index (status), modify note varchar(200) character set latin1 comment 'free text'",
                "alter table orders change note remark text, drop index by_customer,"
                        + " add unique key uk_c (customer, status), rename column amount to total",
                "create table items like orders",
                "alter table items drop primary key, drop column id, add primary key (customer, status)",
                "rename table items to line_items",
                "create index ix_total on line_items (total)",
                "alter table line_items alter column total set default 5, add column flag bool default true first"));
        assertThat(show(s, "shop", "orders")).isEqualTo("""
                CREATE TABLE `orders` (
                  `id` bigint(20) unsigned NOT NULL AUTO_INCREMENT,
                  `customer` int(11) NOT NULL,
                  `status` enum('new','paid') NOT NULL DEFAULT 'new',
                  `remark` text DEFAULT NULL,
                  `total` decimal(12,2) NOT NULL DEFAULT 0.00,
                  `created` timestamp NOT NULL DEFAULT current_timestamp(),
                  PRIMARY KEY (`id`),
                  UNIQUE KEY `uk_c` (`customer`,`status`),
                  KEY `status` (`status`)
                ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci""");
        assertThat(show(s, "shop", "line_items")).isEqualTo("""
                CREATE TABLE `line_items` (
                  `flag` tinyint(1) DEFAULT 1,
                  `customer` int(11) NOT NULL,
                  `status` enum('new','paid') NOT NULL DEFAULT 'new',
                  `remark` text DEFAULT NULL,
                  `total` decimal(12,2) NOT NULL DEFAULT 5.00,
                  `created` timestamp NOT NULL DEFAULT current_timestamp(),
                  PRIMARY KEY (`customer`,`status`),
                  UNIQUE KEY `uk_c` (`customer`,`status`),
                  KEY `status` (`status`),
                  KEY `ix_total` (`total`)
                ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci""");
        assertThat(s.table(new TableName("shop", "items"))).isEmpty();
    }

    @Test
    void shouldNormaliseTypesDefaultsAndUnnamedKeysAsMariaDb() {
        LogicalSchema s = run(LogicalSchema.empty("utf8mb4", "utf8mb4_general_ci"), "", List.of("create database shop"));
        s = run(s, "shop", List.of(
                "create table t2 (a int, b char, c integer(5) zerofill, d double(8,3), e float, f datetime(6)"
                        + " default now(6) on update now(6), g date, h varbinary(10), k bit(3) default b'101',"
                        + " l set('a','b') default 'a', m year, unique (a), key (b), key(b, a))"
                        + " default charset latin1 collate latin1_bin comment='x''y'",
                "alter table t2 convert to character set utf8mb4",
                "alter table t2 drop column b"));
        assertThat(show(s, "shop", "t2")).isEqualTo("""
                CREATE TABLE `t2` (
                  `a` int(11) DEFAULT NULL,
                  `c` int(5) unsigned zerofill DEFAULT NULL,
                  `d` double(8,3) DEFAULT NULL,
                  `e` float DEFAULT NULL,
                  `f` datetime(6) DEFAULT current_timestamp(6) ON UPDATE current_timestamp(6),
                  `g` date DEFAULT NULL,
                  `h` varbinary(10) DEFAULT NULL,
                  `k` bit(3) DEFAULT b'101',
                  `l` set('a','b') DEFAULT 'a',
                  `m` year(4) DEFAULT NULL,
                  UNIQUE KEY `a` (`a`),
                  KEY `b_2` (`a`)
                ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci COMMENT='x''y'""");
    }

    @Test
    void shouldReadNegativeDefaultsAsShowCreateTablePrintsThemAndAsAnAlterWritesThem() {
        String text = """
                CREATE TABLE `n` (
                  `a` decimal(10,2) DEFAULT -3.50,
                  `b` double DEFAULT -2.5e-7,
                  `c` int(11) DEFAULT -1,
                  `d` float DEFAULT -.5,
                  `e` varchar(20) DEFAULT 'DEFAULT -1.5',
                  `DEFAULT -2.5` int(11) DEFAULT NULL
                ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci""";
        SchemaTable t = new SchemaDdl(BinlogFlavor.MARIADB).parseCreateTable(LogicalSchema.empty("utf8mb4",
                "utf8mb4_general_ci"), "d", text);
        assertThat(t.columns().stream().map(c -> c.defaultValue() == null ? null : c.defaultValue().text()))
                .containsExactly("-3.50", "-2.5e-7", "-1", "-.5", "DEFAULT -1.5", null);
        assertThat(t.columns().get(5).name()).isEqualTo("DEFAULT -2.5");
        LogicalSchema s = run(LogicalSchema.empty("utf8mb4", "utf8mb4_general_ci"), "", List.of("create database d"));
        s = run(s, "d", List.of("create table x (id int)", "alter table x add column m decimal(5,1) default - 1.5"));
        assertThat(show(s, "d", "x")).contains("`m` decimal(5,1) DEFAULT -1.5");
    }

    @Test
    void shouldReadBackWhatItPrints() {
        String text = """
                CREATE TABLE `t` (
                  `id` int(11) NOT NULL AUTO_INCREMENT,
                  `a` varchar(20) DEFAULT NULL,
                  `b` int(10) unsigned NOT NULL DEFAULT 5,
                  `c` decimal(10,2) DEFAULT 1.50,
                  `d` datetime(3) DEFAULT current_timestamp(3) ON UPDATE current_timestamp(3),
                  `e` text DEFAULT NULL,
                  `i` char(3) CHARACTER SET latin1 COLLATE latin1_swedish_ci DEFAULT NULL COMMENT 'c''s',
                  `l` timestamp NULL DEFAULT NULL,
                  `m` longtext CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT NULL CHECK (json_valid(`m`)),
                  PRIMARY KEY (`id`),
                  UNIQUE KEY `ua` (`a`),
                  KEY `kb` (`b`,`c`),
                  KEY `ka` (`a`(5))
                ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci COMMENT='hi'""";
        LogicalSchema empty = LogicalSchema.empty("latin1", "latin1_swedish_ci");
        SchemaTable t = ddl.parseCreateTable(empty, "d1", text);
        assertThat(CreateTableText.render(t, BinlogFlavor.MARIADB)).isEqualTo(text);
        assertThat(t.column("m").orElseThrow().type()).isEqualTo("json");
    }

    @Test
    void shouldTakeGeneratedColumnsFromServerTextOnlyAndSkipAnAddColumnIfNotExistsOfAColumnThere() {
        String text = """
                CREATE TABLE `g` (
                  `id` int(11) NOT NULL,
                  `x` int(11) GENERATED ALWAYS AS (`id` + 1) VIRTUAL,
                  `y` int(11) GENERATED ALWAYS AS (`id` * 2) STORED,
                  PRIMARY KEY (`id`)
                ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci""";
        LogicalSchema s = LogicalSchema.empty("utf8mb4", "utf8mb4_general_ci");
        SchemaTable g = ddl.parseCreateTable(s, "d", text);
        assertThat(CreateTableText.render(g, BinlogFlavor.MARIADB)).isEqualTo(text);
        s = s.withTable(g);
        assertThat(ddl.apply(s, "d", "ALTER TABLE g ADD COLUMN z int AS (id + 2) VIRTUAL"))
                .isInstanceOf(SchemaDdl.Failed.class);
        SchemaDdl.Applied same = (SchemaDdl.Applied) ddl.apply(s, "d", "ALTER TABLE g ADD COLUMN IF NOT EXISTS x int");
        assertThat(same.schema().table(g.name())).contains(g);
    }

    @Test
    void shouldPrintMySqlSpellingForTheMySqlFlavor() {
        SchemaDdl mysql = new SchemaDdl(BinlogFlavor.MYSQL);
        LogicalSchema s = LogicalSchema.empty("utf8mb4", "utf8mb4_0900_ai_ci");
        s = ((SchemaDdl.Applied) mysql.apply(s, "shop", "create table t (id int not null primary key, n int default 0,"
                + " t text, ts timestamp default current_timestamp, flag boolean, j json)")).schema();
        assertThat(CreateTableText.render(s.table(new TableName("shop", "t")).orElseThrow(), BinlogFlavor.MYSQL))
                .isEqualTo("""
                        CREATE TABLE `t` (
                          `id` int NOT NULL,
                          `n` int DEFAULT '0',
                          `t` text,
                          `ts` timestamp NULL DEFAULT CURRENT_TIMESTAMP,
                          `flag` tinyint(1) DEFAULT NULL,
                          `j` json DEFAULT NULL,
                          PRIMARY KEY (`id`)
                        ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci""");
    }

    @Test
    void shouldDropTablesAndDatabasesAndIgnoreWhatIsNotAboutTables() {
        LogicalSchema s = run(LogicalSchema.empty("utf8mb4", "utf8mb4_general_ci"), "",
                List.of("CREATE DATABASE IF NOT EXISTS `a`", "create schema b /*!40100 DEFAULT CHARACTER SET latin1 */"));
        s = run(s, "a", List.of("create table x (i int)", "create table y (i int)", "create table b.z (i int)",
                "TRUNCATE TABLE x", "DROP TABLE `x`,`y` /* generated by server */"));
        assertThat(s.tablesOf("a")).isEmpty();
        assertThat(s.database("b").orElseThrow().charset()).isEqualTo("latin1");
        assertThat(s.table(new TableName("b", "z")).orElseThrow().charset()).isEqualTo("latin1");
        s = run(s, "a", List.of("DROP DATABASE b"));
        assertThat(s.tables()).isEmpty();
        assertThat(s.databases().keySet()).containsExactly("a");
        assertThat(ddl.apply(s, "a", "CREATE VIEW v AS SELECT 1")).isInstanceOf(SchemaDdl.Ignored.class);
        assertThat(ddl.apply(s, "a", "GRANT SELECT ON *.* TO x")).isInstanceOf(SchemaDdl.Ignored.class);
    }

    @Test
    void shouldFailNamingTheReasonWhenAStatementCannotBeApplied() {
        LogicalSchema s = run(LogicalSchema.empty("utf8mb4", "utf8mb4_general_ci"), "d",
                List.of("create table t (i int)"));
        assertThat(ddl.apply(s, "d", "alter table nope add column j int"))
                .isEqualTo(new SchemaDdl.Failed("Table 'd.nope' doesn't exist", java.util.Set.of(new TableName("d", "nope"))));
        assertThat(((SchemaDdl.Failed) ddl.apply(s, "d", "alter table t add column i int")).reason())
                .isEqualTo("Duplicate column name 'i'");
        assertThat(((SchemaDdl.Failed) ddl.apply(s, "d", "alter table t drop column q")).reason())
                .contains("Can't DROP COLUMN `q`");
        assertThat(((SchemaDdl.Failed) ddl.apply(s, "d", "create table u as select 1")).reason())
                .contains("CREATE TABLE ... SELECT");
    }
}
