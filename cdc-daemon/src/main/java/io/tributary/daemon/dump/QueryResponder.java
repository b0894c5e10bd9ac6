package io.tributary.daemon.dump;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.EventHeader;
import io.tributary.core.event.EventType;
import io.tributary.core.packet.ComBinlogDumpGtid;
import io.tributary.core.packet.ErrPacket;
import io.tributary.core.packet.MySqlError;
import io.tributary.core.position.MySqlGtidSet;
import io.tributary.storage.binlog.BinlogFileReader;
import io.tributary.storage.binlog.BinlogIndex;
import io.tributary.storage.binlog.BinlogPosition;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import java.nio.file.Files;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Answers the statements replicas and CDC clients send before dumping (see PROTOCOL-NOTES.md, "What clients
 * send before dumping"): {@code SELECT} of system and user variables and a few functions ({@code NOW(n)},
 * {@code CURRENT_TIMESTAMP}, ...), {@code SET} of user and session variables (and {@code SET SESSION TRANSACTION
 * READ ONLY}), the {@code SHOW} statements about variables ({@code LIKE} or {@code WHERE Variable_name ...}),
 * status and binary logs, MariaDB's {@code SET STATEMENT ... FOR <statement>} (the inner statement is answered)
 * and {@code KILL} (carried out by the connection, {@link Answer.Kill}). Boolean variables select as 1/0 and
 * show as ON/OFF, as on a server. Malformed input gets error 1064 quoting where it goes wrong (queries and DML
 * are checked by JSqlParser, {@link SqlSyntax}; the rest by {@link SqlText}); anything else valid gets an ERR
 * packet naming the statement (error 1235, "not supported").
 *
 * <p>The daemon's live settings ({@link LiveVariables}) appear among the variables ({@code SHOW VARIABLES LIKE
 * 'storage%'}, {@code SELECT @@`storage.persist.mode`}); an admin account changes one with
 * {@code SET GLOBAL storage.persist.mode = 'FORCE'} (also {@code @@global.}, {@code PERSIST}, and the name
 * backquoted whole or in parts, matched case-insensitively). Others get error 1227, an invalid value error 1231
 * with the validation message, and nothing changes. Edits run as {@link Answer.Deferred} (they write a file).
 *
 * <p>Statements that read binlog files ({@code SHOW BINARY LOGS}, {@code SHOW BINLOG EVENTS},
 * {@code binlog_gtid_pos}) are answered as {@link Answer.Deferred}, to run off the event loop. Thread-safe.
 */
final class QueryResponder {
    static final int ER_NOT_SUPPORTED_YET = 1235;
    static final int ER_EMPTY_QUERY = 1065;
    private static final Pattern ALIAS = Pattern.compile("(?is)^(.*?[^\\s])\\s+(?:AS\\s+)?([`'\"]?)([A-Za-z0-9_$@.]+)\\2$");
    private static final Pattern FUNCTION = Pattern.compile("(?is)^([A-Za-z_][A-Za-z0-9_]*)\\s*\\((.*)\\)$");
    private static final Pattern NUMBER = Pattern.compile("^[+-]?\\d+(\\.\\d+)?$");
    private static final Pattern LIMIT = Pattern.compile("(?is)\\s+LIMIT\\s+\\d+(\\s*,\\s*\\d+)?$");
    private static final Pattern SHOW_LIKE = Pattern.compile(
            "(?is)^SHOW\\s+(GLOBAL\\s+|SESSION\\s+|LOCAL\\s+)?(VARIABLES|STATUS)(\\s+LIKE\\s+('.*'|\".*\"))?$");
    private static final Pattern SHOW_EVENTS = Pattern.compile(
            "(?is)^SHOW\\s+BINLOG\\s+EVENTS(\\s+IN\\s+('[^']*'|\"[^\"]*\"))?(\\s+FROM\\s+(\\d+))?(\\s+LIMIT\\s+(\\d+)(\\s*,\\s*(\\d+))?)?$");
    private static final Pattern SHOW_WHERE = Pattern.compile(
            "(?is)^SHOW\\s+(GLOBAL\\s+|SESSION\\s+|LOCAL\\s+)?(VARIABLES|STATUS)\\s+WHERE\\s+(.+)$");
    private static final Pattern WHERE_CONDITION = Pattern.compile(
            "(?is)^`?(Variable_name)`?\\s*(=|LIKE|IN)\\s*(.+)$");
    private static final Pattern SET_SESSION_TRANSACTION = Pattern.compile(
            "(?is)^(?:SESSION|LOCAL|GLOBAL)\\s+TRANSACTION\\s+(.+)$");
    private static final Pattern SET_STATEMENT = Pattern.compile("(?is)^SET\\s+STATEMENT\\s+");
    private static final Pattern ASSIGNMENT = Pattern.compile("(?is)^`?[A-Za-z_][A-Za-z0-9_$]*`?\\s*=\\s*\\S.*$");
    private static final Pattern KILL = Pattern.compile("(?is)^KILL\\s+(CONNECTION\\s+|QUERY\\s+)?(\\d{1,18})$");
    private static final int MAX_SHOWN_EVENTS = 10_000;
    /** The variables that carry the binlog position: asked for, they are answered at a synchronised position. */
    private static final java.util.Set<String> POSITION_VARIABLES = java.util.Set.of("gtid_executed", "gtid_binlog_pos",
            "gtid_current_pos", "gtid_binlog_state");
    private static final Pattern POSITION_VARIABLE = Pattern.compile(
            "(?i)\\bgtid_(executed|binlog_pos|current_pos|binlog_state)\\b");

