package io.tributary.core.framing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The framer on events built here (v4 header, no checksum trailer), one boundary kind at a time, for both flavours:
 * what each event is, where the framer stands after it, and what it ended.
 */
class TransactionFramerTest {

    private static final int QUERY = 2;
    private static final int XID = 16;
    private static final int TABLE_MAP = 19;
    private static final int WRITE_ROWS = 30;
    private static final int HEARTBEAT = 27;
    private static final int GTID = 33;
    private static final int ANONYMOUS_GTID = 34;
    private static final int XA_PREPARE = 38;
    private static final int TRANSACTION_PAYLOAD = 40;
    private static final int HEARTBEAT_V2 = 41;
    private static final int GTID_TAGGED = 42;
    private static final int MARIADB_GTID = 162;

    private final TransactionFramer framer = new TransactionFramer();

    /** An event of {@code type} with {@code body} after the 19-byte header. */
    static ByteBuf event(int type, byte[] body) {
        ByteBuf b = Unpooled.buffer(19 + body.length);
        b.writeIntLE(1_700_000_000).writeByte(type).writeIntLE(1).writeIntLE(19 + body.length).writeIntLE(0).writeShortLE(0);
        return b.writeBytes(body);
    }

    /** A QUERY event: post-header (thread 4, time 4, db length 1, error 2, status length 2), status, db, NUL, SQL. */
    static ByteBuf query(String db, String sql) {
        byte[] d = db.getBytes(StandardCharsets.UTF_8);
        byte[] s = sql.getBytes(StandardCharsets.UTF_8);
        byte[] status = {0, 0, 0, 0, 0}; // Q_FLAGS2_CODE and its 4 bytes
        ByteBuf body = Unpooled.buffer();
        body.writeIntLE(7).writeIntLE(0).writeByte(d.length).writeShortLE(0).writeShortLE(status.length);
        body.writeBytes(status).writeBytes(d).writeByte(0).writeBytes(s);
        return event(QUERY, bytes(body));
    }

    static ByteBuf mysqlGtid() {
        byte[] body = new byte[42];
        body[0] = 1; // commit flag
        body[1] = 0x3E;
        body[17] = 5; // GNO
        return event(GTID, body);
    }

    static ByteBuf mariaGtid(int flags) {
        ByteBuf body = Unpooled.buffer().writeLongLE(42).writeIntLE(0).writeByte(flags).writeBytes(new byte[6]);
        return event(MARIADB_GTID, bytes(body));
    }

    static ByteBuf xaPrepare(boolean onePhase) {
        ByteBuf body = Unpooled.buffer().writeByte(onePhase ? 1 : 0).writeIntLE(1).writeIntLE(2).writeIntLE(1);
        return event(XA_PREPARE, bytes(body.writeBytes(new byte[] {'g', 't', 'b'})));
    }

    static ByteBuf plain(int type) {
        return event(type, new byte[8]);
    }

    private static byte[] bytes(ByteBuf b) {
        byte[] a = new byte[b.readableBytes()];
        b.readBytes(a);
        return a;
    }

    private Boundary frame(ByteBuf event) {
        return framer.frame(event, event.readerIndex(), event.getUnsignedByte(event.readerIndex() + 4), event.readableBytes());
    }

    @Test
    void shouldFrameAMySqlGtidBeginRowsXidTransaction() {
        assertThat(frame(mysqlGtid())).isEqualTo(Boundary.GTID);
        assertThat(framer.opened()).isTrue();
        assertThat(framer.state()).isEqualTo(FramerState.GROUP);
        assertThat(frame(query("", "BEGIN"))).isEqualTo(Boundary.BEGIN);
        assertThat(framer.state()).isEqualTo(FramerState.BEGUN);
        assertThat(frame(plain(TABLE_MAP))).isEqualTo(Boundary.ROW_DATA);
        assertThat(frame(plain(WRITE_ROWS))).isEqualTo(Boundary.ROW_DATA);
        assertThat(framer.opened()).isFalse();
        assertThat(framer.ended()).isFalse();
        assertThat(framer.eventsInTransaction()).as("GTID, BEGIN, TABLE_MAP, rows").isEqualTo(4);
        assertThat(frame(plain(XID))).isEqualTo(Boundary.XID);
        assertThat(framer.ended()).isTrue();
        assertThat(framer.endedGtidGroup()).isTrue();
        assertThat(framer.state()).isEqualTo(FramerState.OUTSIDE);
        assertThat(framer.eventsInTransaction()).isZero();
    }

