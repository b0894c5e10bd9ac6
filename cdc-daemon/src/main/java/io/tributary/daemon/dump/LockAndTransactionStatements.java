package io.tributary.daemon.dump;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The transaction and lock statements CDC clients send around a schema snapshot (Debezium's MySQL and MariaDB
 * connectors: {@code FLUSH TABLES WITH READ LOCK}, {@code SET TRANSACTION ...}, {@code START TRANSACTION WITH
 * CONSISTENT SNAPSHOT}, then {@code UNLOCK TABLES}; with table locks {@code LOCK TABLES t READ}), answered as a
 * server answers an account that may run them: OK. They are true here without doing anything: nothing writes
 * through the dump port, so the global binlog holds still under a read lock and every read is consistent.
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
    private static final Pattern TOKEN = Pattern.compile(
            "\\s*((?:`[^`]*`|[A-Za-z0-9_$]+)(?:\\.(?:`[^`]*`|[A-Za-z0-9_$]+))*|\\S)");

    /** MySQL's reserved words among these statements' own: never a table name or alias unless backquoted. */
    private static final java.util.Set<String> RESERVED = java.util.Set.of("WITH", "READ", "WRITE", "LOCK", "FOR",
            "LOW_PRIORITY", "TABLE", "AS");

    private final String sql;
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
     * The answer to {@code sql} (normalized, {@link SqlText#normalize}) if it is one of these statements: OK, or
     * error 1064 where it goes wrong; null if it is none of them.
     */
    static Answer answer(String sql) {
        LockAndTransactionStatements s = new LockAndTransactionStatements(sql);
        if (s.words.isEmpty()) {
            return null;
        }
        String first = s.words.get(0).toUpperCase(Locale.ROOT);
        s.at = 1;
        try {
            switch (first) {
                case "BEGIN" -> {
                    s.optional("WORK");
                }
                case "START" -> {
                    if (!s.peek("TRANSACTION")) {
                        return null; // START REPLICA / SLAVE ...: not these
                    }
                    s.at++;
                    s.startTransactionModes();
                }
                case "FLUSH" -> {
                    s.optional("NO_WRITE_TO_BINLOG");
                    s.optional("LOCAL");
                    if (!s.peek("TABLES") && !s.peek("TABLE")) {
                        return null; // FLUSH LOGS, FLUSH PRIVILEGES ...: not these
                    }
                    s.at++;
                    s.flushTables();
                }
                case "LOCK" -> {
                    if (s.peek("INSTANCE")) {
                        s.at++;
                        s.expect("FOR");
                        s.expect("BACKUP");
                    } else {
                        if (!s.peek("TABLES") && !s.peek("TABLE")) {
                            return null;
                        }
                        s.at++;
                        s.lockTables();
                    }
                }
                case "UNLOCK" -> {
                    if (!s.optional("TABLES") && !s.optional("TABLE") && !s.optional("INSTANCE")) {
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
            return new Answer.Ok();
        } catch (Malformed e) {
            return QueryResponder.parseError(e.getMessage());
        }
    }

    private void startTransactionModes() {
        if (at == words.size()) {
            return;
        }
        do {
            if (optional("WITH")) {
                expect("CONSISTENT");
                expect("SNAPSHOT");
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
