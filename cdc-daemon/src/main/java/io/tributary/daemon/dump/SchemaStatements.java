package io.tributary.daemon.dump;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.packet.ErrPacket;
import io.tributary.core.packet.MySqlError;
import io.tributary.core.schema.LogicalSchema;
import io.tributary.core.schema.SchemaDatabase;
import io.tributary.core.schema.SchemaTable;
import io.tributary.core.schema.TableName;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.Limit;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.SelectItem;

/**
 * The statements about the logical schema, answered from it as of the durable end of the global binlog
 * ({@link GlobalBinlogWriter#durableSchema()}), as MariaDB 10.11 or MySQL 8.0 answers them: {@code SHOW DATABASES},
 * {@code SHOW [FULL] TABLES [FROM|IN db] [LIKE|WHERE]}, {@code SHOW CREATE TABLE}, {@code SHOW CREATE DATABASE},
 * {@code SHOW TABLE STATUS [FROM db] [LIKE|WHERE]}, {@code SHOW [FULL] COLUMNS|FIELDS FROM t [FROM db] [LIKE|WHERE]},
 * {@code DESCRIBE t}, {@code SHOW INDEX|INDEXES|KEYS FROM t [FROM db] [WHERE]}, {@code USE db}, and simple
 * {@code SELECT}s of {@code information_schema} {@code SCHEMATA}, {@code TABLES}, {@code COLUMNS}, {@code STATISTICS},
 * {@code KEY_COLUMN_USAGE} (columns or {@code *} with aliases, a {@code WHERE} of {@link RowCondition},
 * {@code ORDER BY} columns, {@code LIMIT}). An unknown table is error 1146, an unknown database 1049, no database
 * selected 1046, an unknown column 1054. Thread-safe (stateless; the session is the connection's).
 */
final class SchemaStatements {

    static final int ER_NO_DB_ERROR = 1046;
    static final int ER_NO_SUCH_TABLE = 1146;
    static final int ER_BAD_FIELD_ERROR = 1054;
    private static final String ID = "(`(?:[^`]|``)+`|[A-Za-z0-9_$]+)";
    private static final String FILTER = "(?:\\s+(LIKE)\\s+('(?:[^']|'')*'|\"[^\"]*\")|\\s+WHERE\\s+(.+))?";
    private static final Pattern SHOW_DATABASES = Pattern.compile("(?is)^SHOW\\s+(?:DATABASES|SCHEMAS)" + FILTER + "$");
    private static final Pattern SHOW_TABLES = Pattern.compile(
            "(?is)^SHOW\\s+(FULL\\s+)?TABLES(?:\\s+(?:FROM|IN)\\s+" + ID + ")?" + FILTER + "$");
    private static final Pattern SHOW_CREATE_TABLE = Pattern.compile(
            "(?is)^SHOW\\s+CREATE\\s+TABLE\\s+" + ID + "(?:\\s*\\.\\s*" + ID + ")?$");
    private static final Pattern SHOW_CREATE_DATABASE = Pattern.compile(
            "(?is)^SHOW\\s+CREATE\\s+(?:DATABASE|SCHEMA)\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?" + ID + "$");
    private static final Pattern SHOW_TABLE_STATUS = Pattern.compile(
            "(?is)^SHOW\\s+TABLE\\s+STATUS(?:\\s+(?:FROM|IN)\\s+" + ID + ")?" + FILTER + "$");
    private static final Pattern SHOW_COLUMNS = Pattern.compile("(?is)^SHOW\\s+(FULL\\s+)?(?:COLUMNS|FIELDS)\\s+(?:FROM|IN)\\s+"
            + ID + "(?:\\s*\\.\\s*" + ID + ")?(?:\\s+(?:FROM|IN)\\s+" + ID + ")?" + FILTER + "$");
    private static final Pattern DESCRIBE = Pattern.compile("(?is)^(?:DESC|DESCRIBE|EXPLAIN)\\s+" + ID
            + "(?:\\s*\\.\\s*" + ID + ")?$");
    private static final Pattern SHOW_INDEX = Pattern.compile("(?is)^SHOW\\s+(?:INDEX|INDEXES|KEYS)\\s+(?:FROM|IN)\\s+"
            + ID + "(?:\\s*\\.\\s*" + ID + ")?(?:\\s+(?:FROM|IN)\\s+" + ID + ")?(?:\\s+WHERE\\s+(.+))?$");
    private static final Pattern USE = Pattern.compile("(?is)^USE\\s+" + ID + "$");
    private static final Pattern FROM_INFORMATION_SCHEMA = Pattern.compile("(?is)\\bFROM\\s+`?information_schema`?\\s*\\.");

