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

/** The statements of PROTOCOL-NOTES.md "What clients send before dumping", answered per flavor. */
class QueryResponderTest {

    @TempDir
    Path dir;

    private GlobalBinlogWriter open(BinlogFlavor flavor) throws Exception {
        return open(flavor, dir);
    }

    private static GlobalBinlogWriter open(BinlogFlavor flavor, Path dir) throws Exception {
        BinlogConfig config = BinlogConfig.parse(Map.of("binlog.dir", dir.toString(), "binlog.flavor",
                flavor.name().toLowerCase(), "binlog.server.id", "7"));
        return GlobalBinlogWriter.open(config, BinlogRecovery.recover(config), Clock.systemUTC());
    }

    private static QueryResponder responder(BinlogFlavor flavor, GlobalBinlogWriter w) {
        return new QueryResponder(new ServerVariables(flavor, 7, w == null ? "x" : w.serverUuid().toString(), 3399, false),
                () -> w);
    }

    private static List<List<String>> rows(Answer a) {
        assertThat(a).isInstanceOf(Answer.Rows.class);
        return ((Answer.Rows) a).resultSet().rows();
    }

    private static String value(Answer a) {
        return rows(a).get(0).get(0);
    }

    @Test
    void answersWhatAMySqlReplicaAndConnectorJavaSend() throws Exception {
        try (GlobalBinlogWriter w = open(BinlogFlavor.MYSQL)) {
            QueryResponder r = responder(BinlogFlavor.MYSQL, w);
            DumpSession s = new DumpSession(1, "repl", BinlogFlavor.MYSQL, false);
            assertThat(Long.parseLong(value(r.answer("SELECT UNIX_TIMESTAMP()", s))))
                    .isCloseTo(System.currentTimeMillis() / 1000, org.assertj.core.data.Offset.offset(5L));
            assertThat(value(r.answer("SELECT @@GLOBAL.SERVER_ID", s))).isEqualTo("7");
            assertThat(value(r.answer("select @@server_id", s))).isEqualTo("7");
            assertThat(value(r.answer("SELECT @@GLOBAL.GTID_MODE", s))).isEqualTo("ON");
            assertThat(value(r.answer("SELECT @@GLOBAL.SERVER_UUID", s))).isEqualTo(w.serverUuid().toString());
            assertThat(r.answer("SET @master_heartbeat_period = 30000000000, @source_heartbeat_period = 30000000000", s))
                    .isInstanceOf(Answer.Ok.class);
            assertThat(s.heartbeatPeriod().toSeconds()).isEqualTo(30);
            r.answer("SET @master_binlog_checksum = @@global.binlog_checksum, @source_binlog_checksum = @@global.binlog_checksum", s);
            assertThat(value(r.answer("SELECT @source_binlog_checksum", s))).isEqualTo("CRC32");
            assertThat(s.checksumAware()).isTrue();
            assertThat(r.answer("SET @slave_uuid = 'a', @replica_uuid = 'a'", s)).isInstanceOf(Answer.Ok.class);
            assertThat(rows(r.answer("show global variables like 'gtid_purged'", s))).containsExactly(List.of("gtid_purged", ""));
            assertThat(rows(r.answer("SHOW GLOBAL VARIABLES LIKE 'binlog_format'", s))).containsExactly(List.of("binlog_format", "ROW"));
            assertThat(rows(r.answer("SHOW VARIABLES LIKE 'SERVER_ID'", s))).containsExactly(List.of("server_id", "7"));
            assertThat(rows(r.answer("SELECT @@global.rpl_semi_sync_master_enabled", s))).as("a boolean selects as 0/1")
                    .containsExactly(List.of("0"));
            assertThat(r.answer("set net_write_timeout=7200", s)).isInstanceOf(Answer.Ok.class);
            assertThat(value(r.answer("SELECT @@net_write_timeout", s))).isEqualTo("7200");
            assertThat(r.answer("SET NAMES 'binary'", s)).isInstanceOf(Answer.Ok.class);
            assertThat(value(r.answer("/* mysql-connector-j */ SELECT @@version_comment LIMIT 1", s))).contains("Tributary");
            assertThat(rows(r.answer("SHOW MASTER STATUS", s)).get(0)).hasSize(5);
            Answer bootstrap = r.answer("SELECT @@session.auto_increment_increment AS auto_increment_increment, "
                    + "@@character_set_client AS character_set_client, @@license AS license, @@wait_timeout AS wait_timeout", s);
            assertThat(((Answer.Rows) bootstrap).resultSet().columns().get(1).name()).isEqualTo("character_set_client");
        }
    }