    private final ServerVariables variables;
    private final Supplier<GlobalBinlogWriter> writer;
    private final LiveVariables live;
    private final SchemaStatements schemaStatements;
    private final ShardSource shards;
    private final StreamPositions positions;

    QueryResponder(ServerVariables variables, Supplier<GlobalBinlogWriter> writer) {
        this(variables, writer, LiveVariables.NONE);
    }

    QueryResponder(ServerVariables variables, Supplier<GlobalBinlogWriter> writer, LiveVariables live) {
        this(variables, writer, live, ShardSource.NONE);
    }

    QueryResponder(ServerVariables variables, Supplier<GlobalBinlogWriter> writer, LiveVariables live,
            ShardSource shards) {
        this(variables, writer, live, shards, new StreamPositions(shards, StreamProgress.NONE, StreamPositions.WAIT));
    }

    QueryResponder(ServerVariables variables, Supplier<GlobalBinlogWriter> writer, LiveVariables live,
            ShardSource shards, StreamPositions positions) {
        this.variables = variables;
        this.writer = writer;
        this.live = live;
        this.shards = shards;
        this.positions = positions;
        this.schemaStatements = new SchemaStatements(writer, shards);
    }

    Answer answer(String sql, DumpSession session) {
        String s = SqlText.normalize(sql);
        if (s.isEmpty()) {
            return new Answer.Error(new ErrPacket(ER_EMPTY_QUERY, "42000", "Query was empty"));
        }
        String syntax = SqlText.syntaxError(s);
        if (syntax != null) {
            return parseError(syntax);
        }
        String upper = s.toUpperCase(Locale.ROOT);
        if (SET_STATEMENT.matcher(s).lookingAt()) {
            return setStatement(s, session);
        }
        LockAndTransactionStatements.Parsed lockOrTransaction = LockAndTransactionStatements.parse(s);
        if (lockOrTransaction != null) {
            return lockOrTransaction.error() != null ? lockOrTransaction.error()
                    : LockAndTransactionStatements.carryOut(lockOrTransaction, s, session, shards, writer);
        }
        try {
            Answer aboutSchema = schemaStatements.answer(s, session);
            if (aboutSchema != null) {
                return aboutSchema;
            }
            if (KILL.matcher(s).matches()) {
                Matcher k = KILL.matcher(s);
                k.matches();
                return new Answer.Kill(Long.parseLong(k.group(2)), k.group(1) != null
                        && k.group(1).strip().equalsIgnoreCase("QUERY"));
            }
            if (upper.startsWith("SELECT")) {
                Answer overTable = tableSelect(s, session);
                if (overTable != null) {
                    return overTable;
                }
                return select(s, session);
            }
            if (upper.startsWith("SET ")) {
                return set(s.substring(4).strip(), session);
            }
            if (upper.startsWith("SHOW ")) {
                return show(s, session);
            }
            if (upper.equals("COMMIT") || upper.equals("ROLLBACK") || upper.equals("COMMIT WORK")
                    || upper.equals("ROLLBACK WORK")) {
                return LockAndTransactionStatements.endSnapshot(session);
            }
            if (upper.startsWith("USE ")) {
                return new Answer.Ok();
            }
        } catch (UnsupportedStatement e) {
            return unsupportedOrMalformed(sql, s, e.getMessage());
        } catch (UnknownVariable e) {
            return Answer.error(MySqlError.ER_UNKNOWN_SYSTEM_VARIABLE, "Unknown system variable '" + e.getMessage() + "'");
        }
        if (!SqlText.startsWithStatementKeyword(s)) {
            return parseError(s);
        }
        return unsupportedOrMalformed(sql, s, null);
    }

    /** A statement outside what is served: 1064 when it is a query or DML statement that does not parse, else 1235. */
    private static Answer unsupportedOrMalformed(String sql, String normalized, String detail) {
        if (!SqlSyntax.checks(normalized)) {
            return unsupported(sql, detail);
        }
        return new Answer.Deferred(() -> {
            Answer syntax = SqlSyntax.error(normalized);
            return syntax != null ? syntax : unsupported(sql, detail);
        });
    }