    private final Supplier<GlobalBinlogWriter> writer;
    private final ShardSource shards;

    SchemaStatements(Supplier<GlobalBinlogWriter> writer) {
        this(writer, ShardSource.NONE);
    }

    /** @param shards where the row-count estimates of {@code TABLES} and {@code SHOW TABLE STATUS} are read */
    SchemaStatements(Supplier<GlobalBinlogWriter> writer, ShardSource shards) {
        this.writer = writer;
        this.shards = shards;
    }

    /**
     * The answer built from the shards' row-count estimates: read off the event loop ({@link Answer.Deferred}) when
     * there are shards, else with none (0).
     */
    private Answer withRowEstimates(java.util.function.Function<Map<TableName, Long>, Answer> answer) {
        if (shards.shards().isEmpty()) {
            return answer.apply(Map.of());
        }
        return new Answer.Deferred(() -> answer.apply(ShardSelect.rowEstimates(shards)));
    }

    /** The answer, or null when {@code s} (normalised) is none of these statements. */
    Answer answer(String s, DumpSession session) {
        Matcher m;
        try {
            if ((m = USE.matcher(s)).matches()) {
                String db = id(m.group(1));
                if (!db.equalsIgnoreCase(InformationSchema.NAME) && schema().database(db).isEmpty()) {
                    return unknownDatabase(db);
                }
                session.database = db;
                return new Answer.Ok();
            }
            if ((m = SHOW_DATABASES.matcher(s)).matches()) {
                return rows(filter(InformationSchema.databases(schema()), m, 1, "Database"), session);
            }
            if ((m = SHOW_TABLES.matcher(s)).matches()) {
                String db = database(m.group(2), session);
                if (db == null) {
                    return noDatabase();
                }
                LogicalSchema sc = schema();
                if (!db.equalsIgnoreCase(InformationSchema.NAME) && sc.database(db).isEmpty()) {
                    return unknownDatabase(db);
                }
                SchemaResult r = filter(InformationSchema.tableNames(sc, db), m, 3, "Tables_in_" + db);
                return rows(m.group(1) == null ? r.firstColumns(1) : r, session);
            }
            if ((m = SHOW_CREATE_TABLE.matcher(s)).matches()) {
                SchemaTable t = table(m.group(1), m.group(2), null, session);
                return rows(InformationSchema.showCreateTable(t, flavor(session)), session);
            }
            if ((m = SHOW_CREATE_DATABASE.matcher(s)).matches()) {
                String db = id(m.group(1));
                SchemaDatabase d = schema().database(db).orElse(null);
                if (d == null) {
                    return unknownDatabase(db);
                }
                return rows(InformationSchema.showCreateDatabase(d, flavor(session)), session);
            }
            if ((m = SHOW_TABLE_STATUS.matcher(s)).matches()) {
                String db = database(m.group(1), session);
                if (db == null) {
                    return noDatabase();
                }
                LogicalSchema sc = schema();
                if (sc.database(db).isEmpty()) {
                    return unknownDatabase(db);
                }
                Matcher status = m;
                return withRowEstimates(estimates -> rows(filter(InformationSchema.tableStatus(sc, db, flavor(session),
                        estimates), status, 2, "Name"), session));
            }
            if ((m = SHOW_COLUMNS.matcher(s)).matches()) {
                SchemaTable t = table(m.group(2), m.group(3), m.group(4), session);
                return rows(filter(InformationSchema.showColumns(t, flavor(session), m.group(1) != null), m, 5, "Field"),
                        session);
            }
            if ((m = DESCRIBE.matcher(s)).matches()) {
                SchemaTable t = table(m.group(1), m.group(2), null, session);
                return rows(InformationSchema.showColumns(t, flavor(session), false), session);
            }
            if ((m = SHOW_INDEX.matcher(s)).matches()) {
                SchemaTable t = table(m.group(1), m.group(2), m.group(3), session);
                SchemaResult r = InformationSchema.statistics(schema(), flavor(session), t);
                return rows(m.group(4) == null ? r : r.filter(RowCondition.parse(m.group(4))), session);
            }
            if (s.regionMatches(true, 0, "SELECT", 0, 6) && (FROM_INFORMATION_SCHEMA.matcher(s).find()
                    || InformationSchema.NAME.equalsIgnoreCase(session.database))) {
                return select(s, session);
            }
        } catch (UnknownTable e) {
            return new Answer.Error(new ErrPacket(ER_NO_SUCH_TABLE, "42S02", "Table '" + e.getMessage() + "' doesn't exist"));
        } catch (NoDatabase e) {
            return noDatabase();
        } catch (RowCondition.UnknownColumn e) {
            return new Answer.Error(new ErrPacket(ER_BAD_FIELD_ERROR, "42S22", "Unknown column '" + e.getMessage()
                    + "' in 'where clause'"));
        } catch (RowCondition.Unsupported e) {
            return new Answer.Error(new ErrPacket(QueryResponder.ER_NOT_SUPPORTED_YET, "42000",
                    "Tributary's dump server does not support this in a statement about the schema: " + e.getMessage()));
        }
        return null;
    }