    @Test
    void answersWhatAMariaDbReplicaSends() throws Exception {
        try (GlobalBinlogWriter w = open(BinlogFlavor.MARIADB)) {
            QueryResponder r = responder(BinlogFlavor.MARIADB, w);
            DumpSession s = new DumpSession(1, "repl", BinlogFlavor.MARIADB, false);
            assertThat(value(r.answer("SELECT @@GLOBAL.gtid_domain_id", s))).isEqualTo("0");
            r.answer("SET @mariadb_slave_capability=4", s);
            r.answer("SET @slave_connect_state='0-7-3'", s);
            r.answer("SET @slave_gtid_strict_mode=1", s);
            r.answer("SET @slave_gtid_ignore_duplicates=0", s);
            assertThat(s.userVariable("slave_connect_state")).isEqualTo("0-7-3");
            assertThat(value(r.answer("SELECT VERSION()", s))).isEqualTo("10.11.5-MariaDB-tributary");
            assertThat(rows(r.answer("SHOW MASTER STATUS", s)).get(0)).hasSize(4);
            assertThat(r.answer("SELECT @@global.gtid_executed", s)).isInstanceOf(Answer.Error.class);
            Answer pos = r.answer("SELECT binlog_gtid_pos('binlog.000001', 4)", s);
            assertThat(pos).isInstanceOf(Answer.Deferred.class);
            assertThat(rows(((Answer.Deferred) pos).work().call()).get(0)).as("nothing before the first file").containsExactly("");
        }
    }

    @Test
    void anUnknownStatementGetsAnErrorNamingIt() {
        QueryResponder r = responder(BinlogFlavor.MYSQL, null);
        DumpSession s = new DumpSession(1, "repl", BinlogFlavor.MYSQL, false);
        Answer a = r.answer("DROP TABLE important", s);
        assertThat(a).isInstanceOf(Answer.Error.class);
        assertThat(((Answer.Error) a).packet().code()).isEqualTo(1235);
        assertThat(((Answer.Error) a).packet().message()).contains("DROP TABLE important");
        assertThat(((Answer.Error) r.answer("SELECT @@no_such_thing", s)).packet().code()).isEqualTo(1193);
        assertThat(((Answer.Error) r.answer("SET GLOBAL read_only = 0", s)).packet().code()).isEqualTo(1227);
        assertThat(rows(r.answer("SHOW MASTER STATUS", s))).as("no binlog open yet").isEmpty();
    }

    @Test
    void gtidSubtractWorksOnIntervals() {
        String u = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
        assertThat(QueryResponder.gtidSubtract(u + ":1-100", u + ":1-10:20-30")).isEqualTo(u + ":11-19:31-100");
        assertThat(QueryResponder.gtidSubtract(u + ":1-10", u + ":1-10")).isEmpty();
    }

    @Test
    void passwordsAreCheckedAgainstHashesOnly() {
        DumpUser u = DumpUser.withPassword("repl", "secret");
        assertThat(u.toString()).doesNotContain("secret");
        Authenticator auth = new Authenticator(Map.of("repl", u));
        byte[] seed = "abcdefghijklmnopqrst".getBytes();
        assertThat(auth.checkNative("repl", seed, io.tributary.core.packet.AuthScramble.nativePassword("secret".getBytes(), seed))).isTrue();
        assertThat(auth.checkNative("repl", seed, io.tributary.core.packet.AuthScramble.nativePassword("wrong".getBytes(), seed))).isFalse();
        byte[] sha2 = io.tributary.core.packet.AuthScramble.cachingSha2("secret".getBytes(), seed);
        assertThat(auth.checkCachingSha2Fast("repl", seed, sha2)).as("no fast path before a full authentication").isFalse();
        byte[] rsa = io.tributary.core.packet.AuthScramble.rsaEncryptedPassword("secret".getBytes(), seed, auth.publicKeyPem());
        assertThat(auth.checkCachingSha2Rsa("repl", seed, rsa)).isTrue();
        assertThat(auth.checkCachingSha2Fast("repl", seed, sha2)).isTrue();
        assertThat(auth.checkCachingSha2Fast("repl", seed,
                io.tributary.core.packet.AuthScramble.cachingSha2("wrong".getBytes(), seed))).isFalse();
    }

    private static String message(Answer a) {
        assertThat(a).isInstanceOf(Answer.Error.class);
        return ((Answer.Error) a).packet().message();
    }