    /**
     * MariaDB's {@code SET STATEMENT var=value[, var=value...] FOR <statement>} (Debezium's MariaDB connector wraps
     * every statement so): the variables only last for the statement, and none changes what the dump server
     * answers, so the statement is answered as if sent alone. MySQL has no such statement: error 1064 there, as
     * MySQL 8.0 answers.
     */
    private Answer setStatement(String s, DumpSession session) {
        if (!variables.flavor().isMariaDb()) {
            return parseError(s.substring(4).strip());
        }
        Matcher m = SET_STATEMENT.matcher(s);
        m.lookingAt();
        String rest = s.substring(m.end());
        int forAt = SqlText.indexOfKeyword(rest, "FOR");
        if (forAt < 0) {
            return parseError(rest.isEmpty() ? "" : rest);
        }
        String assignments = rest.substring(0, forAt).strip();
        for (String assignment : SqlText.splitTopLevel(assignments, ',')) {
            if (!ASSIGNMENT.matcher(assignment).matches()) {
                return parseError(assignment + rest.substring(rest.indexOf(assignment) + assignment.length()));
            }
        }
        String inner = rest.substring(forAt + 3).strip();
        if (inner.isEmpty()) {
            return parseError("");
        }
        return answer(inner, session);
    }

    // ---- transactions, locks and positions

    /**
     * Answers with the binlog at the position this session is given ({@link StreamPositions}: its snapshot's, else a
     * sync point, which falls back to the durable end when a shard cannot be asked), off the event loop; error 1429
     * naming the shard when a snapshot's position cannot be given. Without shards or a
     * running pipeline (the daemon starting): the durable end now, or in a snapshot transaction its G0.
     */
    private Answer atPosition(DumpSession session, String sql, java.util.function.Function<BinlogSnapshot, Answer> answer) {
        GlobalBinlogWriter w = writer.get();
        if (w == null || !positions.active()) {
            SnapshotTransaction t = session.holds.snapshot();
            return answer.apply(w == null || t == null || t.start() == null ? snapshot() : BinlogSnapshot.of(w, t.start()));
        }
        return new Answer.Deferred(() -> {
            io.tributary.storage.binlog.DurableMark mark;
            try {
                mark = positions.position(session.holds, session.connectionId);
            } catch (StreamPositions.Unavailable e) {
                return new Answer.Error(new ErrPacket(ShardSelect.ER_CONNECT_TO_FOREIGN_DATA_SOURCE, "HY000",
                        "Tributary's dump server cannot give a binlog position: " + e.getMessage()));
            }
            try {
                return answer.apply(BinlogSnapshot.of(w, mark));
            } catch (UnsupportedStatement e) {
                return unsupported(sql, e.getMessage());
            } catch (UnknownVariable e) {
                return Answer.error(MySqlError.ER_UNKNOWN_SYSTEM_VARIABLE, "Unknown system variable '" + e.getMessage()
                        + "'");
            }
        });
    }

    /** Error 1064 as MySQL words it, quoting the text from where parsing failed (at most 80 characters). */
    static Answer parseError(String near) {
        return parseError(near, 1);
    }

    /** Error 1064 for a failure on {@code line} (1-based) of the statement. */
    static Answer parseError(String near, int line) {
        String shown = near.length() > 80 ? near.substring(0, 80) : near;
        return Answer.error(MySqlError.ER_PARSE_ERROR, "You have an error in your SQL syntax; check the manual that"
                + " corresponds to your MySQL server version for the right syntax to use near '" + shown + "' at line "
                + line);
    }

    private static Answer unsupported(String sql, String detail) {
        String shown = sql.length() > 200 ? sql.substring(0, 200) + "..." : sql;
        return new Answer.Error(new ErrPacket(ER_NOT_SUPPORTED_YET, "42000", "Tributary's dump server does not support"
                + " the statement '" + shown + "'" + (detail == null ? "" : ": " + detail)
                + " (it serves the statements replicas and CDC clients send before a binlog dump)"));
    }

    private BinlogSnapshot snapshot() {
        GlobalBinlogWriter w = writer.get();
        return w == null ? null : BinlogSnapshot.of(w);
    }

    // ---- SELECT

    /**
     * A {@code SELECT ... FROM} a logical table ({@link TableSelect}), streamed from the shards ({@link ShardSelect});
     * null when the statement reads no table ({@code FROM DUAL}, none) or does not parse.
     */
    private Answer tableSelect(String s, DumpSession session) {
        if (SqlText.indexOfKeyword(s, "FROM") < 0) {
            return null;
        }
        GlobalBinlogWriter w = writer.get();
        io.tributary.core.schema.LogicalSchema schema = w == null
                ? io.tributary.core.schema.LogicalSchema.empty("utf8mb4", "utf8mb4_general_ci") : w.durableSchema();
        TableSelect.Plan plan;
        try {
            plan = TableSelect.plan(s, session.database, schema, session.flavor);
        } catch (TableSelect.Refused e) {
            if (e.error().code() == ER_NOT_SUPPORTED_YET) {
                String shown = s.length() > 200 ? s.substring(0, 200) + "..." : s;
                return new Answer.Error(new ErrPacket(ER_NOT_SUPPORTED_YET, "42000", "Tributary's dump server does not"
                        + " support the statement '" + shown + "': " + e.error().message()));
            }
            return new Answer.Error(e.error());
        }
        if (plan == null) {
            return null;
        }
        if (shards.shards().isEmpty()) {
            return new Answer.Error(new ErrPacket(ER_NOT_SUPPORTED_YET, "42000", "Tributary's dump server has no shards"
                    + " to read " + plan.table().name() + " from"));
        }
        ShardSelect run = new ShardSelect(shards, session.holds.snapshot());
        return new Answer.Streamed(sink -> run.run(plan, sink));
    }