    private LogicalSchema schema() {
        GlobalBinlogWriter w = writer.get();
        return w == null ? LogicalSchema.empty("utf8mb4", "utf8mb4_general_ci") : w.durableSchema();
    }

    private static BinlogFlavor flavor(DumpSession session) {
        return session.flavor;
    }

    private static Answer rows(SchemaResult r, DumpSession session) {
        return new Answer.Rows(r.toResultSet(session.flavor));
    }

    /** LIKE (on {@code likeColumn}) or WHERE from the groups starting at {@code group}. */
    private static SchemaResult filter(SchemaResult r, Matcher m, int group, String likeColumn) {
        if (m.group(group) != null) {
            String p = m.group(group + 1);
            return r.filter(RowCondition.like(likeColumn, SqlText.unquote(p)));
        }
        if (m.group(group + 2) != null) {
            return r.filter(RowCondition.parse(m.group(group + 2)));
        }
        return r;
    }

    private static String database(String given, DumpSession session) {
        return given != null ? id(given) : session.database;
    }

    /** {@code a} alone (a table of {@code from} or the session database) or {@code a.b}. */
    private SchemaTable table(String a, String b, String from, DumpSession session) {
        String db;
        String table;
        if (b != null) {
            db = id(a);
            table = id(b);
        } else {
            table = id(a);
            db = from != null ? id(from) : session.database;
        }
        if (db == null) {
            throw new NoDatabase();
        }
        return schema().table(new TableName(db, table)).orElseThrow(() -> new UnknownTable(db + "." + table));
    }

    /** {@code SELECT ... FROM information_schema.X [WHERE ...] [ORDER BY ...] [LIMIT n]}. */
    private Answer select(String s, DumpSession session) {
        Statement st;
        try {
            st = CCJSqlParserUtil.parse(s);
        } catch (JSQLParserException e) {
            return null; // the responder's syntax check answers 1064
        }
        if (!(st instanceof PlainSelect ps) || !(ps.getFromItem() instanceof Table from) || ps.getJoins() != null
                || ps.getGroupBy() != null || ps.getDistinct() != null) {
            return null;
        }
        String schemaName = from.getSchemaName() == null ? session.database : id(from.getSchemaName());
        if (!InformationSchema.NAME.equalsIgnoreCase(schemaName)) {
            return null;
        }
        String tableName = id(from.getName());
        if (tableName.equalsIgnoreCase("TABLES")) {
            LogicalSchema sc = schema();
            return withRowEstimates(estimates -> selectFrom(ps, tableName, InformationSchema.table(tableName, sc,
                    flavor(session), estimates), session));
        }
        return selectFrom(ps, tableName, InformationSchema.table(tableName, schema(), flavor(session)), session);
    }

