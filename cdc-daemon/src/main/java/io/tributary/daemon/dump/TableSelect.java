package io.tributary.daemon.dump;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.packet.ColumnDefinition;
import io.tributary.core.packet.ErrPacket;
import io.tributary.core.schema.LogicalSchema;
import io.tributary.core.schema.SchemaColumn;
import io.tributary.core.schema.SchemaTable;
import io.tributary.core.schema.TableName;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.expression.BinaryExpression;
import net.sf.jsqlparser.expression.DateTimeLiteralExpression;
import net.sf.jsqlparser.expression.DateValue;
import net.sf.jsqlparser.expression.DoubleValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.HexValue;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.NotExpression;
import net.sf.jsqlparser.expression.NullValue;
import net.sf.jsqlparser.expression.Parenthesis;
import net.sf.jsqlparser.expression.SignedExpression;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.TimeValue;
import net.sf.jsqlparser.expression.TimestampValue;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.conditional.OrExpression;
import net.sf.jsqlparser.expression.operators.relational.Between;
import net.sf.jsqlparser.expression.operators.relational.ComparisonOperator;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.InExpression;
import net.sf.jsqlparser.expression.operators.relational.IsNullExpression;
import net.sf.jsqlparser.expression.operators.relational.LikeExpression;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.Limit;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.SelectItem;

/**
 * Plans a {@code SELECT} over a logical table, answered from the physical tables on the shards ({@link ShardSelect}):
 * <pre>
 * SELECT * | col [AS label], ...            FROM [db.]table [WHERE condition] [ORDER BY col [ASC|DESC], ...]
 *                                                                           [LIMIT n [OFFSET m] | LIMIT m, n]
 * SELECT COUNT(*) | COUNT(col) | MIN(col) | MAX(col) [AS label], ... FROM [db.]table [WHERE condition] [LIMIT ...]
 * SELECT MIN(col) | MAX(col) [AS label] FROM (SELECT col FROM [db.]table [WHERE condition] ORDER BY col [ASC|DESC]
 *                                            LIMIT n [OFFSET m]) [AS] alias
 * </pre>
 * The last form is how Flink CDC finds where the next chunk of a key that is not evenly spread ends ({@code SELECT
 * MAX(id) FROM (SELECT id FROM t WHERE id >= ? ORDER BY id ASC LIMIT 8096) AS T}): the inner window is merged as any
 * ordered query is, and its first or last row is the answer ({@link Plan#pick}), NULL when the window is empty.
 * where the condition combines columns of the table and literals with {@code = <> != < <= > >= BETWEEN IN LIKE
 * IS [NOT] NULL AND OR NOT} and parentheses; it is passed to every shard as written (table qualifiers dropped). Each
 * shard runs {@code SELECT <the logical columns, by name; numbers but floats, and times as CAST(col AS CHAR)> FROM
 * <physical table> [WHERE ...] [ORDER BY ...]
 * [LIMIT offset+n]}, plus the hidden sort keys the merge compares ({@link LogicalColumn#order}); the daemon merges,
 * applies the window and renames. Anything else (joins, subqueries, GROUP BY, HAVING, DISTINCT, other functions or
 * expressions, locking clauses, UNION) is refused with error 1235 naming what is served; an unknown table is 1146,
 * an unknown column 1054, no database 1046. Stateless.
 */
final class TableSelect {

    static final String SERVED = "a SELECT over a logical table serves: SELECT * or columns, or COUNT(*), COUNT(col),"
            + " MIN(col), MAX(col); FROM one table; WHERE with =, <>, <, <=, >, >=, BETWEEN, IN, LIKE, IS [NOT] NULL,"
            + " AND, OR, NOT on its columns and literals; ORDER BY its columns; LIMIT [OFFSET]; MIN/MAX(col) FROM"
            + " (SELECT col FROM table ... ORDER BY col LIMIT n) alias";

    /** Which row of an ordered window answers a {@code MIN}/{@code MAX} over it. */
    enum Pick {
        FIRST, LAST
    }

    /** An aggregate of the select list: {@code kind} of column {@code column} (null for {@code COUNT(*)}). */
    record Aggregate(String kind, SchemaColumn column, String label) {
    }