    @Test
    void shouldEndAGtidGroupAtItsDdl() {
        frame(mysqlGtid());
        assertThat(frame(query("shop", "CREATE TABLE t (id INT)"))).isEqualTo(Boundary.STATEMENT);
        assertThat(framer.ended()).isTrue();
        assertThat(framer.endedGtidGroup()).isTrue();
        assertThat(framer.state()).isEqualTo(FramerState.OUTSIDE);
    }

    @Test
    void shouldTakeADdlOutsideATransactionAsATransactionOfItsOwn() {
        assertThat(frame(query("shop", "  drop table t"))).isEqualTo(Boundary.STATEMENT);
        assertThat(framer.opened()).as("opened and ended by the one event").isTrue();
        assertThat(framer.ended()).isTrue();
        assertThat(framer.endedGtidGroup()).as("no GTID event opened it").isFalse();
        assertThat(framer.state()).isEqualTo(FramerState.OUTSIDE);
    }

    @Test
    void shouldEndAnAnonymousGroupWithoutItsGtid() {
        assertThat(frame(plain(ANONYMOUS_GTID))).isEqualTo(Boundary.ANONYMOUS_GTID);
        frame(query("", "BEGIN"));
        frame(plain(WRITE_ROWS));
        assertThat(frame(query("", "COMMIT"))).isEqualTo(Boundary.COMMIT);
        assertThat(framer.ended()).isTrue();
        assertThat(framer.endedGtidGroup()).isFalse();
    }

    @Test
    void shouldEndAMariaDbStandaloneGroupAtItsDdl() {
        assertThat(frame(mariaGtid(TransactionFramer.MARIADB_FL_STANDALONE))).isEqualTo(Boundary.MARIADB_GTID_STANDALONE);
        assertThat(framer.state()).isEqualTo(FramerState.GROUP);
        assertThat(frame(query("shop", "ALTER TABLE t ADD c INT"))).isEqualTo(Boundary.STATEMENT);
        assertThat(framer.endedGtidGroup()).isTrue();
    }

    @Test
    void shouldKeepAMariaDbTransactionOpenUntilXidWithoutBegin() {
        assertThat(frame(mariaGtid(0))).isEqualTo(Boundary.MARIADB_GTID);
        assertThat(framer.state()).as("begun without a BEGIN query").isEqualTo(FramerState.BEGUN);
        assertThat(frame(query("shop", "INSERT INTO t VALUES (1)"))).isEqualTo(Boundary.STATEMENT);
        assertThat(framer.ended()).as("a statement of the transaction").isFalse();
        frame(plain(XID));
        assertThat(framer.endedGtidGroup()).isTrue();
    }

    @Test
    void shouldFrameBothPhasesOfAnXaTransaction() {
        frame(mysqlGtid());
        assertThat(frame(query("", "XA START X'01',X'02',1"))).isEqualTo(Boundary.XA_START);
        frame(plain(WRITE_ROWS));
        assertThat(frame(query("", "XA END X'01',X'02',1"))).isEqualTo(Boundary.XA_END);
        assertThat(framer.ended()).isFalse();
        assertThat(frame(xaPrepare(false))).isEqualTo(Boundary.XA_PREPARE);
        assertThat(framer.endedGtidGroup()).isTrue();
        // the second phase: a group of one statement
        frame(mysqlGtid());
        assertThat(frame(query("", "XA COMMIT X'01',X'02',1"))).isEqualTo(Boundary.XA_COMMIT);
        assertThat(framer.endedGtidGroup()).isTrue();
        frame(mariaGtid(TransactionFramer.MARIADB_FL_STANDALONE));
        assertThat(frame(query("", "xa rollback 'gtrid'"))).isEqualTo(Boundary.XA_ROLLBACK);
        assertThat(framer.endedGtidGroup()).isTrue();
    }

