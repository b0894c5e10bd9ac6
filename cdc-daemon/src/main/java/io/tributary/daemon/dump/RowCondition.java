package io.tributary.daemon.dump;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.expression.BinaryExpression;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.NotExpression;
import net.sf.jsqlparser.expression.NullValue;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.conditional.OrExpression;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.InExpression;
import net.sf.jsqlparser.expression.operators.relational.IsNullExpression;
import net.sf.jsqlparser.expression.operators.relational.LikeExpression;
import net.sf.jsqlparser.expression.operators.relational.NotEqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Column;

/**
 * A {@code WHERE} condition over the rows of a {@code SHOW} statement or an {@code information_schema} table, parsed
 * by JSqlParser: {@code AND}, {@code OR}, {@code NOT}, parentheses, {@code =}, {@code <>}/{@code !=}, {@code [NOT]
 * LIKE}, {@code [NOT] IN (...)}, {@code IS [NOT] NULL} between columns and string or number literals. Comparisons
 * ignore case, as the {@code utf8mb3_general_ci} columns of {@code information_schema} do. Immutable.
 */
final class RowCondition {

    /** A condition this evaluator does not handle. */
    static final class Unsupported extends RuntimeException {
        Unsupported(String message) {
            super(message);
        }
    }

    static final RowCondition ALL = new RowCondition(null);

    private final Expression where;

    private RowCondition(Expression where) {
        this.where = where;
    }

    /** Parses the text after {@code WHERE}. */
    static RowCondition parse(String where) {
        try {
            return new RowCondition(CCJSqlParserUtil.parseCondExpression(where));
        } catch (JSQLParserException e) {
            throw new Unsupported("cannot parse WHERE " + where);
        }
    }

    static RowCondition of(Expression where) {
        return where == null ? ALL : new RowCondition(where);
    }

    /** {@code column LIKE 'pattern'}. */
    static RowCondition like(String column, String pattern) {
        LikeExpression l = new LikeExpression();
        l.setLeftExpression(new Column(column));
        l.setRightExpression(new StringValue(pattern));
        return new RowCondition(l);
    }

    /** Whether the row (column name, any case, to value; null for SQL NULL) matches. */
    boolean test(Map<String, String> row) {
        return where == null || Boolean.TRUE.equals(truth(where, row));
    }

    /** Three-valued: TRUE, FALSE or null (unknown). */
    private Boolean truth(Expression e, Map<String, String> row) {
        if (e instanceof AndExpression a) {
            Boolean l = truth(a.getLeftExpression(), row);
            Boolean r = truth(a.getRightExpression(), row);
            return Boolean.FALSE.equals(l) || Boolean.FALSE.equals(r) ? Boolean.FALSE : l == null || r == null ? null : true;
        }
        if (e instanceof OrExpression o) {
            Boolean l = truth(o.getLeftExpression(), row);
            Boolean r = truth(o.getRightExpression(), row);
            return Boolean.TRUE.equals(l) || Boolean.TRUE.equals(r) ? Boolean.TRUE : l == null || r == null ? null : false;
        }
        if (e instanceof NotExpression n) {
            Boolean v = truth(n.getExpression(), row);
            return v == null ? null : !v;
        }
        if (e instanceof ParenthesedExpressionList<?> p && p.size() == 1) {
            return truth(p.get(0), row);
        }
        if (e instanceof EqualsTo eq) {
            return compare(eq.getLeftExpression(), eq.getRightExpression(), row, true);
        }
        if (e instanceof NotEqualsTo ne) {
            return compare(ne.getLeftExpression(), ne.getRightExpression(), row, false);
        }
        if (e instanceof LikeExpression l) {
            String v = value(l.getLeftExpression(), row);
            String p = value(l.getRightExpression(), row);
            if (v == null || p == null) {
                return null;
            }
            boolean m = SqlText.like(v.toLowerCase(Locale.ROOT), p.toLowerCase(Locale.ROOT));
            return l.isNot() != m;
        }
        if (e instanceof InExpression in && (in.getRightExpression() instanceof AndExpression
                || in.getRightExpression() instanceof OrExpression)) {
            // JSqlParser 5.3 reads "a IN (x) OR b = 1" as "a IN ((x) OR b = 1)": give the IN its list back
            BinaryExpression b = (BinaryExpression) in.getRightExpression();
            InExpression inner = new InExpression(in.getLeftExpression(), b.getLeftExpression());
            inner.setNot(in.isNot());
            return truth(b instanceof AndExpression ? new AndExpression(inner, b.getRightExpression())
                    : new OrExpression(inner, b.getRightExpression()), row);
        }
        if (e instanceof InExpression in) {
            String v = value(in.getLeftExpression(), row);
            if (v == null) {
                return null;
            }
            boolean found = false;
            Expression right = in.getRightExpression();
            if (right instanceof net.sf.jsqlparser.statement.select.Select) {
                throw new Unsupported("IN with a subquery");
            }
            List<? extends Expression> items = right instanceof ExpressionList<?> list ? list : List.of(right);
            for (Expression x : items) {
                String c = value(x, row);
                found |= c != null && c.equalsIgnoreCase(v);
            }
            return in.isNot() != found;
        }
        if (e instanceof IsNullExpression isNull) {
            return isNull.isNot() != (value(isNull.getLeftExpression(), row) == null);
        }
        throw new Unsupported("condition " + e);
    }

    private Boolean compare(Expression l, Expression r, Map<String, String> row, boolean equal) {
        String a = value(l, row);
        String b = value(r, row);
        if (a == null || b == null) {
            return null;
        }
        return a.equalsIgnoreCase(b) == equal;
    }

    private String value(Expression e, Map<String, String> row) {
        if (e instanceof StringValue s) {
            return s.getValue().replace("''", "'");
        }
        if (e instanceof LongValue n) {
            return n.getStringValue();
        }
        if (e instanceof NullValue) {
            return null;
        }
        if (e instanceof Column c) {
            String name = c.getColumnName().replace("`", "");
            for (Map.Entry<String, String> x : row.entrySet()) {
                if (x.getKey().equalsIgnoreCase(name)) {
                    return x.getValue();
                }
            }
            throw new UnknownColumn(name);
        }
        if (e instanceof ParenthesedExpressionList<?> p && p.size() == 1) {
            return value(p.get(0), row);
        }
        throw new Unsupported("value " + e);
    }

    /** A column the rows do not have: error 1054. */
    static final class UnknownColumn extends RuntimeException {
        UnknownColumn(String column) {
            super(column);
        }
    }

    static List<String> columnsOf(Map<String, String> row) {
        return List.copyOf(row.keySet());
    }
}