    /**
     * A planned statement.
     *
     * @param table       the logical table
     * @param columns     the result's column definitions
     * @param selected    the logical columns selected, in order (empty for aggregates)
     * @param aggregates  the aggregates selected, in order (empty for rows)
     * @param where       the condition as sent to the shards, or null
     * @param orderBy     the ORDER BY columns; {@code ascending} in step
     * @param ascending   per ORDER BY column
     * @param offset      rows skipped
     * @param limit       rows returned at most ({@code Long.MAX_VALUE}: no limit)
     * @param pick        null: every row of the window is returned; else only its first or last row (one row,
     *                    NULL when the window is empty): a MIN/MAX over an ordered window, {@code columns} its one column
     */
    record Plan(SchemaTable table, List<ColumnDefinition> columns, List<SchemaColumn> selected,
            List<Aggregate> aggregates, String where, List<SchemaColumn> orderBy, boolean[] ascending, long offset,
            long limit, Pick pick) {

        Plan(SchemaTable table, List<ColumnDefinition> columns, List<SchemaColumn> selected,
                List<Aggregate> aggregates, String where, List<SchemaColumn> orderBy, boolean[] ascending, long offset,
                long limit) {
            this(table, columns, selected, aggregates, where, orderBy, ascending, offset, limit, null);
        }

        boolean isAggregate() {
            return !aggregates.isEmpty();
        }

        /** The statement a shard runs on one of its physical tables. */
        String shardQuery(String physicalDatabase, String physicalTable) {
            StringBuilder sb = new StringBuilder("SELECT ");
            List<String> items = new ArrayList<>();
            if (isAggregate()) {
                for (Aggregate a : aggregates) {
                    if (a.column() == null) {
                        items.add("COUNT(*)");
                    } else {
                        String expr = a.kind() + "(" + quote(a.column().name()) + ")";
                        items.add(expr);
                        if (!a.kind().equals("COUNT")) {
                            items.add(a.column().isCharacterType() && !"binary".equals(a.column().charset())
                                    ? LogicalColumn.weightOf(a.column(), expr) : expr);
                        }
                    }
                }
            } else {
                for (SchemaColumn c : selected) {
                    // not aliased: ORDER BY `col` still names the column, not the cast
                    items.add(LogicalColumn.readAsText(c) ? "CAST(" + quote(c.name()) + " AS CHAR)" : quote(c.name()));
                }
                for (SchemaColumn c : orderBy) {
                    items.add(LogicalColumn.orderedByWeight(c) ? LogicalColumn.weightOf(c, quote(c.name()))
                            : LogicalColumn.orderedByNumber(c) ? "(" + quote(c.name()) + "+0)" : quote(c.name()));
                }
            }
            sb.append(String.join(", ", items)).append(" FROM ").append(quote(physicalDatabase)).append('.')
                    .append(quote(physicalTable));
            if (where != null) {
                sb.append(" WHERE ").append(where);
            }
            if (!isAggregate()) {
                if (!orderBy.isEmpty()) {
                    List<String> keys = new ArrayList<>();
                    for (int i = 0; i < orderBy.size(); i++) {
                        keys.add(quote(orderBy.get(i).name()) + (ascending[i] ? " ASC" : " DESC"));
                    }
                    sb.append(" ORDER BY ").append(String.join(", ", keys));
                }
                if (limit != Long.MAX_VALUE) {
                    long n = offset + limit < 0 ? Long.MAX_VALUE : offset + limit;
                    sb.append(" LIMIT ").append(n);
                }
            }
            return sb.toString();
        }
    }

    /** A statement refused with this error. */
    static final class Refused extends RuntimeException {
        private final transient ErrPacket error;

        Refused(ErrPacket error) {
            super(error.message(), null, false, false);
            this.error = error;
        }

        ErrPacket error() {
            return error;
        }
    }

    private TableSelect() {
    }