    @Test
    void shouldFrameXaCommitOnePhase() {
        // MySQL: XA START ... XA END, then XA_PREPARE with its one-phase flag ends the transaction
        frame(mysqlGtid());
        frame(query("", "XA START 'x'"));
        frame(query("", "XA END 'x'"));
        assertThat(frame(xaPrepare(true))).isEqualTo(Boundary.XA_PREPARE_ONE_PHASE);
        assertThat(framer.endedGtidGroup()).isTrue();
        // an XA COMMIT ... ONE PHASE statement inside its XA START ends it
        frame(query("", "XA START 'y'"));
        assertThat(framer.opened()).isTrue();
        assertThat(frame(query("", "XA END 'y'"))).isEqualTo(Boundary.XA_END);
        assertThat(framer.state()).isEqualTo(FramerState.BEGUN);
        assertThat(frame(query("", "XA COMMIT 'y' ONE PHASE"))).isEqualTo(Boundary.XA_COMMIT);
        assertThat(framer.ended()).isTrue();
        assertThat(framer.state()).isEqualTo(FramerState.OUTSIDE);
    }

    /** MariaDB 10.5+ writes an XA's second phase after a GTID without FL_STANDALONE and with no BEGIN (seen on 10.11). */
    @Test
    void shouldEndAMariaDbSecondPhaseAtItsXaCommitThoughItsGtidBeganATransaction() {
        frame(mariaGtid(0));
        assertThat(framer.state()).isEqualTo(FramerState.BEGUN);
        assertThat(frame(query("", "XA COMMIT X'61',X'',1"))).isEqualTo(Boundary.XA_COMMIT);
        assertThat(framer.ended()).isTrue();
        assertThat(framer.endedGtidGroup()).as("its GTID counts").isTrue();
        frame(mariaGtid(0));
        assertThat(frame(query("", "XA ROLLBACK X'63',X'',1"))).isEqualTo(Boundary.XA_ROLLBACK);
        assertThat(framer.endedGtidGroup()).isTrue();
        assertThat(framer.state()).isEqualTo(FramerState.OUTSIDE);
    }

    /**
     * MariaDB writes {@code CREATE TABLE ... SELECT} as a standalone GTID and the statement (a group that ends
     * there), then the rows and an XID (seen on 10.11): the rows open a transaction of their own, without a GTID.
     */
    @Test
    void shouldOpenATransactionAtRowsOutsideOne() {
        frame(mariaGtid(TransactionFramer.MARIADB_FL_STANDALONE));
        frame(query("d", "CREATE TABLE u ENGINE=InnoDB SELECT * FROM t"));
        assertThat(framer.endedGtidGroup()).isTrue();
        assertThat(frame(plain(TABLE_MAP))).isEqualTo(Boundary.ROW_DATA);
        assertThat(framer.opened()).isTrue();
        assertThat(framer.state()).isEqualTo(FramerState.BEGUN);
        frame(plain(WRITE_ROWS));
        assertThat(framer.opened()).isFalse();
        frame(plain(XID));
        assertThat(framer.ended()).isTrue();
        assertThat(framer.endedGtidGroup()).as("no GTID event opened it").isFalse();
    }

    @Test
    void shouldFrameATaggedGtidAsAGtid() {
        assertThat(frame(plain(GTID_TAGGED))).isEqualTo(Boundary.GTID);
        assertThat(framer.state()).isEqualTo(FramerState.GROUP);
    }

    @Test
    void shouldSayWhenAGtidGivesUpAnOpenTransaction() {
        frame(query("", "BEGIN"));
        assertThat(framer.gaveUp()).isFalse();
        frame(mysqlGtid());
        assertThat(framer.opened()).isTrue();
        assertThat(framer.gaveUp()).isTrue();
        frame(query("", "BEGIN"));
        assertThat(framer.gaveUp()).isFalse();
    }

