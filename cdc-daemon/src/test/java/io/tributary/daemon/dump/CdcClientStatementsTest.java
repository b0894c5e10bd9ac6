package io.tributary.daemon.dump;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.storage.binlog.BinlogConfig;
import io.tributary.storage.binlog.BinlogRecovery;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The statements real CDC clients send to the dump port other than the schema statements, as recorded from the
 * daemon's log (DEBUG of ConnectionHandler) in the client ITs of cdc-test, each answered on the flavor the client
 * runs against, with no error. The ITs show the clients accept the answers; this pins them statement by statement.
 */
class CdcClientStatementsTest {

    /** Debezium's MySQL connector 3.6.1 (MySQL Connector/J 9.1), at connect, at validation, resuming, and in no_data mode's snapshot. */
    static final List<String> DEBEZIUM_MYSQL = List.of(
            "SET autocommit=1", "SET sql_mode='STRICT_TRANS_TABLES'", "SET autocommit=0", "COMMIT", "ROLLBACK",
            "SHOW BINARY LOG STATUS", "SHOW MASTER STATUS", "SELECT version()", "SELECT VERSION()", "SHOW VARIABLES",
            "SHOW GLOBAL VARIABLES LIKE 'binlog_format'", "SHOW GLOBAL VARIABLES LIKE 'binlog_row_image'",
            "SHOW GLOBAL VARIABLES LIKE 'GTID_MODE'", "SHOW BINARY LOGS", "SELECT 1", "SELECT @@global.gtid_purged",
            "SELECT GTID_SUBTRACT('a7d3c0f2-0000-3000-8000-000000000001:1-9', 'a7d3c0f2-0000-3000-8000-000000000001:1-5')",
            "SHOW VARIABLES WHERE Variable_name IN ('character_set_server','collation_server')",
            "SHOW VARIABLES WHERE Variable_name = 'sql_mode'", "SHOW SESSION STATUS LIKE 'Ssl_version'",
            "SHOW GRANTS FOR CURRENT_USER", "SET SESSION lock_wait_timeout=10", "SET SESSION innodb_lock_wait_timeout=10",
            "FLUSH TABLES WITH READ LOCK", "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ",
            "START TRANSACTION WITH CONSISTENT SNAPSHOT", "UNLOCK TABLES");

    /** Debezium's MariaDB connector 3.5.0 (MariaDB Connector/J 3.5): the same, each wrapped in SET STATEMENT ... FOR. */
    static final List<String> DEBEZIUM_MARIADB = List.of(
            "set sql_mode=CONCAT(@@sql_mode,',STRICT_TRANS_TABLES'),time_zone='+00:00',NAMES utf8mb4", "set autocommit=0",
            "SET STATEMENT max_statement_time=600 FOR SELECT version()", "SET STATEMENT max_statement_time=600 FOR SELECT 1",
            "SET STATEMENT max_statement_time=600 FOR SHOW VARIABLES",
            "SET STATEMENT max_statement_time=600 FOR SHOW GLOBAL VARIABLES LIKE 'binlog_format'",
            "SET STATEMENT max_statement_time=600 FOR SHOW GLOBAL VARIABLES LIKE 'binlog_row_image'",
            "SET STATEMENT max_statement_time=600 FOR SHOW GLOBAL VARIABLES LIKE 'GTID_BINLOG_POS'",
            "SET STATEMENT max_statement_time=600 FOR SHOW BINARY LOGS",
            "SET STATEMENT max_statement_time=600 FOR SHOW MASTER STATUS",
            "SET STATEMENT max_statement_time=600 FOR FLUSH TABLES WITH READ LOCK",
            "SET STATEMENT max_statement_time=600 FOR SET TRANSACTION ISOLATION LEVEL REPEATABLE READ",
            "SET STATEMENT max_statement_time=600 FOR START TRANSACTION WITH CONSISTENT SNAPSHOT",
            "SET STATEMENT max_statement_time=600 FOR UNLOCK TABLES",
            "show global variables like 'binlog_checksum'", "set @master_heartbeat_period=48000000000",
            "set @master_binlog_checksum= @@global.binlog_checksum", "select @@server_id", "SET @mariadb_slave_capability=4",
            "SET @slave_gtid_strict_mode = 0", "SET @slave_gtid_ignore_duplicates = 0", "SET @slave_connect_state = '0-1-51'");

    /** Flink CDC 3.2.0's MySQL source (MySQL Connector/J 8.0.28 in a HikariCP pool), before table discovery. */
    static final List<String> FLINK_CDC = List.of(
            "SET autocommit=1", "SET sql_mode='STRICT_TRANS_TABLES'", "SELECT @@session.transaction_read_only",
            "SELECT @@session.transaction_isolation", "SELECT VERSION()", "SHOW GLOBAL VARIABLES LIKE 'binlog_format'",
            "SHOW GLOBAL VARIABLES LIKE 'binlog_row_image'", "SHOW GLOBAL VARIABLES LIKE 'binlog_row_value_options'",
            "SELECT TIME_TO_SEC(TIMEDIFF(NOW(), UTC_TIMESTAMP()))", "SHOW MASTER STATUS");