    /**
     * The plan of {@code sql} (normalised), or null when it is no {@code SELECT ... FROM} a table (the responder
     * answers it otherwise).
     *
     * @throws Refused when the statement is outside what is served, or names an unknown table or column
     */
    static Plan plan(String sql, String sessionDatabase, LogicalSchema schema, BinlogFlavor flavor) {
        Statement st;
        try {
            st = CCJSqlParserUtil.parse(sql);
        } catch (JSQLParserException e) {
            return null; // the responder's syntax check answers 1064
        }
        if (!(st instanceof PlainSelect ps)) {
            if (st instanceof net.sf.jsqlparser.statement.select.Select) {
                throw unsupported("UNION, VALUES and parenthesised queries are not served");
            }
            return null;
        }
        if (ps.getFromItem() == null) {
            return null;
        }
        if (ps.getFromItem() instanceof ParenthesedSelect sub && sub.getSelect() instanceof PlainSelect inner) {
            return boundaryOfWindow(ps, inner, sessionDatabase, schema, flavor);
        }
        if (!(ps.getFromItem() instanceof Table from) || ps.getFromItem().getPivot() != null) {
            throw unsupported("FROM a subquery is not served");
        }
        if (from.getSchemaName() == null && from.getName().equalsIgnoreCase("DUAL")) {
            return null; // SELECT of expressions, answered by the responder
        }
        if (ps.getJoins() != null && !ps.getJoins().isEmpty()) {
            throw unsupported("joins are not served");
        }
        if (ps.getGroupBy() != null || ps.getHaving() != null) {
            throw unsupported("GROUP BY and HAVING are not served");
        }
        if (ps.getDistinct() != null) {
            throw unsupported("DISTINCT is not served");
        }
        if (ps.getForMode() != null || ps.getIntoTables() != null || ps.getWithItemsList() != null
                || ps.getWindowDefinitions() != null || ps.getFetch() != null) {
            throw unsupported("locking clauses (FOR UPDATE, LOCK IN SHARE MODE), INTO, WITH, WINDOW and FETCH are not served");
        }
        String db = from.getSchemaName() != null ? SchemaStatements.id(from.getSchemaName()) : sessionDatabase;
        String name = SchemaStatements.id(from.getName());
        if (db == null) {
            throw new Refused(new ErrPacket(SchemaStatements.ER_NO_DB_ERROR, "3D000", "No database selected"));
        }
        SchemaTable table = schema.table(new TableName(db, name)).orElseThrow(() -> new Refused(new ErrPacket(
                SchemaStatements.ER_NO_SUCH_TABLE, "42S02", "Table '" + db + "." + name + "' doesn't exist")));
        String alias = from.getAlias() == null ? null : SchemaStatements.id(from.getAlias().getName());

        List<ColumnDefinition> defs = new ArrayList<>();
        List<SchemaColumn> selected = new ArrayList<>();
        List<Aggregate> aggregates = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        for (SelectItem<?> item : ps.getSelectItems()) {
            Expression e = item.getExpression();
            String label = item.getAlias() == null ? null : SchemaStatements.id(item.getAlias().getName());
            if (e instanceof AllColumns && !(e instanceof AllTableColumns)) {
                for (SchemaColumn c : table.columns()) {
                    selected.add(c);
                    labels.add(c.name());
                    defs.add(LogicalColumn.definition(table, c, c.name(), flavor));
                }
            } else if (e instanceof AllTableColumns atc) {
                checkQualifier(atc.getTable(), table, alias);
                for (SchemaColumn c : table.columns()) {
                    selected.add(c);
                    labels.add(c.name());
                    defs.add(LogicalColumn.definition(table, c, c.name(), flavor));
                }
            } else if (e instanceof Column col) {
                SchemaColumn c = column(table, alias, col, "field list");
                String shown = label != null ? label : SchemaStatements.id(col.getColumnName());
                selected.add(c);
                labels.add(shown);
                defs.add(LogicalColumn.definition(table, c, shown, flavor));
            } else if (e instanceof Function f) {
                Aggregate a = aggregate(table, alias, f, label != null ? label : f.toString());
                aggregates.add(a);
                defs.add(a.column() == null || a.kind().equals("COUNT") ? LogicalColumn.count(a.label())
                        : LogicalColumn.definition(table, a.column().withNullable(true), a.label(), flavor));
            } else {
                throw unsupported("the select list item '" + e + "' is not served");
            }
        }
        if (!selected.isEmpty() && !aggregates.isEmpty()) {
            throw unsupported("columns mixed with aggregates (which need GROUP BY) are not served");
        }

        String where = null;
        if (ps.getWhere() != null) {
            checkCondition(ps.getWhere(), table, alias);
            where = ps.getWhere().toString();
        }

        List<SchemaColumn> orderBy = new ArrayList<>();
        List<Boolean> asc = new ArrayList<>();
        if (ps.getOrderByElements() != null) {
            if (!aggregates.isEmpty()) {
                throw unsupported("ORDER BY with aggregates is not served");
            }
            for (OrderByElement o : ps.getOrderByElements()) {
                if (o.getNullOrdering() != null) {
                    throw unsupported("NULLS FIRST/LAST is not served");
                }
                SchemaColumn c = orderColumn(table, alias, o.getExpression(), selected, labels);
                if (LogicalColumn.order(c) == null) {
                    throw unsupported("ORDER BY a " + c.type() + " column is not served");
                }
                orderBy.add(c);
                asc.add(o.isAsc());
            }
        }
        boolean[] ascending = new boolean[asc.size()];
        for (int i = 0; i < ascending.length; i++) {
            ascending[i] = asc.get(i);
        }

        long offset = 0;
        long limit = Long.MAX_VALUE;
        Limit l = ps.getLimit();
        if (l != null) {
            if (l.getRowCount() != null) {
                limit = number(l.getRowCount(), "LIMIT");
            }
            if (l.getOffset() != null) {
                offset = number(l.getOffset(), "OFFSET");
            }
        }
        if (ps.getOffset() != null) {
            offset = number(ps.getOffset().getOffset(), "OFFSET");
        }
        return new Plan(table, defs, selected, aggregates, where, orderBy, ascending, offset, limit);
    }