    private Answer select(String s, DumpSession session) {
        String list = LIMIT.matcher(s.substring(6).strip()).replaceFirst("");
        int from = SqlText.indexOfKeyword(list, "FROM");
        if (from >= 0) {
            if (!list.substring(from + 4).strip().equalsIgnoreCase("DUAL")) {
                throw new UnsupportedStatement("only SELECT of variables and functions, without FROM, is served");
            }
            list = list.substring(0, from).strip();
        }
        String items = list;
        if (POSITION_VARIABLE.matcher(list).find()) {
            return atPosition(session, s, snap -> selectItems(items, session, snap));
        }
        if (SqlText.indexOfKeyword(list, "BINLOG_GTID_POS") >= 0) {
            return new Answer.Deferred(() -> selectItems(items, session, snapshot()));
        }
        return selectItems(list, session, snapshot());
    }

    private Answer selectItems(String list, DumpSession session, BinlogSnapshot snap) {
        List<String> names = new ArrayList<>();
        List<String> values = new ArrayList<>();
        for (String item : SqlText.splitTopLevel(list, ',')) {
            String expr = item;
            String name = item;
            Matcher m = ALIAS.matcher(item);
            if (m.matches() && !item.endsWith(")") && !SqlText.isQuoted(item)) {
                expr = m.group(1).strip();
                name = m.group(3);
            }
            values.add(eval(expr, session, snap));
            names.add(name);
        }
        return Answer.rows(names, List.of(values));
    }

    /** The value of a SELECT or SET expression; null for SQL NULL. */
    String eval(String expr, DumpSession session, BinlogSnapshot snap) {
        String e = expr.strip();
        if (e.equalsIgnoreCase("NULL")) {
            return null;
        }
        if (SqlText.isQuoted(e)) {
            return SqlText.unquote(e);
        }
        if (NUMBER.matcher(e).matches()) {
            return e;
        }
        if (e.startsWith("@@")) {
            String name = e.substring(2);
            boolean global = false;
            String lower = name.toLowerCase(Locale.ROOT);
            if (lower.startsWith("global.")) {
                global = true;
                name = name.substring(7);
            } else if (lower.startsWith("session.") || lower.startsWith("local.")) {
                name = name.substring(name.indexOf('.') + 1);
            }
            name = SqlText.unbacktick(name);
            String v = variables.get(name, snap, session, global);
            if (v == null) {
                String key = liveKey(name.replace("`", ""));
                v = key == null ? null : live.values().get(key);
            } else {
                v = ServerVariables.asSelected(name, v);
            }
            if (v == null) {
                throw new UnknownVariable(name);
            }
            return v;
        }
        if (e.startsWith("@")) {
            return session.userVariable(SqlText.unbacktick(e.substring(1)));
        }
        switch (e.toUpperCase(Locale.ROOT)) {
            case "CURRENT_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP" -> {
                return now(0);
            }
            case "CURRENT_DATE" -> {
                return LocalDate.now().toString();
            }
            case "CURRENT_TIME" -> {
                return now(0).substring(11);
            }
            case "CURRENT_USER" -> {
                return session.user + "@%";
            }
            default -> {
            }
        }
        Matcher f = FUNCTION.matcher(e);
        if (f.matches()) {
            List<String> args = f.group(2).isBlank() ? List.of() : SqlText.splitTopLevel(f.group(2), ',');
            return function(f.group(1).toUpperCase(Locale.ROOT), args, session, snap);
        }
        throw new UnsupportedStatement("cannot evaluate '" + e + "'");
    }