    @TempDir
    Path dir;

    private GlobalBinlogWriter open(BinlogFlavor flavor) throws Exception {
        BinlogConfig config = BinlogConfig.parse(Map.of("binlog.dir", dir.resolve(flavor.name()).toString(),
                "binlog.flavor", flavor.name().toLowerCase(), "binlog.server.id", "7"));
        return GlobalBinlogWriter.open(config, BinlogRecovery.recover(config), Clock.systemUTC());
    }

    private void assertAnswered(BinlogFlavor flavor, List<String> statements) throws Exception {
        try (GlobalBinlogWriter w = open(flavor)) {
            QueryResponder r = new QueryResponder(new ServerVariables(flavor, 7, w.serverUuid().toString(), 3399, false),
                    () -> w);
            DumpSession s = new DumpSession(1, "cdc", flavor, false);
            for (String sql : statements) {
                Answer a = r.answer(sql, s);
                if (a instanceof Answer.Deferred d) {
                    a = d.work().call();
                }
                assertThat(a).as("%s on the %s flavor: %s", sql, flavor, a).isNotInstanceOf(Answer.Error.class);
            }
        }
    }

    private static List<List<String>> rows(QueryResponder r, DumpSession s, String sql) throws Exception {
        Answer a = r.answer(sql, s);
        if (a instanceof Answer.Deferred d) {
            a = d.work().call();
        }
        return ((Answer.Rows) a).resultSet().rows();
    }

    @Test
    void debeziumsMySqlConnectorGetsAnAnswerToEveryStatement() throws Exception {
        assertAnswered(BinlogFlavor.MYSQL, DEBEZIUM_MYSQL);
    }

    @Test
    void debeziumsMariaDbConnectorGetsAnAnswerToEveryStatement() throws Exception {
        assertAnswered(BinlogFlavor.MARIADB, DEBEZIUM_MARIADB);
    }

    @Test
    void flinkCdcsMySqlSourceGetsAnAnswerToEveryStatementBeforeItsTableDiscovery() throws Exception {
        assertAnswered(BinlogFlavor.MYSQL, FLINK_CDC);
    }

    @Test
    void theValuesTheyCheckAreWhatTheyRequire() throws Exception {
        try (GlobalBinlogWriter w = open(BinlogFlavor.MYSQL)) {
            QueryResponder r = new QueryResponder(new ServerVariables(BinlogFlavor.MYSQL, 7, w.serverUuid().toString(),
                    3399, false), () -> w);
            DumpSession s = new DumpSession(1, "cdc", BinlogFlavor.MYSQL, false);
            assertThat(rows(r, s, "SHOW GLOBAL VARIABLES LIKE 'binlog_format'")).containsExactly(List.of("binlog_format", "ROW"));
            assertThat(rows(r, s, "SHOW GLOBAL VARIABLES LIKE 'binlog_row_image'")).containsExactly(List.of("binlog_row_image", "FULL"));
            assertThat(rows(r, s, "SHOW GLOBAL VARIABLES LIKE 'GTID_MODE'")).containsExactly(List.of("gtid_mode", "ON"));
            assertThat(rows(r, s, "SHOW VARIABLES WHERE Variable_name IN ('character_set_server','collation_server')"))
                    .extracting(row -> row.get(0)).containsExactly("character_set_server", "collation_server");
            assertThat(rows(r, s, "SELECT @@session.transaction_read_only")).containsExactly(List.of("0"));
            assertThat(rows(r, s, "SHOW MASTER STATUS").get(0)).hasSize(5).startsWith("binlog.000001");
        }
        try (GlobalBinlogWriter w = open(BinlogFlavor.MARIADB)) {
            QueryResponder r = new QueryResponder(new ServerVariables(BinlogFlavor.MARIADB, 7, w.serverUuid().toString(),
                    3399, false), () -> w);
            DumpSession s = new DumpSession(1, "cdc", BinlogFlavor.MARIADB, false);
            assertThat(rows(r, s, "SET STATEMENT max_statement_time=600 FOR SHOW GLOBAL VARIABLES LIKE 'GTID_BINLOG_POS'"))
                    .extracting(row -> row.get(0)).containsExactly("gtid_binlog_pos");
            assertThat(rows(r, s, "SHOW MASTER STATUS").get(0)).hasSize(4);
            assertThat(rows(r, s, "SHOW BINLOG STATUS")).as("MariaDB's other name for it")
                    .isEqualTo(rows(r, s, "SHOW MASTER STATUS"));
        }
    }
}