    /**
     * {@code SELECT MIN(c)|MAX(c) [AS label] FROM (SELECT c FROM t ... ORDER BY c LIMIT n) alias}: the inner query
     * planned as any, answered by the first or last row of its window.
     */
    private static Plan boundaryOfWindow(PlainSelect outer, PlainSelect inner, String sessionDatabase,
                                         LogicalSchema schema, BinlogFlavor flavor) {
        String refused = "FROM a subquery is not served but as MIN(col) or MAX(col) over (SELECT col FROM table ..."
                + " ORDER BY col LIMIT n)";
        if (outer.getJoins() != null && !outer.getJoins().isEmpty() || outer.getWhere() != null
                || outer.getGroupBy() != null || outer.getHaving() != null || outer.getOrderByElements() != null
                || outer.getLimit() != null || outer.getOffset() != null || outer.getDistinct() != null
                || outer.getSelectItems().size() != 1
                || !(outer.getSelectItems().get(0).getExpression() instanceof Function f)
                || f.getParameters() == null || f.getParameters().size() != 1
                || !(f.getParameters().get(0) instanceof Column arg)) {
            throw unsupported(refused);
        }
        String kind = f.getName().toUpperCase(Locale.ROOT);
        Plan p = plan(inner.toString(), sessionDatabase, schema, flavor);
        if (p == null || (!kind.equals("MIN") && !kind.equals("MAX")) || p.isAggregate() || p.selected().size() != 1
                || p.orderBy().size() != 1 || !p.orderBy().get(0).name().equalsIgnoreCase(p.selected().get(0).name())
                || !p.selected().get(0).name().equalsIgnoreCase(SchemaStatements.id(arg.getColumnName()))
                || p.limit() == Long.MAX_VALUE) {
            throw unsupported(refused);
        }
        // ascending: MIN is the first row, MAX the last; descending the other way round
        Pick pick = kind.equals("MIN") == p.ascending()[0] ? Pick.FIRST : Pick.LAST;
        var item = outer.getSelectItems().get(0);
        String label = item.getAlias() != null ? SchemaStatements.id(item.getAlias().getName()) : f.toString();
        List<ColumnDefinition> defs = List.of(LogicalColumn.definition(p.table(), p.selected().get(0).withNullable(true),
                label, flavor));
        return new Plan(p.table(), defs, p.selected(), p.aggregates(), p.where(), p.orderBy(), p.ascending(),
                p.offset(), p.limit(), pick);
    }

    private static long number(Expression e, String what) {
        if (e instanceof LongValue v && v.getValue() >= 0) {
            return v.getValue();
        }
        throw unsupported(what + " " + e + " is not served (a non-negative number is)");
    }

    private static Aggregate aggregate(SchemaTable table, String alias, Function f, String label) {
        String kind = f.getName().toUpperCase(Locale.ROOT);
        if (!(kind.equals("COUNT") || kind.equals("MIN") || kind.equals("MAX")) || f.isDistinct() || f.isUnique()
                || f.getOrderByElements() != null || f.getKeep() != null) {
            throw unsupported("the function " + f + " is not served (COUNT(*), COUNT(col), MIN(col), MAX(col) are)");
        }
        if (kind.equals("COUNT") && f.isAllColumns()) {
            return new Aggregate(kind, null, label);
        }
        ExpressionList<?> params = f.getParameters();
        if (params != null && params.size() == 1 && params.get(0) instanceof AllColumns && kind.equals("COUNT")) {
            return new Aggregate(kind, null, label);
        }
        if (params == null || params.size() != 1 || !(params.get(0) instanceof Column col)) {
            throw unsupported("the function " + f + " is not served (COUNT(*), COUNT(col), MIN(col), MAX(col) are)");
        }
        SchemaColumn c = column(table, alias, col, "field list");
        if (!kind.equals("COUNT") && LogicalColumn.order(c) == null) {
            throw unsupported(kind + " of a " + c.type() + " column is not served");
        }
        return new Aggregate(kind, c, label);
    }