    private String function(String name, List<String> args, DumpSession session, BinlogSnapshot snap) {
        return switch (name) {
            case "VERSION" -> variables.get("version", snap, session, true);
            case "UNIX_TIMESTAMP" -> Long.toString(System.currentTimeMillis() / 1000);
            case "NOW", "CURRENT_TIMESTAMP", "SYSDATE", "LOCALTIME", "LOCALTIMESTAMP" -> now(precision(name, args, session, snap));
            case "UTC_TIMESTAMP" -> LocalDateTime.now(java.time.ZoneOffset.UTC).format(DateTimeFormatter.ofPattern(
                    "yyyy-MM-dd HH:mm:ss"));
            case "CURDATE", "CURRENT_DATE" -> LocalDate.now().toString();
            case "CURTIME", "CURRENT_TIME" -> now(precision(name, args, session, snap)).substring(11);
            case "DATABASE", "SCHEMA" -> null;
            case "USER", "CURRENT_USER", "SESSION_USER", "SYSTEM_USER" -> session.user + "@%";
            case "CONNECTION_ID" -> Long.toString(session.connectionId);
            case "UUID" -> UUID.randomUUID().toString();
            case "BINLOG_GTID_POS" -> binlogGtidPos(args, session, snap);
            case "CONCAT" -> {
                StringBuilder b = new StringBuilder();
                for (String arg : args) {
                    String v = eval(arg, session, snap);
                    if (v == null) {
                        yield null;
                    }
                    b.append(v);
                }
                yield b.toString();
            }
            case "GTID_SUBTRACT" -> gtidSubtract(eval(args.get(0), session, snap), eval(args.get(1), session, snap));
            case "TIMEDIFF" -> {
                if (args.size() != 2) {
                    throw new UnsupportedStatement("TIMEDIFF() takes two arguments, got " + args.size());
                }
                yield TimeValues.timediff(eval(args.get(0), session, snap), eval(args.get(1), session, snap));
            }
            case "TIME_TO_SEC" -> {
                if (args.size() != 1) {
                    throw new UnsupportedStatement("TIME_TO_SEC() takes one argument, got " + args.size());
                }
                yield TimeValues.timeToSec(eval(args.get(0), session, snap));
            }
            default -> throw new UnsupportedStatement("function " + name + "() is not served");
        };
    }

    /** The time now as DATETIME prints it, with {@code digits} (0-6) fractional digits. */
    private static String now(int digits) {
        String pattern = "yyyy-MM-dd HH:mm:ss" + (digits == 0 ? "" : "." + "S".repeat(digits));
        return LocalDateTime.now().format(DateTimeFormatter.ofPattern(pattern));
    }

    /** The fractional-second precision argument of NOW(n) and the like: 0 to 6. */
    private int precision(String function, List<String> args, DumpSession session, BinlogSnapshot snap) {
        if (args.isEmpty()) {
            return 0;
        }
        String v = args.size() == 1 ? eval(args.get(0), session, snap) : null;
        if (v == null || !v.matches("\\d") || Integer.parseInt(v) > 6) {
            throw new UnsupportedStatement(function + "() takes one precision from 0 to 6, got " + args);
        }
        return Integer.parseInt(v);
    }

    /** MariaDB's {@code binlog_gtid_pos(file, pos)}: the GTID position of a file/position, NULL if unknown. */
    private String binlogGtidPos(List<String> args, DumpSession session, BinlogSnapshot snap) {
        if (args.size() != 2 || snap == null) {
            return null;
        }
        String file = eval(args.get(0), session, snap);
        long pos = Long.parseLong(eval(args.get(1), session, snap));
        BinlogIndex.Entry entry = snap.files().stream().filter(en -> en.file().equals(file)).findFirst().orElse(null);
        if (entry == null) {
            return null;
        }
        long seq = entry.previousSequence();
        try (BinlogFileReader r = BinlogFileReader.at(writer.get(), new BinlogPosition(file, 4))) {
            BinlogEvent ev;
            while ((ev = r.next(Duration.ZERO)) != null && ev.offset() < pos && r.position().file().equals(file)) {
                if (ev.type() == EventType.MARIA_GTID) {
                    seq = ev.raw().order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(EventHeader.LENGTH);
                }
            }
        } catch (Exception ex) {
            return null;
        }
        return snap.gtidsUpTo(seq);
    }

    static String gtidSubtract(String a, String b) {
        MySqlGtidSet left = MySqlGtidSet.parse(a == null ? "" : a);
        MySqlGtidSet right = MySqlGtidSet.parse(b == null ? "" : b);
        Map<UUID, List<ComBinlogDumpGtid.Interval>> minus = new java.util.HashMap<>();
        for (ComBinlogDumpGtid.Sid sid : right.toSids()) {
            minus.put(sid.uuid(), sid.intervals());
        }
        StringBuilder out = new StringBuilder();
        for (ComBinlogDumpGtid.Sid sid : left.toSids()) {
            List<long[]> rest = new ArrayList<>();
            for (ComBinlogDumpGtid.Interval iv : sid.intervals()) {
                rest.add(new long[] {iv.start(), iv.endExclusive()});
            }
            for (ComBinlogDumpGtid.Interval cut : minus.getOrDefault(sid.uuid(), List.of())) {
                List<long[]> next = new ArrayList<>();
                for (long[] r : rest) {
                    if (cut.endExclusive() <= r[0] || cut.start() >= r[1]) {
                        next.add(r);
                        continue;
                    }
                    if (r[0] < cut.start()) {
                        next.add(new long[] {r[0], cut.start()});
                    }
                    if (cut.endExclusive() < r[1]) {
                        next.add(new long[] {cut.endExclusive(), r[1]});
                    }
                }
                rest = next;
            }
            if (rest.isEmpty()) {
                continue;
            }
            out.append(out.length() == 0 ? "" : ",\n").append(sid.uuid());
            for (long[] r : rest) {
                out.append(':').append(r[0]);
                if (r[1] - 1 > r[0]) {
                    out.append('-').append(r[1] - 1);
                }
            }
        }
        return out.toString();
    }

    // ---- SET

