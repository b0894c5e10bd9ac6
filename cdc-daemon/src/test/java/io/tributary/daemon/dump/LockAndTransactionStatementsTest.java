package io.tributary.daemon.dump;

import io.tributary.core.event.BinlogFlavor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/** What Debezium's connectors send around a schema snapshot, as the dump server answers it (both flavors). */
class LockAndTransactionStatementsTest {

    private static Answer answer(String sql, BinlogFlavor flavor) {
        QueryResponder r = new QueryResponder(new ServerVariables(flavor, 7, "x", 3399, false), () -> null);
        return r.answer(sql, new DumpSession(1, "dbz", flavor, false));
    }

    @ParameterizedTest
    @ValueSource(strings = {"FLUSH TABLES WITH READ LOCK", "flush tables", "FLUSH LOCAL TABLES `shop`.`orders`, shop.items WITH READ LOCK",
            "FLUSH NO_WRITE_TO_BINLOG TABLE orders", "UNLOCK TABLES", "unlock table", "LOCK TABLES shop.orders READ, `shop`.`items` AS i READ LOCAL",
            "LOCK TABLE t1 t READ, t2 LOW_PRIORITY WRITE", "START TRANSACTION WITH CONSISTENT SNAPSHOT",
            "START TRANSACTION READ ONLY, WITH CONSISTENT SNAPSHOT", "start transaction", "BEGIN", "BEGIN WORK",
            "LOCK INSTANCE FOR BACKUP", "UNLOCK INSTANCE", "/* Debezium */ FLUSH TABLES WITH READ LOCK;"})
    void snapshotStatementsAreAnsweredOkOnBothFlavors(String sql) {
        assertThat(answer(sql, BinlogFlavor.MYSQL)).as(sql).isInstanceOf(Answer.Ok.class);
        assertThat(answer(sql, BinlogFlavor.MARIADB)).as(sql).isInstanceOf(Answer.Ok.class);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "FLUSH TABLES WITH READ|''",
            "FLUSH TABLES WITH WRITE LOCK|WRITE LOCK",
            "FLUSH TABLES a, WITH READ LOCK|WITH READ LOCK",
            "UNLOCK|''",
            "UNLOCK ROWS|ROWS",
            "LOCK TABLES orders|''",
            "LOCK TABLES orders READ,|''",
            "LOCK TABLES orders SHARE|''",
            "START TRANSACTION WITH SNAPSHOT|SNAPSHOT",
            "START TRANSACTION READ ONCE|ONCE",
            "BEGIN TRANSACTION|TRANSACTION",
            "START TRANSACTION READ ONLY extra|extra"})
    void aMalformedOneGets1064NearWhereItGoesWrong(String sql, String near) {
        Answer a = answer(sql, BinlogFlavor.MYSQL);
        assertThat(a).as(sql).isInstanceOf(Answer.Error.class);
        assertThat(((Answer.Error) a).packet().code()).isEqualTo(1064);
        assertThat(((Answer.Error) a).packet().message()).endsWith("near '" + near + "' at line 1");
    }

    @ParameterizedTest
    @ValueSource(strings = {"FLUSH LOGS", "START REPLICA", "LOCK TABLES FOR BACKUP"})
    void otherStatementsWithTheseFirstWordsAreNotTakenForThem(String sql) {
        Answer a = answer(sql, BinlogFlavor.MYSQL);
        assertThat(a).as(sql).isInstanceOf(Answer.Error.class);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "FLUSH TABLES WITH READ LOCK|FLUSH_TABLES_WITH_READ_LOCK|''",
            "FLUSH TABLES `shop`.`orders`, shop.items WITH READ LOCK|FLUSH_TABLES_WITH_READ_LOCK|`shop`.`orders` shop.items",
            "flush tables|FLUSH_TABLES|''",
            "LOCK TABLES shop.orders READ, `shop`.`items` AS i READ LOCAL|LOCK_TABLES|shop.orders `shop`.`items`",
            "UNLOCK TABLES|UNLOCK_TABLES|''",
            "LOCK INSTANCE FOR BACKUP|LOCK_INSTANCE|''",
            "START TRANSACTION READ ONLY, WITH CONSISTENT SNAPSHOT|START_SNAPSHOT|''",
            "START TRANSACTION READ ONLY|START_TRANSACTION|''",
            "BEGIN WORK|BEGIN|''"})
    void eachIsReadAsWhatItDoesWithTheTablesItNames(String sql, String kind, String tables) {
        LockAndTransactionStatements.Parsed p = LockAndTransactionStatements.parse(sql);
        assertThat(p.error()).as(sql).isNull();
        assertThat(p.kind()).as(sql).isEqualTo(LockAndTransactionStatements.Kind.valueOf(kind));
        assertThat(String.join(" ", p.tables())).as(sql).isEqualTo(tables);
    }

    /** Locks are recorded on the connection, never passed on: a lock then UNLOCK leaves none held. */
    @Test
    void locksAreRecordedOnTheConnection() {
        QueryResponder r = new QueryResponder(new ServerVariables(BinlogFlavor.MARIADB, 7, "x", 3399, false), () -> null);
        DumpSession s = new DumpSession(1, "dbz", BinlogFlavor.MARIADB, false);
        assertThat(r.answer("FLUSH TABLES WITH READ LOCK", s)).isInstanceOf(Answer.Ok.class);
        assertThat(s.holds.globalReadLock()).isTrue();
        assertThat(r.answer("UNLOCK TABLES", s)).isInstanceOf(Answer.Ok.class);
        assertThat(s.holds.globalReadLock()).isFalse();
        assertThat(r.answer("FLUSH TABLES shop.orders WITH READ LOCK", s)).isInstanceOf(Answer.Ok.class);
        assertThat(s.holds.globalReadLock()).as("a table list is no global lock").isFalse();
    }
}