    private static SchemaColumn orderColumn(SchemaTable table, String alias, Expression e, List<SchemaColumn> selected,
            List<String> labels) {
        if (e instanceof Column col) {
            if (col.getTable() == null) {
                String n = SchemaStatements.id(col.getColumnName());
                for (int i = 0; i < labels.size(); i++) {
                    if (labels.get(i).equalsIgnoreCase(n)) {
                        return selected.get(i);
                    }
                }
            }
            return column(table, alias, col, "order clause");
        }
        if (e instanceof LongValue v && v.getValue() >= 1 && v.getValue() <= selected.size()) {
            return selected.get((int) v.getValue() - 1);
        }
        throw unsupported("ORDER BY " + e + " is not served (ORDER BY columns of the table is)");
    }

    /** The column {@code col} names; its table qualifier, if any, is checked and dropped. */
    private static SchemaColumn column(SchemaTable table, String alias, Column col, String clause) {
        if (col.getTable() != null && col.getTable().getName() != null) {
            checkQualifier(col.getTable(), table, alias);
            col.setTable(null);
        }
        String n = SchemaStatements.id(col.getColumnName());
        return table.columns().stream().filter(c -> c.name().equalsIgnoreCase(n)).findFirst().orElseThrow(() ->
                new Refused(new ErrPacket(SchemaStatements.ER_BAD_FIELD_ERROR, "42S22", "Unknown column '" + n
                        + "' in '" + clause + "'")));
    }

    private static void checkQualifier(Table t, SchemaTable table, String alias) {
        String q = SchemaStatements.id(t.getName());
        boolean ok = alias != null ? q.equalsIgnoreCase(alias) : q.equalsIgnoreCase(table.name().table())
                && (t.getSchemaName() == null || SchemaStatements.id(t.getSchemaName())
                        .equalsIgnoreCase(table.name().database()));
        if (!ok) {
            throw new Refused(new ErrPacket(SchemaStatements.ER_BAD_FIELD_ERROR, "42S22", "Unknown table '" + q + "'"));
        }
    }

    /** Checks that the condition only uses what is served; drops table qualifiers from its columns. */
    private static void checkCondition(Expression e, SchemaTable table, String alias) {
        if (e instanceof AndExpression || e instanceof OrExpression || e instanceof ComparisonOperator
                || e instanceof LikeExpression) {
            if (e instanceof LikeExpression like && (like.getEscape() != null
                    || like.getLikeKeyWord() != LikeExpression.KeyWord.LIKE)) {
                throw unsupported("only plain LIKE is served in WHERE");
            }
            BinaryExpression b = (BinaryExpression) e;
            checkCondition(b.getLeftExpression(), table, alias);
            checkCondition(b.getRightExpression(), table, alias);
        } else if (e instanceof Between b) {
            checkCondition(b.getLeftExpression(), table, alias);
            checkCondition(b.getBetweenExpressionStart(), table, alias);
            checkCondition(b.getBetweenExpressionEnd(), table, alias);
        } else if (e instanceof InExpression in) {
            // JSqlParser 5.3 reads "a IN (1, 2) OR b IS NULL" as "a IN ((1, 2) OR b IS NULL)" and prints it back as
            // written: any right side made of what is served is accepted (a subquery is not)
            checkCondition(in.getLeftExpression(), table, alias);
            checkCondition(in.getRightExpression(), table, alias);
        } else if (e instanceof ExpressionList<?> list) {
            for (Expression x : list) {
                checkCondition(x, table, alias);
            }
        } else if (e instanceof IsNullExpression n) {
            checkCondition(n.getLeftExpression(), table, alias);
        } else if (e instanceof NotExpression n) {
            checkCondition(n.getExpression(), table, alias);
        } else if (e instanceof Parenthesis p) {
            checkCondition(p.getExpression(), table, alias);
        } else if (e instanceof SignedExpression s) {
            checkCondition(s.getExpression(), table, alias);
        } else if (e instanceof Column c) {
            column(table, alias, c, "where clause");
        } else if (!(e instanceof LongValue || e instanceof DoubleValue || e instanceof StringValue
                || e instanceof NullValue || e instanceof HexValue || e instanceof DateValue || e instanceof TimeValue
                || e instanceof TimestampValue || e instanceof DateTimeLiteralExpression)) {
            throw unsupported("'" + e + "' in WHERE is not served");
        }
    }

    private static Refused unsupported(String what) {
        return new Refused(new ErrPacket(QueryResponder.ER_NOT_SUPPORTED_YET, "42000", what + "; " + SERVED));
    }

    static String quote(String id) {
        return "`" + id.replace("`", "``") + "`";
    }
}