    private Answer set(String s, DumpSession session) {
        String upper = s.toUpperCase(Locale.ROOT);
        if (upper.startsWith("NAMES ") || upper.startsWith("CHARACTER SET ") || upper.startsWith("CHARSET ")) {
            return new Answer.Ok();
        }
        if (upper.startsWith("TRANSACTION ")) {
            return new Answer.Ok(); // the next transaction only: there is none here
        }
        Matcher tx = SET_SESSION_TRANSACTION.matcher(s);
        if (tx.matches()) {
            // Connector/J's setReadOnly(): the session's transaction_read_only (tx_read_only on MariaDB 10.11)
            String access = tx.group(1).toUpperCase(Locale.ROOT);
            if (access.contains("READ ONLY") || access.contains("READ WRITE")) {
                String name = variables.flavor().isMariaDb() ? "tx_read_only" : "transaction_read_only";
                session.setSessionVariable(name, access.contains("READ ONLY") ? "1" : "0");
            }
            return new Answer.Ok();
        }
        BinlogSnapshot snap = snapshot();
        Map<String, String> edits = new java.util.LinkedHashMap<>();
        for (String assignment : SqlText.splitTopLevel(s, ',')) {
            String assignmentUpper = assignment.strip().toUpperCase(Locale.ROOT);
            if (assignmentUpper.startsWith("NAMES ") || assignmentUpper.startsWith("CHARACTER SET ")
                    || assignmentUpper.startsWith("CHARSET ")) {
                continue; // SET sql_mode = ..., NAMES utf8mb4 (MariaDB Connector/J): always utf8mb4
            }
            int eq = assignment.indexOf('=');
            if (eq < 0) {
                throw new UnsupportedStatement("expected name = value in '" + assignment + "'");
            }
            String lhs = assignment.substring(0, eq).strip();
            if (lhs.endsWith(":")) {
                lhs = lhs.substring(0, lhs.length() - 1).strip();
            }
            String rhs = assignment.substring(eq + 1).strip();
            if (lhs.startsWith("@") && !lhs.startsWith("@@")) {
                session.setUserVariable(SqlText.unbacktick(lhs.substring(1)), eval(rhs, session, snap));
                continue;
            }
            String global = globalName(lhs);
            if (global != null) {
                String key = liveKey(global);
                if (key == null) {
                    if (variables.get(global.replace("`", ""), snap, null, true) == null) {
                        return Answer.error(MySqlError.ER_UNKNOWN_SYSTEM_VARIABLE, "Unknown system variable '"
                                + global.replace("`", "") + "'" + editableHint());
                    }
                    return Answer.error(MySqlError.ER_SPECIFIC_ACCESS_DENIED_ERROR, "Access denied; Tributary's"
                            + " server variables are read-only ('" + assignment + "')" + editableHint());
                }
                if (!session.admin) {
                    return Answer.error(MySqlError.ER_SPECIFIC_ACCESS_DENIED_ERROR, "Access denied; you need (at least"
                            + " one of) the SUPER privilege(s) for this operation (only dump users with admin: true may"
                            + " change " + key + ")");
                }
                edits.put(key, rhs.matches("[A-Za-z_][A-Za-z0-9_]*") ? rhs : eval(rhs, session, snap));
                continue;
            }
            String name = sessionName(lhs);
            String liveKey = liveKey(name);
            if (liveKey != null) {
                return Answer.error(MySqlError.ER_GLOBAL_VARIABLE, "Variable '" + liveKey
                        + "' is a GLOBAL variable and should be set with SET GLOBAL");
            }
            String value;
            if (rhs.matches("[A-Za-z_][A-Za-z0-9_]*") && !rhs.equalsIgnoreCase("NULL")) {
                value = rhs;
            } else {
                value = eval(rhs, session, snap);
            }
            session.setSessionVariable(SqlText.unbacktick(name), value);
        }
        if (edits.isEmpty()) {
            return new Answer.Ok();
        }
        return new Answer.Deferred(() -> {
            for (Map.Entry<String, String> e : edits.entrySet()) {
                try {
                    live.set(e.getKey(), e.getValue() == null ? "NULL" : e.getValue());
                } catch (IllegalArgumentException ex) {
                    return Answer.error(MySqlError.ER_WRONG_VALUE_FOR_VAR, ex.getMessage());
                }
            }
            return new Answer.Ok();
        });
    }

    /** The variable a {@code SET GLOBAL x}, {@code SET @@global.x} or {@code SET PERSIST x} names; null if not global. */
    private static String globalName(String lhs) {
        String lower = lhs.toLowerCase(Locale.ROOT);
        for (String prefix : List.of("@@global.", "@@persist.", "global ", "persist_only ", "persist ")) {
            if (lower.startsWith(prefix)) {
                return lhs.substring(prefix.length()).strip();
            }
        }
        return null;
    }

    private static String sessionName(String lhs) {
        String lower = lhs.toLowerCase(Locale.ROOT);
        for (String prefix : List.of("@@session.", "@@local.", "@@", "session ", "local ")) {
            if (lower.startsWith(prefix)) {
                return lhs.substring(prefix.length()).strip();
            }
        }
        return lhs;
    }

