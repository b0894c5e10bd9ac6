package io.tributary.daemon.dump;

import io.tributary.core.packet.ErrPacket;
import io.tributary.storage.binlog.DurableMark;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transaction and lock statements CDC clients send around a schema snapshot (Debezium's MySQL and MariaDB
 * connectors: {@code FLUSH TABLES WITH READ LOCK}, {@code SET TRANSACTION ...}, {@code START TRANSACTION WITH
 * CONSISTENT SNAPSHOT}, then {@code UNLOCK TABLES}; with table locks {@code LOCK TABLES t READ}), answered as a
 * server answers an account that may run them: OK. What each does is the connection's ({@link ClientHolds}):
 * {@code START TRANSACTION WITH CONSISTENT SNAPSHOT} opens a snapshot on the shards ({@link SnapshotTransaction}),
 * {@code BEGIN} / another {@code START TRANSACTION} end it; locks are recorded and never passed to a shard.
 *
 * <p>Recognized, word by word as MySQL 8.0 / MariaDB 10.11 accept them: {@code BEGIN [WORK]}; {@code START
 * TRANSACTION [WITH CONSISTENT SNAPSHOT | READ ONLY | READ WRITE][, ...]}; {@code FLUSH [NO_WRITE_TO_BINLOG | LOCAL]
 * TABLE[S] [t[, t]...] [WITH READ LOCK]}; {@code LOCK TABLE[S] t [[AS] alias] {READ [LOCAL] | [LOW_PRIORITY] WRITE}
 * [, ...]}; {@code UNLOCK TABLE[S]}; {@code LOCK INSTANCE FOR BACKUP}, {@code UNLOCK INSTANCE}. One that starts like
 * these and then goes wrong gets error 1064 quoting where, as a server's parser does. JSqlParser (used for
 * queries, {@link SqlSyntax}) has no grammar for these administrative statements, so they are read here with a
 * word-level grammar of their own. Stateless and thread-safe.
 */
final class LockAndTransactionStatements {
    private static final Logger LOG = LoggerFactory.getLogger(LockAndTransactionStatements.class);
    private static final Pattern TOKEN = Pattern.compile(
            "\\s*((?:`[^`]*`|[A-Za-z0-9_$]+)(?:\\.(?:`[^`]*`|[A-Za-z0-9_$]+))*|\\S)");

    /** MySQL's reserved words among these statements' own: never a table name or alias unless backquoted. */
    private static final java.util.Set<String> RESERVED = java.util.Set.of("WITH", "READ", "WRITE", "LOCK", "FOR",
            "LOW_PRIORITY", "TABLE", "AS");

    /** Which statement it is. */
    enum Kind { BEGIN, START_TRANSACTION, START_SNAPSHOT, FLUSH_TABLES, FLUSH_TABLES_WITH_READ_LOCK, LOCK_TABLES,
        UNLOCK_TABLES, LOCK_INSTANCE, UNLOCK_INSTANCE }

    /**
     * A statement read: its kind and the tables it names ({@code FLUSH TABLES t WITH READ LOCK}, {@code LOCK TABLES}),
     * or the error 1064 answering it ({@code kind} null).
     */
    record Parsed(Kind kind, List<String> tables, Answer error) {
    }

    private final String sql;
    private final List<String> tables = new ArrayList<>();
    private Kind kind;
    private final List<String> words = new ArrayList<>();
    private final List<Integer> starts = new ArrayList<>();
    private int at;

    private LockAndTransactionStatements(String sql) {
        this.sql = sql;
        Matcher m = TOKEN.matcher(sql);
        int from = 0;
        while (from < sql.length() && m.find(from) && m.start() == from) {
            words.add(m.group(1));
            starts.add(m.start(1));
            from = m.end();
        }
    }

    /**
     * {@code sql} (normalized, {@link SqlText#normalize}) read as one of these statements, or error 1064 where it goes
     * wrong; null if it is none of them.
     */
    static Parsed parse(String sql) {
        LockAndTransactionStatements s = new LockAndTransactionStatements(sql);
        if (s.words.isEmpty()) {
            return null;
        }
        String first = s.words.get(0).toUpperCase(Locale.ROOT);
        s.at = 1;
        try {
            switch (first) {
                case "BEGIN" -> {
                    s.kind = Kind.BEGIN;
                    s.optional("WORK");
                }
                case "START" -> {
                    if (!s.peek("TRANSACTION")) {
                        return null; // START REPLICA / SLAVE ...: not these
                    }
                    s.at++;
                    s.kind = Kind.START_TRANSACTION;
                    s.startTransactionModes();
                }
                case "FLUSH" -> {
                    s.optional("NO_WRITE_TO_BINLOG");
                    s.optional("LOCAL");
                    if (!s.peek("TABLES") && !s.peek("TABLE")) {
                        return null; // FLUSH LOGS, FLUSH PRIVILEGES ...: not these
                    }
                    s.at++;
                    s.kind = Kind.FLUSH_TABLES;
                    s.flushTables();
                }
                case "LOCK" -> {
                    if (s.peek("INSTANCE")) {
                        s.at++;
                        s.kind = Kind.LOCK_INSTANCE;
                        s.expect("FOR");
                        s.expect("BACKUP");
                    } else {
                        if (!s.peek("TABLES") && !s.peek("TABLE")) {
                            return null;
                        }
                        s.at++;
                        s.kind = Kind.LOCK_TABLES;
                        s.lockTables();
                    }
                }
                case "UNLOCK" -> {
                    if (s.optional("INSTANCE")) {
                        s.kind = Kind.UNLOCK_INSTANCE;
                    } else if (s.optional("TABLES") || s.optional("TABLE")) {
                        s.kind = Kind.UNLOCK_TABLES;
                    } else {
                        throw s.error();
                    }
                }
                default -> {
                    return null;
                }
            }
            if (s.at < s.words.size()) {
                throw s.error();
            }
            return new Parsed(s.kind, List.copyOf(s.tables), null);
        } catch (Malformed e) {
            return new Parsed(null, List.of(), QueryResponder.parseError(e.getMessage()));
        }
    }