    /** Issue 16: Debezium's MariaDB connector wraps every statement in SET STATEMENT ... FOR; MySQL has no such statement. */
    @Test
    void setStatementForAnswersTheInnerStatementOnMariaDbOnly() {
        QueryResponder maria = responder(BinlogFlavor.MARIADB, null);
        DumpSession s = new DumpSession(1, "repl", BinlogFlavor.MARIADB, false);
        Answer version = maria.answer("SET STATEMENT max_statement_time=600 FOR SELECT version()", s);
        assertThat(rows(version)).containsExactly(List.of("10.11.5-MariaDB-tributary"));
        assertThat(((Answer.Rows) version).resultSet().columns().get(0).name()).isEqualTo("version()");
        assertThat(rows(maria.answer("set statement max_statement_time = 600, `sql_mode` = 'a,b' for"
                + " SHOW GLOBAL VARIABLES LIKE 'binlog_format'", s))).containsExactly(List.of("binlog_format", "ROW"));
        assertThat(code(maria.answer("SET STATEMENT max_statement_time=600 FOR SELECT @@nope", s)))
                .as("the inner statement's own error").isEqualTo(1193);
        assertThat(message(maria.answer("SET STATEMENT max_statement_time=600 SELECT 1", s)))
                .as("no FOR").contains("error in your SQL syntax").contains("at line 1");
        assertThat(code(maria.answer("SET STATEMENT max_statement_time FOR SELECT 1", s))).isEqualTo(1064);
        assertThat(code(maria.answer("SET STATEMENT max_statement_time=600 FOR", s))).isEqualTo(1064);
        assertThat(s.sessionVariable("max_statement_time")).as("the variables last for the statement only").isNull();

        QueryResponder mysql = responder(BinlogFlavor.MYSQL, null);
        DumpSession m = new DumpSession(1, "repl", BinlogFlavor.MYSQL, false);
        assertThat(message(mysql.answer("SET STATEMENT max_statement_time=600 FOR SELECT version()", m)))
                .isEqualTo("You have an error in your SQL syntax; check the manual that corresponds to your MySQL server"
                        + " version for the right syntax to use near 'STATEMENT max_statement_time=600 FOR SELECT"
                        + " version()' at line 1");
    }