    /** The live key {@code name} names (backquotes removed, any case); null when it is none. */
    private String liveKey(String name) {
        String plain = name.replace("`", "");
        for (String key : live.values().keySet()) {
            if (key.equalsIgnoreCase(plain)) {
                return key;
            }
        }
        return null;
    }

    private String editableHint() {
        return live.values().isEmpty() ? "" : " (changeable while running: " + String.join(", ",
                live.values().keySet()) + ")";
    }

    // ---- SHOW

    private Answer show(String s, DumpSession session) {
        String words = s.toUpperCase(Locale.ROOT).replaceAll("\\s+", " ");
        Matcher like = SHOW_LIKE.matcher(s);
        Matcher where = SHOW_WHERE.matcher(s);
        if (like.matches() || where.matches()) {
            Matcher m = like.matches() ? like : where;
            boolean global = m.group(1) != null && m.group(1).strip().equalsIgnoreCase("GLOBAL");
            java.util.function.Predicate<String> wanted;
            if (m == like) {
                String pattern = like.group(4) == null ? "%" : SqlText.unquote(like.group(4));
                wanted = k -> SqlText.like(k, pattern);
            } else {
                wanted = whereVariableName(where.group(3));
            }
            boolean ofVariables = m.group(2).equalsIgnoreCase("VARIABLES");
            java.util.function.Function<BinlogSnapshot, Answer> shown = snap -> {
                Map<String, String> source = ofVariables
                        ? withLive(variables.all(snap)) : Map.of("Ssl_version", "", "Ssl_cipher", "",
                        "Rpl_semi_sync_master_status", "OFF", "Rpl_semi_sync_source_status", "OFF", "Uptime", "1");
                List<List<String>> rows = new ArrayList<>();
                new java.util.TreeMap<>(source).forEach((k, v) -> {
                    if (wanted.test(k)) {
                        String value = global ? v : java.util.Objects.requireNonNullElse(session.sessionVariable(k), v);
                        rows.add(java.util.Arrays.asList(k, ServerVariables.asShown(k, value)));
                    }
                });
                return Answer.rows(List.of("Variable_name", "Value"), rows);
            };
            if (ofVariables && POSITION_VARIABLES.stream().anyMatch(wanted)) {
                return atPosition(session, s, shown);
            }
            return shown.apply(snapshot());
        }
        switch (words) {
            case "SHOW MASTER STATUS", "SHOW BINARY LOG STATUS" -> {
                return atPosition(session, s, this::masterStatus);
            }
            case "SHOW BINLOG STATUS" -> { // MariaDB 10.5.2+'s name for it; MySQL has none such
                if (variables.flavor().isMariaDb()) {
                    return atPosition(session, s, this::masterStatus);
                }
                return parseError("BINLOG STATUS");
            }
            case "SHOW BINARY LOGS", "SHOW MASTER LOGS" -> {
                return new Answer.Deferred(this::binaryLogs);
            }
            case "SHOW WARNINGS", "SHOW ERRORS" -> {
                return Answer.rows(List.of("Level", "Code", "Message"), List.of());
            }
            default -> {
            }
        }
        if (words.startsWith("SHOW GRANTS")) {
            return Answer.rows(List.of("Grants for " + session.user + "@%"), List.of(List.of(
                    "GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO `" + session.user + "`@`%`")));
        }
        Matcher ev = SHOW_EVENTS.matcher(s);
        if (ev.matches()) {
            String file = ev.group(2) == null ? null : SqlText.unquote(ev.group(2));
            long from = ev.group(4) == null ? 4 : Long.parseLong(ev.group(4));
            long offset = ev.group(8) == null ? 0 : Long.parseLong(ev.group(6));
            long limit = ev.group(6) == null ? MAX_SHOWN_EVENTS
                    : Long.parseLong(ev.group(8) == null ? ev.group(6) : ev.group(8));
            return new Answer.Deferred(() -> binlogEvents(file, from, offset, Math.min(limit, MAX_SHOWN_EVENTS)));
        }
        throw new UnsupportedStatement(null);
    }