    /**
     * A transaction or lock statement on the session's {@link ClientHolds}: {@code START TRANSACTION WITH CONSISTENT
     * SNAPSHOT} opens a snapshot on the shards (off the event loop; error 1429 naming a shard that cannot start one),
     * {@code BEGIN} and a plain {@code START TRANSACTION} end one (a server commits the open transaction), locks are
     * recorded and never passed on.
     */
    static Answer carryOut(Parsed st, String s, DumpSession session, ShardSource shards,
            Supplier<GlobalBinlogWriter> writer) {
        switch (st.kind()) {
            case START_SNAPSHOT -> {
                if (shards.shards().isEmpty()) {
                    return endSnapshot(session);
                }
                return new Answer.Deferred(() -> startSnapshot(session, shards, writer));
            }
            case BEGIN, START_TRANSACTION -> {
                return endSnapshot(session);
            }
            case FLUSH_TABLES_WITH_READ_LOCK -> session.holds.lock(s, st.tables(), st.tables().isEmpty());
            case LOCK_TABLES -> session.holds.lock(s, st.tables(), false);
            case LOCK_INSTANCE -> session.holds.lock(s, List.of(), true);
            case UNLOCK_TABLES, UNLOCK_INSTANCE -> session.holds.unlock(s);
            case FLUSH_TABLES -> {
            }
            default -> throw new IllegalStateException("unhandled " + st.kind());
        }
        return new Answer.Ok();
    }

    private static Answer startSnapshot(DumpSession session, ShardSource shards,
            Supplier<GlobalBinlogWriter> writer) {
        SnapshotTransaction previous = session.holds.replaceSnapshot(null);
        if (previous != null) {
            previous.close();
        }
        GlobalBinlogWriter w = writer.get();
        DurableMark start = w == null ? null : w.durability().current();
        SnapshotTransaction t;
        try {
            t = SnapshotTransaction.open(shards, start);
        } catch (SQLException e) {
            return new Answer.Error(new ErrPacket(ShardSelect.ER_CONNECT_TO_FOREIGN_DATA_SOURCE, "HY000",
                    "Tributary's dump server cannot start a consistent snapshot: " + e.getMessage()));
        }
        session.holds.replaceSnapshot(t);
        LOG.info("dump connection {}: START TRANSACTION WITH CONSISTENT SNAPSHOT: {}", session.connectionId, t);
        return new Answer.Ok();
    }

    /** COMMIT, ROLLBACK, BEGIN, START TRANSACTION: the snapshot transaction (if any) ends; off the event loop. */
    static Answer endSnapshot(DumpSession session) {
        SnapshotTransaction open = session.holds.replaceSnapshot(null);
        if (open == null) {
            return new Answer.Ok();
        }
        return new Answer.Deferred(() -> {
            open.close();
            LOG.debug("dump connection {}: snapshot transaction ended", session.connectionId);
            return new Answer.Ok();
        });
    }

    private void startTransactionModes() {
        if (at == words.size()) {
            return;
        }
        do {
            if (optional("WITH")) {
                expect("CONSISTENT");
                expect("SNAPSHOT");
                kind = Kind.START_SNAPSHOT;
            } else if (optional("READ")) {
                if (!optional("ONLY") && !optional("WRITE")) {
                    throw error();
                }
            } else {
                throw error();
            }
        } while (optional(","));
    }

    private void flushTables() {
        if (at == words.size()) {
            return;
        }
        if (!peek("WITH")) {
            tableName();
            while (optional(",")) {
                tableName();
            }
        }
        if (at == words.size()) {
            return;
        }
        expect("WITH");
        expect("READ");
        expect("LOCK");
        kind = Kind.FLUSH_TABLES_WITH_READ_LOCK;
    }

    private void lockTables() {
        do {
            tableName();
            if (optional("AS")) {
                name();
            } else if (at < words.size() && isName(words.get(at)) && !peek("READ") && !peek("WRITE")
                    && !peek("LOW_PRIORITY")) {
                at++; // an alias without AS
            }
            if (optional("READ")) {
                optional("LOCAL");
            } else {
                optional("LOW_PRIORITY");
                expect("WRITE");
            }
        } while (optional(","));
    }

    private void tableName() {
        if (at < words.size()) {
            tables.add(words.get(at));
        }
        name();
    }

    private void name() {
        if (at >= words.size() || !isName(words.get(at))) {
            throw error();
        }
        at++;
    }

    private static boolean isName(String word) {
        char c = word.charAt(0);
        if (c == '`') {
            return true;
        }
        return (Character.isLetterOrDigit(c) || c == '_' || c == '$') && !RESERVED.contains(word.toUpperCase(Locale.ROOT));
    }

    private boolean peek(String word) {
        return at < words.size() && words.get(at).equalsIgnoreCase(word);
    }

    private boolean optional(String word) {
        if (peek(word)) {
            at++;
            return true;
        }
        return false;
    }

    private void expect(String word) {
        if (!optional(word)) {
            throw error();
        }
    }

    /** 1064's "near": the text from the word where the statement goes wrong (empty at its end). */
    private Malformed error() {
        return new Malformed(at < words.size() ? sql.substring(starts.get(at)) : "");
    }

    private static final class Malformed extends RuntimeException {
        Malformed(String near) {
            super(near, null, false, false);
        }
    }
}