    private Answer selectFrom(PlainSelect ps, String tableName, SchemaResult all, DumpSession session) {
        if (all == null) {
            return new Answer.Error(new ErrPacket(QueryResponder.ER_NOT_SUPPORTED_YET, "42000",
                    "Tributary's dump server serves information_schema SCHEMATA, TABLES, COLUMNS, STATISTICS and"
                            + " KEY_COLUMN_USAGE, not " + tableName));
        }
        SchemaResult filtered = all.filter(RowCondition.of(ps.getWhere()));
        List<Map<String, String>> maps = filtered.rowMaps();
        List<List<String>> rows = new ArrayList<>(filtered.rows());
        Map<String, String> aliases = new java.util.HashMap<>();
        for (SelectItem<?> item : ps.getSelectItems()) {
            if (item.getAlias() != null && item.getExpression() instanceof Column c) {
                aliases.put(id(item.getAlias().getName()).toLowerCase(java.util.Locale.ROOT), id(c.getColumnName()));
            }
        }
        if (ps.getOrderByElements() != null) {
            Comparator<Integer> order = null;
            for (OrderByElement o : ps.getOrderByElements()) {
                if (!(o.getExpression() instanceof Column c)) {
                    return null;
                }
                String col = aliases.getOrDefault(id(c.getColumnName()).toLowerCase(java.util.Locale.ROOT),
                        id(c.getColumnName()));
                Comparator<Integer> next = Comparator.comparing(i -> valueOf(maps.get(i), col),
                        Comparator.nullsFirst(String.CASE_INSENSITIVE_ORDER));
                if (!o.isAsc()) {
                    next = next.reversed();
                }
                order = order == null ? next : order.thenComparing(next);
            }
            List<Integer> idx = new ArrayList<>();
            for (int i = 0; i < rows.size(); i++) {
                idx.add(i);
            }
            idx.sort(order);
            List<List<String>> sorted = new ArrayList<>();
            List<Map<String, String>> sortedMaps = new ArrayList<>();
            for (int i : idx) {
                sorted.add(rows.get(i));
                sortedMaps.add(maps.get(i));
            }
            rows = sorted;
            maps.clear();
            maps.addAll(sortedMaps);
        }
        Limit limit = ps.getLimit();
        if (limit != null && limit.getRowCount() != null) {
            long off = limit.getOffset() == null ? 0 : Long.parseLong(limit.getOffset().toString());
            long n = Long.parseLong(limit.getRowCount().toString());
            int from0 = (int) Math.min(rows.size(), off);
            int to = (int) Math.min(rows.size(), off + n);
            rows = new ArrayList<>(rows.subList(from0, to));
            List<Map<String, String>> m2 = new ArrayList<>(maps.subList(from0, to));
            maps.clear();
            maps.addAll(m2);
        }
        // projection
        List<SchemaResult.Col> cols = new ArrayList<>();
        List<Integer> picks = new ArrayList<>();
        for (SelectItem<?> item : ps.getSelectItems()) {
            Expression e = item.getExpression();
            if (e instanceof AllColumns) {
                for (int i = 0; i < all.columns().size(); i++) {
                    cols.add(all.columns().get(i));
                    picks.add(i);
                }
                continue;
            }
            if (!(e instanceof Column c)) {
                return null;
            }
            String name = id(c.getColumnName());
            int at = -1;
            for (int i = 0; i < all.columns().size(); i++) {
                if (all.columns().get(i).name().equalsIgnoreCase(name)) {
                    at = i;
                }
            }
            if (at < 0) {
                return new Answer.Error(new ErrPacket(ER_BAD_FIELD_ERROR, "42S22", "Unknown column '" + name
                        + "' in 'field list'"));
            }
            Alias alias = item.getAlias();
            cols.add(all.columns().get(at).as(alias != null ? id(alias.getName()) : name));
            picks.add(at);
        }
        List<List<String>> out = new ArrayList<>();
        for (List<String> r : rows) {
            List<String> o = new ArrayList<>(picks.size());
            for (int i : picks) {
                o.add(r.get(i));
            }
            out.add(o);
        }
        return rows(new SchemaResult(InformationSchema.NAME, all.table(), cols, out), session);
    }

    private static String valueOf(Map<String, String> row, String column) {
        for (Map.Entry<String, String> e : row.entrySet()) {
            if (e.getKey().equalsIgnoreCase(column)) {
                return e.getValue();
            }
        }
        throw new RowCondition.UnknownColumn(column);
    }

    private static Answer unknownDatabase(String db) {
        return Answer.error(MySqlError.ER_BAD_DB_ERROR, "Unknown database '" + db + "'");
    }

    private static Answer noDatabase() {
        return new Answer.Error(new ErrPacket(ER_NO_DB_ERROR, "3D000", "No database selected"));
    }

    /** An identifier without its backquotes. */
    static String id(String s) {
        String x = s.strip();
        if (x.length() >= 2 && x.startsWith("`") && x.endsWith("`")) {
            return x.substring(1, x.length() - 1).replace("``", "`");
        }
        if (x.length() >= 2 && x.startsWith("\"") && x.endsWith("\"")) {
            return x.substring(1, x.length() - 1);
        }
        return x;
    }

    private static final class UnknownTable extends RuntimeException {
        UnknownTable(String table) {
            super(table, null, false, false);
        }
    }

    private static final class NoDatabase extends RuntimeException {
        NoDatabase() {
            super("No database selected", null, false, false);
        }
    }
}