    @Test
    void shouldReadACompressedStatementFromWhatItInflatesTo() {
        frame(mariaGtid(TransactionFramer.MARIADB_FL_STANDALONE));
        assertThat(frame(compressedQuery("shop", "ALTER TABLE t ADD COLUMN c " + "VARCHAR(200) ".repeat(30))))
                .isEqualTo(Boundary.STATEMENT);
        assertThat(framer.endedGtidGroup()).isTrue();
        frame(mariaGtid(0));
        assertThat(frame(compressedQuery("", "XA COMMIT X'" + "61".repeat(64) + "',X'" + "62".repeat(64) + "',1")))
                .isEqualTo(Boundary.XA_COMMIT);
        assertThat(framer.ended()).isTrue();
    }

    @Test
    void shouldFailAtACompressedStatementThatDoesNotInflate() {
        ByteBuf q = query("", "BEGIN");
        q.setByte(4, 165);
        assertThatThrownBy(() -> frame(q)).isInstanceOf(FramingException.class)
                .hasMessageStartingWith("compressed statement: unsupported record header 0x42");
        assertThat(framer.state()).isEqualTo(FramerState.FAILED);
    }

    @Test
    void shouldEndAGroupAtRollbackButNotAtRollbackToSavepoint() {
        frame(query("", "BEGIN"));
        assertThat(framer.state()).as("BEGIN without a GTID opens").isEqualTo(FramerState.BEGUN);
        assertThat(frame(query("", "ROLLBACK TO SAVEPOINT s1"))).isEqualTo(Boundary.STATEMENT);
        assertThat(framer.ended()).isFalse();
        assertThat(frame(query("", "ROLLBACK"))).isEqualTo(Boundary.ROLLBACK);
        assertThat(framer.ended()).isTrue();
    }

    @Test
    void shouldEndACompressedTransactionAtItsPayload() {
        frame(mysqlGtid());
        assertThat(frame(plain(TRANSACTION_PAYLOAD))).isEqualTo(Boundary.TRANSACTION_PAYLOAD);
        assertThat(framer.endedGtidGroup()).isTrue();
    }

    @Test
    void shouldLeaveTheStateAloneAtHeartbeats() {
        frame(mysqlGtid());
        frame(query("", "BEGIN"));
        assertThat(frame(plain(HEARTBEAT))).isEqualTo(Boundary.HEARTBEAT);
        assertThat(frame(plain(HEARTBEAT_V2))).isEqualTo(Boundary.HEARTBEAT);
        assertThat(framer.state()).isEqualTo(FramerState.BEGUN);
        assertThat(framer.ended()).isFalse();
    }

    /** A MariaDB QUERY_COMPRESSED: as {@link #query}, the statement a record of header 0x81, 1-byte length, zlib data. */
    static ByteBuf compressedQuery(String db, String sql) {
        byte[] plain = sql.getBytes(StandardCharsets.UTF_8);
        java.util.zip.Deflater deflater = new java.util.zip.Deflater();
        deflater.setInput(plain);
        deflater.finish();
        byte[] packed = new byte[plain.length + 64];
        int n = deflater.deflate(packed);
        ByteBuf record = Unpooled.buffer().writeByte(0x82).writeShort(plain.length).writeBytes(packed, 0, n);
        ByteBuf q = query(db, "");
        q.writeBytes(record);
        q.setByte(4, 165);
        q.setIntLE(9, q.readableBytes());
        return q;
    }

