package io.tributary.core.schema;

import io.tributary.core.event.BinlogFlavor;
import java.math.BigDecimal;
import java.util.Locale;

/**
 * {@code SHOW CREATE TABLE} and {@code SHOW CREATE DATABASE} text of the logical schema, as MariaDB 10.11 or MySQL
 * 8.0 prints it: integer display widths (MariaDB) or none (MySQL, except {@code tinyint(1)}), defaults unquoted for
 * numbers (MariaDB) or quoted (MySQL), {@code current_timestamp()} or {@code CURRENT_TIMESTAMP}, a column's
 * character set only where it differs from the table's, keys in the server's order, then the table options.
 * Stateless.
 */
public final class CreateTableText {

    private CreateTableText() {
    }

    /** The {@code Create Table} column of {@code SHOW CREATE TABLE}. */
    public static String render(SchemaTable t, BinlogFlavor flavor) {
        StringBuilder sb = new StringBuilder("CREATE TABLE ").append(quote(t.name().table())).append(" (\n");
        boolean first = true;
        for (SchemaColumn c : t.columns()) {
            sb.append(first ? "" : ",\n").append("  ").append(column(c, t, flavor));
            first = false;
        }
        for (SchemaIndex i : t.indexes()) {
            sb.append(",\n  ").append(index(i));
        }
        sb.append("\n) ENGINE=").append(t.engine()).append(" DEFAULT CHARSET=").append(t.charset());
        if (flavor.isMariaDb() || !t.collation().equals(SqlTypes.defaultCollation(t.charset(), flavor))
                || t.charset().equals("utf8mb4")) {
            sb.append(" COLLATE=").append(t.collation());
        }
        for (String o : t.options()) {
            sb.append(' ').append(o);
        }
        if (t.comment() != null) {
            sb.append(" COMMENT=").append(literal(t.comment()));
        }
        return sb.toString();
    }

    /** The {@code Create Database} column of {@code SHOW CREATE DATABASE}. */
    public static String renderDatabase(SchemaDatabase d, BinlogFlavor flavor) {
        String s = "CREATE DATABASE " + quote(d.name()) + " /*!40100 DEFAULT CHARACTER SET " + d.charset();
        if (flavor.isMariaDb() || !d.collation().equals(SqlTypes.defaultCollation(d.charset(), flavor))
                || d.charset().equals("utf8mb4")) {
            s += " COLLATE " + d.collation();
        }
        s += " */";
        if (!flavor.isMariaDb()) {
            s += " /*!80016 DEFAULT ENCRYPTION='N' */";
        }
        return s;
    }

    /** A column's type as {@code information_schema.COLUMNS.COLUMN_TYPE} and {@code SHOW COLUMNS} give it. */
    public static String columnType(SchemaColumn c, BinlogFlavor flavor) {
        String type = c.type();
        String args = c.args();
        if (type.equals("json") && flavor.isMariaDb()) {
            return "longtext";
        }
        if (SqlTypes.isInteger(type)) {
            if (flavor.isMariaDb()) {
                args = args != null ? args : String.valueOf(SqlTypes.displayWidth(type, c.unsigned()));
            } else if (!(c.zerofill() || (type.equals("tinyint") && "1".equals(args)))) {
                args = null;
            }
        }
        if (type.equals("year") && args == null && flavor.isMariaDb()) {
            args = "4";
        }
        StringBuilder sb = new StringBuilder(type);
        if (args != null) {
            sb.append('(').append(args).append(')');
        }
        if (c.unsigned()) {
            sb.append(" unsigned");
        }
        if (c.zerofill()) {
            sb.append(" zerofill");
        }
        return sb.toString();
    }

