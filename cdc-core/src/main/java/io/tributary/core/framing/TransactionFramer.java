package io.tributary.core.framing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * Finds the transaction boundaries of one shard's event stream, once per event: classifies each event into a
 * {@link Boundary} from its type byte and the few body bytes framing needs, and moves a {@link FramerState}.
 *
 * <p>Read, and nothing more: the v4 header's type (byte 4); a MariaDB GTID's flags (body byte 12,
 * {@code FL_STANDALONE}); a QUERY's post-header (13 bytes: database length at 8, status variables length at 11)
 * to find the statement, and the statement's first 40 bytes (of a MariaDB QUERY_COMPRESSED, the first 40 bytes
 * it inflates to); an XA_PREPARE's one-phase flag (body byte 0).
 *
 * <p>Transitions (any state but {@link FramerState#FAILED}):
 * <ul>
 * <li>GTID, GTID_TAGGED, ANONYMOUS_GTID, MariaDB GTID with {@code FL_STANDALONE}: GROUP (a group still open is
 *     given up); MariaDB GTID without it: BEGUN (MariaDB writes no {@code BEGIN} after it);</li>
 * <li>{@code BEGIN} / {@code XA START}: BEGUN (opening a transaction when OUTSIDE);</li>
 * <li>a TABLE_MAP or rows event OUTSIDE: BEGUN, a transaction without a GTID (MariaDB's
 *     {@code CREATE TABLE ... SELECT}: the statement ends its standalone group, its rows and XID follow);</li>
 * <li>XID, XA_PREPARE, TRANSACTION_PAYLOAD, a {@code COMMIT} or {@code ROLLBACK} query: end the open
 *     transaction (OUTSIDE they end nothing);</li>
 * <li>{@code XA COMMIT}, {@code XA ROLLBACK}: end the open transaction, in GROUP and BEGUN alike (MariaDB writes
 *     the second phase after a GTID without {@code FL_STANDALONE}); OUTSIDE, a transaction of their own;</li>
 * <li>any other query (a DDL) ends the group in GROUP, is a transaction of its own OUTSIDE, and is one more
 *     statement in BEGUN;</li>
 * <li>every other event ({@code XA END} included) keeps the state.</li>
 * </ul>
 * {@link #opened()} and {@link #ended()} say what the last event did; a statement OUTSIDE does both. Out-of-place
 * events are tolerated as the reader always did (an XID outside a transaction ends nothing, a second
 * {@code BEGIN} keeps the transaction open, a GTID gives up an open transaction: {@link #gaveUp()}). An event
 * whose body is shorter than the fields read, or a compressed statement that does not inflate, moves the framer to
 * FAILED with a {@link FramingException}; every later event is refused.
 *
 * <p>Allocates nothing per event. Not thread-safe: one framer per shard stream, used on its reader's thread.
 */
public final class TransactionFramer {
    static final int HEADER_BYTES = 19;
    static final int QUERY = 2;
    static final int XID = 16;
    static final int HEARTBEAT = 27;
    static final int TABLE_MAP = 19;
    static final int GTID = 33;
    static final int ANONYMOUS_GTID = 34;
    static final int XA_PREPARE = 38;
    static final int PARTIAL_UPDATE_ROWS = 39;
    static final int TRANSACTION_PAYLOAD = 40;
    static final int GTID_TAGGED = 42;
    static final int HEARTBEAT_V2 = 41;
    static final int MARIADB_GTID = 162;
    static final int MARIADB_QUERY_COMPRESSED = 165;
    /** MariaDB GTID flag: the group is one statement (DDL) without BEGIN/COMMIT. */
    static final int MARIADB_FL_STANDALONE = 1;
    /** How many statement bytes a query's kind is read from. */
    static final int STATEMENT_WINDOW = 40;

    private final Latin1Window window = new Latin1Window();
    private final CompressedStatement compressed = new CompressedStatement();
    private FramerState state = FramerState.OUTSIDE;
    private boolean gtidGroup;
    private boolean opened;
    private boolean gaveUp;
    private boolean ended;
    private boolean endedGtidGroup;
    private long eventsInTransaction;
    private String failure;

    /** Where the framer stands after the last event. */
    public FramerState state() {
        return state;
    }

    /** Whether the last event opened a transaction (a DDL outside one included, which also {@link #ended()} it). */
    public boolean opened() {
        return opened;
    }

    /** Whether the last event opened a transaction while one was open, giving that one up unended. */
    public boolean gaveUp() {
        return gaveUp;
    }

    /** Whether the last event ended a transaction (a DDL outside one included). */
    public boolean ended() {
        return ended;
    }

    /** Whether the transaction the last event ended was opened by a GTID event that carries a GTID. */
    public boolean endedGtidGroup() {
        return endedGtidGroup;
    }

    /** Events of the open transaction so far, its opener included (0 outside a transaction). */
    public long eventsInTransaction() {
        return state.inTransaction() ? eventsInTransaction : 0;
    }

    /**
     * Frames the event at {@code ev[base, base + bodyEnd)} (header and body, without a checksum trailer) of type
     * {@code type} and returns what it is; {@link #state()}, {@link #ended()} tell what it did.
     *
     * @throws FramingException when the body is shorter than the fields framing reads (the framer is FAILED from
     *         then on), or when the framer failed before
     */
    public Boundary frame(ByteBuf ev, int base, int type, int bodyEnd) {
        if (state == FramerState.FAILED) {
            throw new FramingException("framing stopped at an earlier event (" + failure + "); expected no more events");
        }
        Boundary b;
        try {
            b = classify(ev, base, type, bodyEnd);
        } catch (FramingException e) {
            state = FramerState.FAILED;
            failure = e.getMessage();
            throw e;
        }
        boolean end = false;
        boolean inside = state.inTransaction();
        opened = false;
        gaveUp = false;
        switch (b) {
            case GTID, MARIADB_GTID_STANDALONE -> open(FramerState.GROUP, true);
            case ANONYMOUS_GTID -> open(FramerState.GROUP, false);
            case MARIADB_GTID -> open(FramerState.BEGUN, true);
            case BEGIN, XA_START, ROW_DATA -> {
                if (!inside) {
                    open(FramerState.BEGUN, false);
                } else if (b != Boundary.ROW_DATA) {
                    state = FramerState.BEGUN;
                }
            }
            case COMMIT, ROLLBACK, XID, XA_PREPARE, XA_PREPARE_ONE_PHASE, TRANSACTION_PAYLOAD -> end = inside;
            case XA_COMMIT, XA_ROLLBACK -> end = true;
            case STATEMENT -> end = state != FramerState.BEGUN;
            default -> {
            }
        }
        if (end && !inside) {
            // a statement outside a transaction: a transaction of its own, opened and ended by this event
            opened = true;
            eventsInTransaction = 0;
        }
        if (state.inTransaction()) {
            eventsInTransaction++;
        }
        ended = end;
        endedGtidGroup = end && state.inTransaction() && gtidGroup;
        if (end) {
            state = FramerState.OUTSIDE;
            gtidGroup = false;
            eventsInTransaction = 0;
        }
        return b;
    }

    private void open(FramerState to, boolean withGtid) {
        gaveUp = state.inTransaction();
        opened = true;
        state = to;
        gtidGroup = withGtid;
        eventsInTransaction = 0;
    }

    /** What the event is, from its type and the body bytes framing reads. */
    private Boundary classify(ByteBuf ev, int base, int type, int bodyEnd) {
        switch (type) {
            case QUERY -> {
                int sqlStart = statementStart(ev, base, type, bodyEnd);
                need(type, bodyEnd, sqlStart);
                return statement(window.of(ev, base + sqlStart, Math.min(STATEMENT_WINDOW, bodyEnd - sqlStart)));
            }
            case MARIADB_QUERY_COMPRESSED -> {
                int recordStart = statementStart(ev, base, type, bodyEnd);
                need(type, bodyEnd, recordStart + 1);
                return statement(compressed.head(ev, base + recordStart, bodyEnd - recordStart));
            }
            case GTID, GTID_TAGGED -> {
                return Boundary.GTID;
            }
            case TABLE_MAP, PARTIAL_UPDATE_ROWS -> {
                return Boundary.ROW_DATA;
            }
            case ANONYMOUS_GTID -> {
                return Boundary.ANONYMOUS_GTID;
            }
            case MARIADB_GTID -> {
                need(type, bodyEnd, HEADER_BYTES + 13);
                return (ev.getUnsignedByte(base + HEADER_BYTES + 12) & MARIADB_FL_STANDALONE) == 0
                        ? Boundary.MARIADB_GTID : Boundary.MARIADB_GTID_STANDALONE;
            }
            case XID -> {
                return Boundary.XID;
            }
            case XA_PREPARE -> {
                return bodyEnd > HEADER_BYTES && ev.getUnsignedByte(base + HEADER_BYTES) != 0
                        ? Boundary.XA_PREPARE_ONE_PHASE : Boundary.XA_PREPARE;
            }
            case TRANSACTION_PAYLOAD -> {
                return Boundary.TRANSACTION_PAYLOAD;
            }
            case HEARTBEAT, HEARTBEAT_V2 -> {
                return Boundary.HEARTBEAT;
            }
            default -> {
                return isRows(type) ? Boundary.ROW_DATA : Boundary.OTHER;
            }
        }
    }

    /**
     * Where a query's statement (of a compressed query: its compressed record) starts, from the event's start: after
     * the 13-byte post-header, the status variables and the NUL-terminated database name.
     */
    private static int statementStart(ByteBuf ev, int base, int type, int bodyEnd) {
        need(type, bodyEnd, HEADER_BYTES + 13);
        int dbLength = ev.getUnsignedByte(base + HEADER_BYTES + 8);
        int statusLength = ev.getUnsignedShortLE(base + HEADER_BYTES + 11);
        return HEADER_BYTES + 13 + statusLength + dbLength + 1;
    }

    /** Rows events: pre-GA 20-22, v1 23-25, v2 30-32, MariaDB compressed v1 166-168 and v2 169-171. */
    private static boolean isRows(int type) {
        return type >= 20 && type <= 25 || type >= 30 && type <= 32 || type >= 166 && type <= 171;
    }

    /**
     * The kind of a query from its statement text: leading whitespace skipped, keywords matched without regard to
     * case in the first {@value #STATEMENT_WINDOW} characters. Never {@link Boundary#OTHER}. Allocates nothing.
     */
    public static Boundary statement(CharSequence sql) {
        int n = Math.min(STATEMENT_WINDOW, sql.length());
        int i = skipSpace(sql, 0, n);
        if (startsWith(sql, i, n, "BEGIN")) {
            return Boundary.BEGIN;
        }
        if (startsWith(sql, i, n, "XA START") || startsWith(sql, i, n, "XA BEGIN")) {
            return Boundary.XA_START;
        }
        if (isWord(sql, i, n, "COMMIT")) {
            return Boundary.COMMIT;
        }
        if (isWord(sql, i, n, "ROLLBACK")) {
            int to = skipSpace(sql, i + 8, n);
            return startsWith(sql, to, n, "TO") ? Boundary.STATEMENT : Boundary.ROLLBACK;
        }
        if (startsWith(sql, i, n, "XA END")) {
            return Boundary.XA_END;
        }
        if (startsWith(sql, i, n, "XA COMMIT")) {
            return Boundary.XA_COMMIT;
        }
        if (startsWith(sql, i, n, "XA ROLLBACK")) {
            return Boundary.XA_ROLLBACK;
        }
        return Boundary.STATEMENT;
    }

    private static int skipSpace(CharSequence s, int from, int end) {
        int i = from;
        while (i < end && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        return i;
    }

    /** Whether {@code s[from, end)} starts with the upper-case ASCII {@code word}, in any case. */
    private static boolean startsWith(CharSequence s, int from, int end, String word) {
        if (end - from < word.length()) {
            return false;
        }
        for (int k = 0; k < word.length(); k++) {
            char c = s.charAt(from + k);
            if (c >= 'a' && c <= 'z') {
                c -= 'a' - 'A';
            }
            if (c != word.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    /** {@link #startsWith} followed by the end of the window or a character that is not part of a word. */
    private static boolean isWord(CharSequence s, int from, int end, String word) {
        if (!startsWith(s, from, end, word)) {
            return false;
        }
        int next = from + word.length();
        if (next == end) {
            return true;
        }
        char c = s.charAt(next);
        return !Character.isLetterOrDigit(c) && c != '_';
    }

    private static void need(int type, int bodyEnd, int needed) {
        if (bodyEnd < needed) {
            throw new FramingException("event type " + type + " needs " + needed + " bytes before its checksum, has " + bodyEnd);
        }
    }

    /**
     * The first {@value #STATEMENT_WINDOW} bytes of a MariaDB compressed statement: a record of a header byte
     * {@code 0x80 | alg << 4 | lenlen} (alg 0 = zlib), {@code lenlen} bytes of plain length, then zlib data, of which
     * only as much is inflated as the window holds. Reuses its inflater and window; allocates nothing per event.
     */
    private static final class CompressedStatement {
        private final byte[] head = new byte[STATEMENT_WINDOW];
        private final ByteBuf headBuf = Unpooled.wrappedBuffer(head);
        private final Latin1Window window = new Latin1Window();
        private Inflater inflater;

        CharSequence head(ByteBuf ev, int from, int length) {
            int header = ev.getUnsignedByte(from);
            int lengthBytes = header & 0x07;
            if ((header & 0x80) == 0 || (header & 0x70) != 0 || lengthBytes == 0 || lengthBytes > 4
                    || length < 1 + lengthBytes) {
                throw new FramingException("compressed statement: unsupported record header 0x" + Integer.toHexString(header));
            }
            if (inflater == null) {
                inflater = new Inflater();
            }
            inflater.reset();
            inflater.setInput(ev.nioBuffer(from + 1 + lengthBytes, length - 1 - lengthBytes));
            int n;
            try {
                n = 0;
                while (n < head.length && !inflater.finished()) {
                    int got = inflater.inflate(head, n, head.length - n);
                    if (got == 0) {
                        break; // the record ends (or wants a dictionary): what inflated is all there is
                    }
                    n += got;
                }
            } catch (DataFormatException e) {
                throw new FramingException("compressed statement does not inflate: " + e.getMessage());
            }
            return window.of(headBuf, 0, n);
        }
    }

    /** Bytes of a buffer read as ISO-8859-1 characters, without copying; reused from event to event. */
    private static final class Latin1Window implements CharSequence {
        private ByteBuf buf;
        private int from;
        private int length;

        Latin1Window of(ByteBuf buf, int from, int length) {
            this.buf = buf;
            this.from = from;
            this.length = Math.max(0, length);
            return this;
        }

        @Override
        public int length() {
            return length;
        }

        @Override
        public char charAt(int index) {
            return (char) buf.getUnsignedByte(from + index);
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return toString().subSequence(start, end);
        }

        @Override
        public String toString() {
            return buf.toString(from, length, StandardCharsets.ISO_8859_1);
        }
    }
}