    /** The reader always tolerated these; the framer keeps tolerating them. */
    @Test
    void shouldTolerateOutOfPlaceEventsAsTheReaderAlwaysDid() {
        assertThat(frame(plain(XID))).as("XID without a transaction").isEqualTo(Boundary.XID);
        assertThat(framer.ended()).isFalse();
        assertThat(frame(query("", "COMMIT"))).isEqualTo(Boundary.COMMIT);
        assertThat(framer.ended()).as("COMMIT without a transaction").isFalse();
        assertThat(framer.state()).isEqualTo(FramerState.OUTSIDE);
        frame(query("", "BEGIN"));
        frame(plain(WRITE_ROWS));
        assertThat(frame(query("", "BEGIN"))).as("nested BEGIN").isEqualTo(Boundary.BEGIN);
        assertThat(framer.state()).isEqualTo(FramerState.BEGUN);
        assertThat(framer.eventsInTransaction()).as("the transaction goes on").isEqualTo(3);
        frame(mysqlGtid());
        assertThat(framer.state()).as("a GTID gives up the open transaction").isEqualTo(FramerState.GROUP);
        assertThat(framer.eventsInTransaction()).isEqualTo(1);
    }

    @Test
    void shouldReadQueryKindsLikeTheReaderDid() {
        assertThat(TransactionFramer.statement("begin")).isEqualTo(Boundary.BEGIN);
        assertThat(TransactionFramer.statement("\n\t BEGIN WORK")).isEqualTo(Boundary.BEGIN);
        assertThat(TransactionFramer.statement("XA BEGIN 'x'")).isEqualTo(Boundary.XA_START);
        assertThat(TransactionFramer.statement("commit;")).isEqualTo(Boundary.COMMIT);
        assertThat(TransactionFramer.statement("COMMIT")).isEqualTo(Boundary.COMMIT);
        assertThat(TransactionFramer.statement("COMMIT_LOG_TABLE_X")).isEqualTo(Boundary.STATEMENT);
        assertThat(TransactionFramer.statement("COMMITTED")).isEqualTo(Boundary.STATEMENT);
        assertThat(TransactionFramer.statement("ROLLBACK   to s1")).isEqualTo(Boundary.STATEMENT);
        assertThat(TransactionFramer.statement("Rollback work")).isEqualTo(Boundary.ROLLBACK);
        assertThat(TransactionFramer.statement("XA  COMMIT 'x'")).as("keywords one space apart").isEqualTo(Boundary.STATEMENT);
        assertThat(TransactionFramer.statement(" ".repeat(40) + "BEGIN")).as("past the 40-character window")
                .isEqualTo(Boundary.STATEMENT);
        assertThat(TransactionFramer.statement("")).isEqualTo(Boundary.STATEMENT);
    }

    @Test
    void shouldFailForGoodAtATruncatedQueryNamingWhatWasExpected() {
        ByteBuf q = query("shop", "BEGIN");
        assertThatThrownBy(() -> framer.frame(q, 0, QUERY, 19 + 10))
                .isInstanceOf(FramingException.class)
                .hasMessage("event type 2 needs 32 bytes before its checksum, has 29");
        assertThat(framer.state()).isEqualTo(FramerState.FAILED);
        assertThatThrownBy(() -> frame(plain(XID)))
                .isInstanceOf(FramingException.class)
                .hasMessage("framing stopped at an earlier event (event type 2 needs 32 bytes before its checksum, has 29);"
                        + " expected no more events");
        assertThat(framer.state()).isEqualTo(FramerState.FAILED);
    }

    @Test
    void shouldFailAtAMariaDbGtidTooShortForItsFlags() {
        ByteBuf g = event(MARIADB_GTID, new byte[12]);
        assertThatThrownBy(() -> frame(g)).isInstanceOf(FramingException.class)
                .hasMessage("event type 162 needs 32 bytes before its checksum, has 31");
        assertThat(framer.state()).isEqualTo(FramerState.FAILED);
    }

    @Test
    void shouldAllocateNothingPerEvent() {
        ByteBuf[] txn = {mysqlGtid(), query("", "BEGIN"), plain(TABLE_MAP), plain(WRITE_ROWS), plain(XID),
            mariaGtid(TransactionFramer.MARIADB_FL_STANDALONE), query("shop", "CREATE TABLE t (id INT)"), xaPrepare(false)};
        for (int i = 0; i < 200_000; i++) {
            frame(txn[i % txn.length]);
        }
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 1_000_000; i++) {
            frame(txn[i % txn.length]);
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(allocated).as("bytes allocated framing a million events").isLessThan(100_000);
    }
}