    /** Issue 16: what Flink CDC (Connector/J 8.0.33's pool), Debezium and zongji read at connect, per flavor. */
    @Test
    void variablesClientsReadAtConnectPerFlavor() throws Exception {
        try (GlobalBinlogWriter w = open(BinlogFlavor.MYSQL)) {
            QueryResponder r = responder(BinlogFlavor.MYSQL, w);
            DumpSession s = new DumpSession(1, "repl", BinlogFlavor.MYSQL, false);
            assertThat(value(r.answer("select @@session.transaction_read_only", s))).isEqualTo("0");
            assertThat(code(r.answer("select @@session.tx_read_only", s))).as("gone since MySQL 8.0.3").isEqualTo(1193);
            assertThat(rows(r.answer("SELECT @@global.log_bin, @@GLOBAL.gtid_mode, @@enforce_gtid_consistency,"
                    + " @@character_set_server, @@collation_server, @@lower_case_table_names, @@binlog_row_image,"
                    + " @@binlog_row_metadata, @@session.time_zone", s)).get(0))
                    .containsExactly("1", "ON", "ON", "utf8mb4", "utf8mb4_general_ci", "0", "FULL", "FULL", "SYSTEM");
            assertThat(rows(r.answer("SHOW GLOBAL VARIABLES WHERE Variable_name = 'transaction_read_only'"
                    + " OR Variable_name LIKE 'gtid\\_%' OR `variable_name` IN ('log_bin', 'SERVER_UUID')", s)))
                    .containsExactly(List.of("gtid_executed", ""), List.of("gtid_mode", "ON"), List.of("gtid_purged", ""),
                            List.of("log_bin", "ON"), List.of("server_uuid", w.serverUuid().toString()),
                            List.of("transaction_read_only", "OFF"));
            assertThat(rows(r.answer("SHOW VARIABLES WHERE Variable_name = 'no_such'", s))).isEmpty();
            assertThat(code(r.answer("SHOW VARIABLES WHERE Value = 'ON'", s))).isEqualTo(1235);
            assertThat(r.answer("set session transaction read only", s)).isInstanceOf(Answer.Ok.class);
            assertThat(value(r.answer("select @@session.transaction_read_only", s))).isEqualTo("1");
            assertThat(r.answer("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED, READ WRITE", s)).isInstanceOf(Answer.Ok.class);
            assertThat(value(r.answer("select @@session.transaction_read_only", s))).isEqualTo("0");
            assertThat(r.answer("SET autocommit = 0", s)).isInstanceOf(Answer.Ok.class);
            assertThat(value(r.answer("SELECT @@autocommit", s))).isEqualTo("0");
            assertThat(rows(r.answer("SHOW SESSION VARIABLES LIKE 'autocommit'", s))).containsExactly(List.of("autocommit", "OFF"));
            assertThat(rows(r.answer("SHOW BINARY LOG STATUS", s)).get(0)).hasSize(5).startsWith("binlog.000001");
            assertThat(value(r.answer("SELECT CURRENT_TIMESTAMP", s))).matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d");
            assertThat(value(r.answer("SELECT NOW(3)", s))).matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3}");
            assertThat(value(r.answer("SELECT CURRENT_TIMESTAMP()", s))).hasSize(19);
            assertThat(code(run(r.answer("SELECT NOW(9)", s)))).isEqualTo(1235);
        }
        try (GlobalBinlogWriter w = open(BinlogFlavor.MARIADB, dir.resolve("mariadb"))) {
            QueryResponder r = responder(BinlogFlavor.MARIADB, w);
            DumpSession s = new DumpSession(1, "repl", BinlogFlavor.MARIADB, false);
            assertThat(value(r.answer("SELECT @@tx_read_only", s))).isEqualTo("0");
            assertThat(code(r.answer("SELECT @@transaction_read_only", s))).as("an alias only since MariaDB 11.1").isEqualTo(1193);
            assertThat(code(r.answer("SELECT @@gtid_mode", s))).as("MariaDB has no gtid_mode").isEqualTo(1193);
            assertThat(rows(r.answer("SELECT @@global.gtid_binlog_pos AS pos, @@gtid_current_pos, @@log_bin, @@server_id", s)).get(0))
                    .containsExactly("", "", "1", "7");
            assertThat(rows(r.answer("SHOW VARIABLES WHERE Variable_name IN ('gtid_binlog_pos', 'gtid_mode')", s)))
                    .containsExactly(List.of("gtid_binlog_pos", ""));
        }
    }

    /** Issue 16: KILL is answered (the connection handler carries it out), never refused as unsupported. */
    @Test
    void killIsHandedToTheConnection() {
        QueryResponder r = responder(BinlogFlavor.MYSQL, null);
        DumpSession s = new DumpSession(1, "repl", BinlogFlavor.MYSQL, false);
        assertThat(r.answer("KILL 42", s)).isEqualTo(new Answer.Kill(42, false));
        assertThat(r.answer("kill connection 42", s)).isEqualTo(new Answer.Kill(42, false));
        assertThat(r.answer("KILL QUERY 7;", s)).isEqualTo(new Answer.Kill(7, true));
    }

    /** Issue 16: malformed input gets 1064 with where it went wrong, as a server words it; valid but unserved SQL 1235. */
    @Test
    void malformedStatementsGetError1064NearWhereTheyGoWrong() throws Exception {
        QueryResponder r = responder(BinlogFlavor.MYSQL, null);
        DumpSession s = new DumpSession(1, "repl", BinlogFlavor.MYSQL, false);
        assertThat(message(r.answer("SELEC 1", s))).endsWith("near 'SELEC 1' at line 1");
        assertThat(code(r.answer("SELEC 1", s))).isEqualTo(1064);
        assertThat(message(r.answer("SELECT 'abc", s))).endsWith("near ''abc' at line 1");
        assertThat(message(r.answer("SELECT VERSION())", s))).endsWith("near ')' at line 1");
        assertThat(message(r.answer("SELECT VERSION(", s))).endsWith("near '' at line 1");
        assertThat(message(r.answer("\u00e9\u00e9\u00e9", s))).contains("error in your SQL syntax");
        assertThat(code(r.answer("  ;", s))).isEqualTo(1065);
        assertThat(code(r.answer("/* only a comment */", s))).isEqualTo(1065);
        assertThat(r.answer("/*!40101 SET NAMES utf8mb4 */", s)).as("a versioned comment runs").isInstanceOf(Answer.Ok.class);
        assertThat(value(r.answer("SELECT /*M!100100 @@server_id, */ 1", s))).isEqualTo("7");
        assertThat(code(r.answer("SHOW TRIGGERS", s))).as("valid, not served").isEqualTo(1235);
        assertThat(code(run(r.answer("SELECT id FROM shop.orders WHERE id > 3 GROUP BY id", s)))).as("valid, not served").isEqualTo(1235);
        assertThat(message(run(r.answer("SELECT id FROM shop.orders WHERE", s))))
                .as("JSqlParser's failing token").endsWith("near 'WHERE' at line 1");
        assertThat(message(run(r.answer("SELECT 1\nFROM", s)))).endsWith("near 'FROM' at line 2");
        assertThat(message(run(r.answer("UPDATE t SET a = 1 WHERE", s)))).endsWith("near '' at line 1");
        assertThat(value(r.answer("SELECT 'it''s'", s))).isEqualTo("it's");
        assertThat(value(r.answer("SELECT 'x' FROM DUAL", s))).as("FROM DUAL reads no table").isEqualTo("x");
    }

    /** Settings held in memory, validated like the daemon's: mode is AUTO or FORCE. */
    private static final class MapLiveVariables implements LiveVariables {
        final Map<String, String> values = new java.util.TreeMap<>(Map.of("storage.persist.mode", "AUTO"));

        @Override
        public Map<String, String> values() {
            return Map.copyOf(values);
        }

        @Override
        public String set(String key, String value) {
            if (!value.equals("AUTO") && !value.equals("FORCE")) {
                throw new IllegalArgumentException("Invalid value " + value + " for configuration " + key
                        + ": expected AUTO or FORCE");
            }
            return values.put(key, value);
        }
    }

    private static int code(Answer a) {
        assertThat(a).isInstanceOf(Answer.Error.class);
        return ((Answer.Error) a).packet().code();
    }

    private static Answer run(Answer a) throws Exception {
        return a instanceof Answer.Deferred d ? d.work().call() : a;
    }

    @Test
    void liveSettingsAreShownToAllAndSetGloballyByAdminsOnly() throws Exception {
        MapLiveVariables live = new MapLiveVariables();
        QueryResponder r = new QueryResponder(new ServerVariables(BinlogFlavor.MYSQL, 7, "x", 3399, false), () -> null, live);
        DumpSession user = new DumpSession(1, "repl", BinlogFlavor.MYSQL, false);
        DumpSession admin = new DumpSession(2, "ops", BinlogFlavor.MYSQL, false);
        admin.admin = true;
        assertThat(rows(r.answer("SHOW VARIABLES LIKE 'storage%'", user))).containsExactly(
                List.of("storage.persist.mode", "AUTO"));
        assertThat(code(r.answer("SET GLOBAL storage.persist.mode = 'FORCE'", user))).isEqualTo(1227);
        assertThat(code(r.answer("SET storage.persist.mode = 'FORCE'", admin))).isEqualTo(1229);
        assertThat(code(r.answer("SET GLOBAL storage.nothing = 1", admin))).isEqualTo(1193);
        assertThat(code(r.answer("SET GLOBAL binlog_format = 'MIXED'", admin))).as("server variables are read-only")
                .isEqualTo(1227);
        assertThat(live.values).containsEntry("storage.persist.mode", "AUTO");

        assertThat(run(r.answer("SET PERSIST `storage`.`persist.mode` = FORCE", admin))).isInstanceOf(Answer.Ok.class);
        assertThat(live.values).containsEntry("storage.persist.mode", "FORCE");
        Answer refused = run(r.answer("SET @@global.STORAGE.PERSIST.MODE = 'SOMETIMES'", admin));
        assertThat(code(refused)).isEqualTo(1231);
        assertThat(((Answer.Error) refused).packet().message())
                .isEqualTo("Invalid value SOMETIMES for configuration storage.persist.mode: expected AUTO or FORCE");
        assertThat(value(r.answer("SELECT @@`storage.persist.mode`", user))).isEqualTo("FORCE");
    }

    @Test
    void answersWhatMariaDbConnectorJSendsOnConnect() {
        QueryResponder r = responder(BinlogFlavor.MARIADB, null);
        DumpSession s = new DumpSession(1, "repl", BinlogFlavor.MARIADB, false);
        assertThat(r.answer("set sql_mode=CONCAT(@@sql_mode,',STRICT_TRANS_TABLES'),NAMES utf8mb4", s))
                .isInstanceOf(Answer.Ok.class);
        assertThat(value(r.answer("SELECT @@sql_mode", s))).isEqualTo(",STRICT_TRANS_TABLES");
    }
}