    /**
     * The {@code WHERE} of {@code SHOW VARIABLES WHERE ...} as clients write it: conditions on {@code Variable_name}
     * ({@code = 'x'}, {@code LIKE 'x%'}, {@code IN ('x', 'y')}) joined by {@code OR}. Names compare
     * case-insensitively, as on a server (utf8 general collation).
     */
    private static java.util.function.Predicate<String> whereVariableName(String condition) {
        java.util.function.Predicate<String> any = k -> false;
        for (String part : splitOr(condition)) {
            String cond = part.strip();
            while (cond.startsWith("(") && cond.endsWith(")")
                    && SqlText.syntaxError(cond.substring(1, cond.length() - 1)) == null) {
                cond = cond.substring(1, cond.length() - 1).strip();
            }
            Matcher c = WHERE_CONDITION.matcher(cond);
            if (!c.matches()) {
                throw new UnsupportedStatement("only conditions on Variable_name (=, LIKE, IN) are served in WHERE");
            }
            String op = c.group(2).toUpperCase(Locale.ROOT);
            String operand = c.group(3).strip();
            java.util.function.Predicate<String> one;
            if (op.equals("IN")) {
                if (!operand.startsWith("(") || !operand.endsWith(")")) {
                    throw new UnsupportedStatement("IN expects a list in parentheses");
                }
                List<String> names = new ArrayList<>();
                for (String item : SqlText.splitTopLevel(operand.substring(1, operand.length() - 1), ',')) {
                    names.add(literal(item));
                }
                one = k -> names.stream().anyMatch(k::equalsIgnoreCase);
            } else {
                String value = literal(operand);
                one = op.equals("=") ? k -> k.equalsIgnoreCase(value) : k -> SqlText.like(k, value);
            }
            any = any.or(one);
        }
        return any;
    }

    private static List<String> splitOr(String condition) {
        List<String> parts = new ArrayList<>();
        String rest = condition;
        int at;
        while ((at = SqlText.indexOfKeyword(rest, "OR")) >= 0) {
            parts.add(rest.substring(0, at));
            rest = rest.substring(at + 2);
        }
        parts.add(rest);
        return parts;
    }

    private static String literal(String s) {
        String t = s.strip();
        if (!SqlText.isQuoted(t)) {
            throw new UnsupportedStatement("expected a quoted name, got " + t);
        }
        return SqlText.unquote(t);
    }

    private Map<String, String> withLive(Map<String, String> serverVariables) {
        Map<String, String> all = new java.util.TreeMap<>(serverVariables);
        all.putAll(live.values());
        return all;
    }

    private Answer masterStatus(BinlogSnapshot snap) {
        boolean maria = variables.get("gtid_domain_id", null, null, true) != null;
        List<String> cols = maria ? List.of("File", "Position", "Binlog_Do_DB", "Binlog_Ignore_DB")
                : List.of("File", "Position", "Binlog_Do_DB", "Binlog_Ignore_DB", "Executed_Gtid_Set");
        if (snap == null) {
            return Answer.rows(cols, List.of());
        }
        List<String> row = new ArrayList<>(List.of(snap.end().file(), Long.toString(snap.end().position()), "", ""));
        if (!maria) {
            row.add(snap.executedGtids());
        }
        return Answer.rows(cols, List.of(row));
    }

    private Answer binaryLogs() throws java.io.IOException {
        GlobalBinlogWriter w = writer.get();
        boolean maria = variables.get("gtid_domain_id", null, null, true) != null;
        List<String> cols = maria ? List.of("Log_name", "File_size") : List.of("Log_name", "File_size", "Encrypted");
        if (w == null) {
            return Answer.rows(cols, List.of());
        }
        BinlogSnapshot snap = BinlogSnapshot.of(w);
        List<List<String>> rows = new ArrayList<>();
        for (BinlogIndex.Entry e : snap.files()) {
            long size = e.file().equals(snap.end().file()) ? snap.end().position()
                    : Files.size(w.config().dir().resolve(e.file()));
            rows.add(maria ? List.of(e.file(), Long.toString(size)) : List.of(e.file(), Long.toString(size), "No"));
        }
        return Answer.rows(cols, rows);
    }

    private Answer binlogEvents(String file, long from, long skip, long limit) throws Exception {
        GlobalBinlogWriter w = writer.get();
        List<String> cols = List.of("Log_name", "Pos", "Event_type", "Server_id", "End_log_pos", "Info");
        if (w == null) {
            return Answer.rows(cols, List.of());
        }
        String name = file == null ? w.index().entries().get(0).file() : file;
        if (w.index().find(name).isEmpty()) {
            return Answer.error(MySqlError.ER_UNKNOWN_ERROR, "Error when executing command SHOW BINLOG EVENTS: "
                    + "Could not find target log '" + name + "'; files are " + w.index().entries().stream()
                    .map(BinlogIndex.Entry::file).toList());
        }
        List<List<String>> rows = new ArrayList<>();
        long seen = 0;
        try (BinlogFileReader r = BinlogFileReader.at(w, new BinlogPosition(name, from))) {
            BinlogEvent e;
            while (rows.size() < limit && (e = r.next(Duration.ZERO)) != null) {
                if (seen++ >= skip) {
                    rows.add(List.of(name, Long.toString(e.offset()), EventType.nameOf(e.header().typeCode()),
                            Long.toString(e.header().serverId()), Long.toString(e.header().logPos()), ""));
                }
                if (e.type() == EventType.ROTATE) {
                    break;
                }
            }
        }
        return Answer.rows(cols, rows);
    }

    /** A statement or expression outside what is served. */
    static final class UnsupportedStatement extends RuntimeException {
        UnsupportedStatement(String message) {
            super(message, null, false, false);
        }
    }

    /** {@code @@name} that does not exist. */
    static final class UnknownVariable extends RuntimeException {
        UnknownVariable(String name) {
            super(name, null, false, false);
        }
    }
}