    static String column(SchemaColumn c, SchemaTable t, BinlogFlavor flavor) {
        StringBuilder sb = new StringBuilder(quote(c.name())).append(' ').append(columnType(c, flavor));
        if (c.extra() != null && c.extra().startsWith("GENERATED ALWAYS AS ")) {
            // a generated column: its expression, and what the server prints after it
            sb.append(' ').append(c.extra());
            if (c.comment() != null) {
                sb.append(" COMMENT ").append(literal(c.comment()));
            }
            return sb.toString();
        }
        boolean json = c.type().equals("json");
        if (json && flavor.isMariaDb()) {
            if (!"utf8mb4".equals(t.charset()) || !"utf8mb4_bin".equals(t.collation())) {
                sb.append(" CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
            }
        } else if (c.charset() != null && !c.collation().equals(t.collation())) {
            if (flavor.isMariaDb() || !c.charset().equals(t.charset())) {
                sb.append(" CHARACTER SET ").append(c.charset());
            }
            sb.append(" COLLATE ").append(c.collation());
        }
        if (!c.nullable()) {
            sb.append(" NOT NULL");
        } else if (c.type().equals("timestamp")) {
            sb.append(" NULL");
        }
        ColumnDefault d = c.defaultValue();
        if (d == null && c.nullable() && !c.autoIncrement() && (flavor.isMariaDb() || !SqlTypes.isBlobLike(c.type()))) {
            d = ColumnDefault.NULL;
        }
        if (d != null) {
            sb.append(" DEFAULT ").append(defaultText(d, c, flavor));
        }
        if (c.onUpdate() != null) {
            sb.append(" ON UPDATE ").append(expression(c.onUpdate(), flavor));
        }
        if (c.autoIncrement()) {
            sb.append(" AUTO_INCREMENT");
        }
        if (c.comment() != null) {
            sb.append(" COMMENT ").append(literal(c.comment()));
        }
        if (c.extra() != null) {
            sb.append(' ').append(c.extra());
        }
        if (json && flavor.isMariaDb()) {
            sb.append(" CHECK (json_valid(").append(quote(c.name())).append("))");
        }
        return sb.toString();
    }

    /** A default as the flavor prints it ({@code 5} or {@code '5'}, {@code current_timestamp()} or {@code CURRENT_TIMESTAMP}). */
    public static String defaultText(ColumnDefault d, SchemaColumn c, BinlogFlavor flavor) {
        return switch (d.kind()) {
            case NULL -> "NULL";
            case EXPRESSION -> expression(d.text(), flavor);
            case LITERAL -> {
                String v = d.text();
                if (SqlTypes.isNumeric(c.type()) && !c.type().equals("bit")) {
                    v = numeric(v, c);
                    yield flavor.isMariaDb() ? v : literal(v);
                }
                yield literal(v);
            }
        };
    }

    /** The value of a default as {@code information_schema.COLUMNS.COLUMN_DEFAULT} holds it on the flavor. */
    public static String defaultValue(ColumnDefault d, SchemaColumn c, BinlogFlavor flavor) {
        if (d == null) {
            return null;
        }
        return switch (d.kind()) {
            case NULL -> flavor.isMariaDb() ? "NULL" : null;
            case EXPRESSION -> expression(d.text(), flavor);
            case LITERAL -> {
                String v = SqlTypes.isNumeric(c.type()) && !c.type().equals("bit") ? numeric(d.text(), c) : d.text();
                yield flavor.isMariaDb() && !SqlTypes.isNumeric(c.type()) ? literal(v) : v;
            }
        };
    }

    private static String numeric(String v, SchemaColumn c) {
        if (c.type().equals("decimal")) {
            int scale = 0;
            if (c.args() != null && c.args().contains(",")) {
                scale = Integer.parseInt(c.args().substring(c.args().indexOf(',') + 1).strip());
            }
            try {
                return new BigDecimal(v).setScale(scale, java.math.RoundingMode.HALF_UP).toPlainString();
            } catch (NumberFormatException e) {
                return v;
            }
        }
        return v;
    }

    /** {@code current_timestamp(3)} in the flavor's spelling. */
    static String expression(String e, BinlogFlavor flavor) {
        if (flavor.isMariaDb()) {
            return e;
        }
        String lower = e.toLowerCase(Locale.ROOT);
        if (lower.startsWith("current_timestamp")) {
            String args = lower.substring("current_timestamp".length());
            return "CURRENT_TIMESTAMP" + (args.equals("()") ? "" : args);
        }
        return e;
    }

    static String index(SchemaIndex i) {
        StringBuilder sb = new StringBuilder();
        switch (i.kind()) {
            case PRIMARY -> sb.append("PRIMARY KEY ");
            case UNIQUE -> sb.append("UNIQUE KEY ").append(quote(i.name())).append(' ');
            case KEY -> sb.append("KEY ").append(quote(i.name())).append(' ');
            case FULLTEXT -> sb.append("FULLTEXT KEY ").append(quote(i.name())).append(' ');
            case SPATIAL -> sb.append("SPATIAL KEY ").append(quote(i.name())).append(' ');
        }
        sb.append('(');
        boolean first = true;
        for (SchemaIndex.Part p : i.columns()) {
            sb.append(first ? "" : ",").append(quote(p.column()));
            if (p.length() != null) {
                sb.append('(').append(p.length()).append(')');
            }
            first = false;
        }
        sb.append(')');
        if (i.comment() != null) {
            sb.append(" COMMENT ").append(literal(i.comment()));
        }
        return sb.toString();
    }

    /** An identifier in backquotes. */
    public static String quote(String identifier) {
        return "`" + identifier.replace("`", "``") + "`";
    }

    /** A string literal as a server prints it. */
    public static String literal(String value) {
        return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'";
    }
}
