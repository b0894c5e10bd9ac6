package io.tributary.core.schema;

import io.tributary.core.event.BinlogFlavor;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.alter.Alter;
import net.sf.jsqlparser.statement.alter.AlterExpression;
import net.sf.jsqlparser.statement.create.index.CreateIndex;
import net.sf.jsqlparser.statement.create.table.ColDataType;
import net.sf.jsqlparser.statement.create.table.ColumnDefinition;
import net.sf.jsqlparser.statement.create.table.CreateTable;
import net.sf.jsqlparser.statement.create.table.Index;

/**
 * Applies one DDL statement (logical names) to a {@link LogicalSchema}: {@code CREATE TABLE} (also {@code LIKE}),
 * {@code ALTER TABLE} ({@code ADD/DROP/MODIFY/CHANGE/RENAME COLUMN}, {@code ALTER COLUMN .. SET/DROP DEFAULT},
 * {@code ADD/DROP INDEX/KEY/PRIMARY KEY/UNIQUE}, {@code RENAME INDEX}, {@code RENAME TO}, {@code CONVERT TO
 * CHARACTER SET}, table options), {@code CREATE/DROP INDEX}, {@code RENAME TABLE}, {@code DROP TABLE},
 * {@code TRUNCATE} (no change), {@code CREATE/ALTER/DROP DATABASE}. Statements are parsed with JSqlParser 5.3; the
 * forms it does not parse ({@code CREATE/ALTER/DROP DATABASE}, {@code DROP TABLE} of several tables,
 * {@code DROP INDEX}) with a small tokenizer ({@link DdlTokens}).
 *
 * <p>The outcome is {@link Applied} (the new schema and what it touched), {@link Ignored} (not about tables:
 * views, routines, grants, DML) or {@link Failed} (a reason, for the caller to log with the position, and the
 * tables it names, so the caller can re-read them). Foreign keys and partitioning are not kept in the model.
 *
 * <p>Immutable and thread-safe.
 */
public final class SchemaDdl {

    /** What applying a statement did. */
    public sealed interface Outcome permits Applied, Ignored, Failed {
    }

    /** The statement changed (or, for {@code TRUNCATE}, left) the schema; {@code tables} were created, altered or dropped. */
    public record Applied(LogicalSchema schema, Set<TableName> tables, Set<String> databases) implements Outcome {
    }

    /** Not a statement about tables or databases. */
    public record Ignored(String what) implements Outcome {
    }

    /** The statement could not be applied; {@code tables} are those it names (as far as known). */
    public record Failed(String reason, Set<TableName> tables) implements Outcome {
    }

    private static final Pattern FIRST_WORDS = Pattern.compile(
            "(?is)^\\s*(CREATE|ALTER|DROP|RENAME|TRUNCATE)\\s+(?:OR\\s+REPLACE\\s+)?(?:TEMPORARY\\s+)?"
                    + "(?:ONLINE\\s+|OFFLINE\\s+|IGNORE\\s+)?(?:UNIQUE\\s+|FULLTEXT\\s+|SPATIAL\\s+)?(\\w+)");
    private static final Pattern JSON_CHECK = Pattern.compile("(?i)^\\(\\s*json_valid\\s*\\(\\s*`?([^`)]+)`?\\s*\\)\\s*\\)$");
    private static final Pattern INT = Pattern.compile("\\d+");
    private static final Pattern UNNAMED_KEY = Pattern.compile("(?i)(,\\s*)(UNIQUE\\s+|FULLTEXT\\s+|SPATIAL\\s+)?(?:KEY|INDEX)\\s*\\(");
    private static final String UNNAMED = "__tributary_unnamed_";

    private final BinlogFlavor flavor;

    public SchemaDdl(BinlogFlavor flavor) {
        this.flavor = Objects.requireNonNull(flavor, "flavor");
    }

    public BinlogFlavor flavor() {
        return flavor;
    }

    /**
     * @param schema          the schema before the statement
     * @param defaultDatabase the statement's default database (logical), or empty/null
     * @param sql             the statement with logical names
     */
    public Outcome apply(LogicalSchema schema, String defaultDatabase, String sql) {
        return apply(schema, defaultDatabase, sql, false);
    }

    /**
     * @param serverText the statement is a server's {@code SHOW CREATE TABLE} text: a generated column's expression
     *                   is in the server's spelling (in a DDL statement it may not be, so there it fails and the table
     *                   is read again from its shard)
     */
    private Outcome apply(LogicalSchema schema, String defaultDatabase, String sql, boolean serverText) {
        String stripped = stripComments(sql);
        Matcher m = FIRST_WORDS.matcher(stripped);
        if (!m.find()) {
            return new Ignored(firstWord(stripped));
        }
        String verb = m.group(1).toUpperCase(Locale.ROOT);
        String object = m.group(2).toUpperCase(Locale.ROOT);
        boolean temporary = stripped.toUpperCase(Locale.ROOT).matches("(?s)^\\s*\\w+\\s+(OR\\s+REPLACE\\s+)?TEMPORARY\\s.*");
        try {
            if (temporary) {
                return new Ignored(verb + " TEMPORARY TABLE");
            }
            if (object.equals("DATABASE") || object.equals("SCHEMA")) {
                return database(schema, verb, stripped);
            }
            switch (verb) {
                case "TRUNCATE" -> {
                    return new Applied(schema, Set.of(), Set.of());
                }
                case "DROP" -> {
                    if (object.equals("TABLE") || object.equals("TABLES")) {
                        return dropTables(schema, defaultDatabase, stripped);
                    }
                    if (object.equals("INDEX")) {
                        return dropIndex(schema, defaultDatabase, stripped);
                    }
                    return new Ignored("DROP " + object);
                }
                case "RENAME" -> {
                    return object.equals("TABLE") || object.equals("TABLES") ? rename(schema, defaultDatabase, stripped)
                            : new Ignored("RENAME " + object);
                }
                case "CREATE" -> {
                    if (object.equals("TABLE")) {
                        return createTable(schema, defaultDatabase, (CreateTable) parse(nameUnnamedKeys(stripped)),
                                serverText);
                    }
                    if (object.equals("INDEX")) {
                        return createIndex(schema, defaultDatabase, (CreateIndex) parse(stripped));
                    }
                    return new Ignored("CREATE " + object);
                }
                case "ALTER" -> {
                    if (object.equals("TABLE")) {
                        return alter(schema, defaultDatabase, (Alter) parse(stripped));
                    }
                    return new Ignored("ALTER " + object);
                }
                default -> {
                    return new Ignored(verb);
                }
            }
        } catch (JSQLParserException e) {
            String msg = e.getCause() != null ? e.getCause().getMessage() : e.getMessage();
            return new Failed("JSqlParser cannot parse it: " + firstLine(msg), Set.of());
        } catch (IllegalArgumentException | ClassCastException e) {
            return new Failed(e.getMessage(), Set.of());
        }
    }

    /** Parses a {@code SHOW CREATE TABLE} text into a table of database {@code database}. */
    public SchemaTable parseCreateTable(LogicalSchema schema, String database, String createTable) {
        Outcome o = apply(schema.withoutTable(new TableName(database, tableNameOf(createTable, database).table())),
                database, createTable, true);
        if (o instanceof Applied a && a.tables().size() == 1) {
            return a.schema().table(a.tables().iterator().next()).orElseThrow();
        }
        throw new IllegalArgumentException("not a CREATE TABLE statement the schema can hold: "
                + (o instanceof Failed f ? f.reason() : o.toString()));
    }

    private static TableName tableNameOf(String createTable, String database) {
        DdlTokens t = new DdlTokens(createTable);
        while (t.more() && !t.peek().is("TABLE")) {
            t.next();
        }
        t.expect("TABLE");
        if (t.accept("IF")) {
            t.expect("NOT");
            t.expect("EXISTS");
        }
        return t.tableName(database);
    }

    /**
     * JSqlParser 5.3 refuses an unnamed {@code KEY (a)} / {@code INDEX (a)} and {@code UNIQUE `k` (a)} in a
     * {@code CREATE TABLE}: they get a placeholder name (given back as "unnamed" by {@link #addIndex}).
     */
    static String nameUnnamedKeys(String sql) {
        Matcher m = UNNAMED_KEY.matcher(sql);
        StringBuilder sb = new StringBuilder();
        int n = 0;
        while (m.find()) {
            m.appendReplacement(sb, Matcher.quoteReplacement(m.group(1) + (m.group(2) == null ? "" : m.group(2)) + "KEY `"
                    + UNNAMED + (n++) + "` ("));
        }
        m.appendTail(sb);
        return sb.toString().replaceAll("(?i)([,(]\\s*UNIQUE)\\s+(`)", "$1 KEY $2");
    }

    private static Statement parse(String sql) throws JSQLParserException {
        return CCJSqlParserUtil.parse(quoteNegativeDefaults(sql), p -> p.withTimeOut(10_000));
    }

    /**
     * JSqlParser 5.3 refuses a negative number that is not an integer after {@code DEFAULT} ({@code DEFAULT -1.5},
     * {@code DEFAULT -2.5e-7}, as SHOW CREATE TABLE prints them): such a default is quoted ({@code DEFAULT '-1.5'}),
     * which the server reads alike and {@link #defaultOf} takes as the same literal. Quoted strings and quoted
     * names are left as they are.
     */
    static String quoteNegativeDefaults(String sql) {
        if (sql.indexOf('-') < 0) {
            return sql;
        }
        StringBuilder out = new StringBuilder(sql.length() + 8);
        int i = 0;
        int n = sql.length();
        while (i < n) {
            char ch = sql.charAt(i);
            if (ch == '\'' || ch == '"' || ch == '`') {
                int j = i + 1;
                while (j < n && sql.charAt(j) != ch) {
                    j += sql.charAt(j) == '\\' && ch != '`' ? 2 : 1;
                }
                j = Math.min(j + 1, n);
                out.append(sql, i, j);
                i = j;
                continue;
            }
            if ((ch == 'D' || ch == 'd') && (i == 0 || !Character.isLetterOrDigit(sql.charAt(i - 1))
                    && sql.charAt(i - 1) != '_')) {
                Matcher m = NEGATIVE_DEFAULT.matcher(sql).region(i, n);
                if (m.lookingAt()) {
                    out.append(m.group(1)).append('\'').append(m.group(2).replace(" ", "")).append('\'');
                    i = m.end();
                    continue;
                }
            }
            out.append(ch);
            i++;
        }
        return out.toString();
    }

    private static final Pattern NEGATIVE_DEFAULT = Pattern.compile(
            "(?i)(DEFAULT\\s+)(-\\s*(?:\\d+\\.\\d*|\\.\\d+|\\d+(?=[eE]))(?:[eE][-+]?\\d+)?)(?![\\w.])");

    // ---------------------------------------------------------------- databases

    private Outcome database(LogicalSchema schema, String verb, String sql) {
        DdlTokens t = new DdlTokens(sql);
        t.next();
        t.next(); // DATABASE / SCHEMA
        boolean ifExists = false;
        boolean ifNotExists = false;
        if (t.accept("IF")) {
            if (t.accept("NOT")) {
                ifNotExists = true;
            } else {
                ifExists = true;
            }
            t.expect("EXISTS");
        }
        String name = t.identifier();
        switch (verb) {
            case "DROP" -> {
                if (schema.database(name).isEmpty()) {
                    return ifExists ? new Applied(schema, Set.of(), Set.of())
                            : new Failed("Can't drop database '" + name + "'; database doesn't exist", Set.of());
                }
                Set<TableName> dropped = new LinkedHashSet<>();
                schema.tablesOf(name).forEach(x -> dropped.add(x.name()));
                return new Applied(schema.withoutDatabase(name), dropped, Set.of(name));
            }
            case "CREATE", "ALTER" -> {
                if (verb.equals("CREATE") && schema.database(name).isPresent() && ifNotExists) {
                    return new Applied(schema, Set.of(), Set.of());
                }
                if (verb.equals("ALTER") && schema.database(name).isEmpty()) {
                    return new Failed("Unknown database '" + name + "'", Set.of());
                }
                String charset = null;
                String collation = null;
                while (t.more()) {
                    if (t.accept("DEFAULT") || t.accept("=")) {
                        continue;
                    }
                    if (t.accept("CHARACTER")) {
                        t.expect("SET");
                        t.accept("=");
                        charset = SqlTypes.charset(t.next().text());
                    } else if (t.accept("CHARSET")) {
                        t.accept("=");
                        charset = SqlTypes.charset(t.next().text());
                    } else if (t.accept("COLLATE")) {
                        t.accept("=");
                        collation = SqlTypes.collation(t.next().text());
                    } else {
                        t.next(); // COMMENT '...', ENCRYPTION 'N': not kept
                    }
                }
                SchemaDatabase before = schema.database(name).orElse(null);
                String[] cc = resolve(charset, collation, verb.equals("ALTER") ? before.charset() : schema.charset(),
                        verb.equals("ALTER") ? before.collation() : schema.collation());
                return new Applied(schema.withDatabase(new SchemaDatabase(name, cc[0], cc[1])), Set.of(), Set.of(name));
            }
            default -> {
                return new Ignored(verb + " DATABASE");
            }
        }
    }

    /** Character set and collation from what a statement gives, else the defaults. */
    private String[] resolve(String charset, String collation, String defaultCharset, String defaultCollation) {
        if (charset != null && collation != null) {
            return new String[] {charset, collation};
        }
        if (charset != null) {
            return new String[] {charset, SqlTypes.defaultCollation(charset, flavor)};
        }
        if (collation != null) {
            return new String[] {SqlTypes.charsetOfCollation(collation), collation};
        }
        return new String[] {defaultCharset, defaultCollation};
    }

    // ---------------------------------------------------------------- DROP / RENAME

    private Outcome dropTables(LogicalSchema schema, String db, String sql) {
        DdlTokens t = new DdlTokens(sql);
        t.next();
        t.next();
        boolean ifExists = false;
        if (t.accept("IF")) {
            t.expect("EXISTS");
            ifExists = true;
        }
        Set<TableName> names = new LinkedHashSet<>();
        do {
            names.add(t.tableName(db));
        } while (t.accept(","));
        LogicalSchema s = schema;
        Set<TableName> dropped = new LinkedHashSet<>();
        List<String> unknown = new ArrayList<>();
        for (TableName n : names) {
            if (s.table(n).isPresent()) {
                s = s.withoutTable(n);
                dropped.add(n);
            } else {
                unknown.add(n.toString());
            }
        }
        if (!unknown.isEmpty() && !ifExists) {
            // the tables known are dropped all the same (a server drops what exists and reports the rest)
            return dropped.isEmpty() ? new Failed("Unknown table '" + String.join(",", unknown) + "'", names)
                    : new Applied(s, dropped, Set.of());
        }
        return new Applied(s, dropped, Set.of());
    }

    private Outcome rename(LogicalSchema schema, String db, String sql) {
        DdlTokens t = new DdlTokens(sql);
        t.next();
        t.next();
        LogicalSchema s = schema;
        Set<TableName> touched = new LinkedHashSet<>();
        do {
            TableName from = t.tableName(db);
            t.expect("TO");
            TableName to = t.tableName(db);
            SchemaTable table = s.table(from).orElse(null);
            if (table == null) {
                return new Failed("Table '" + from + "' doesn't exist", Set.of(from, to));
            }
            if (s.table(to).isPresent()) {
                return new Failed("Table '" + to + "' already exists", Set.of(from, to));
            }
            s = s.withoutTable(from).withTable(table.withName(to));
            touched.add(from);
            touched.add(to);
        } while (t.accept(","));
        return new Applied(s, touched, Set.of());
    }

    private Outcome dropIndex(LogicalSchema schema, String db, String sql) {
        DdlTokens t = new DdlTokens(sql);
        t.next();
        t.next();
        t.accept("IF") ;
        t.accept("EXISTS");
        String index = t.identifier();
        t.expect("ON");
        TableName name = t.tableName(db);
        SchemaTable table = schema.table(name).orElse(null);
        if (table == null) {
            return new Failed("Table '" + name + "' doesn't exist", Set.of(name));
        }
        TableBuilder b = new TableBuilder(table);
        b.dropIndex(index);
        return new Applied(schema.withTable(b.build()), Set.of(name), Set.of());
    }

    // ---------------------------------------------------------------- CREATE TABLE / INDEX

    private Outcome createTable(LogicalSchema schema, String db, CreateTable ct, boolean serverText) {
        TableName name = name(ct.getTable(), db);
        boolean exists = schema.table(name).isPresent();
        if (exists && ct.isIfNotExists()) {
            return new Applied(schema, Set.of(), Set.of());
        }
        if (ct.getLikeTable() != null) {
            TableName like = name(ct.getLikeTable(), db);
            SchemaTable source = schema.table(like).orElse(null);
            if (source == null) {
                return new Failed("Table '" + like + "' doesn't exist", Set.of(name, like));
            }
            return new Applied(schema.withTable(source.withName(name)), Set.of(name), Set.of());
        }
        if (ct.getSelect() != null || ct.getColumnDefinitions() == null) {
            return new Failed("CREATE TABLE ... SELECT: the columns come from a query the schema cannot run", Set.of(name));
        }
        SchemaDatabase database = schema.database(name.database())
                .orElse(new SchemaDatabase(name.database(), schema.charset(), schema.collation()));
        TableBuilder b = new TableBuilder(name, database.charset(), database.collation());
        tableOptions(b, ct.getTableOptionsStrings());
        for (ColumnDefinition cd : ct.getColumnDefinitions()) {
            ParsedColumn pc = column(cd.getColumnName(), cd.getColDataType(), cd.getColumnSpecs(), b, serverText);
            b.addColumn(pc.column(), null, false);
            pc.addIndexes(b);
        }
        if (ct.getIndexes() != null) {
            for (Index ix : ct.getIndexes()) {
                addIndex(b, ix.getType(), ix.getName(), ix.getColumns(), ix.getIndexSpec());
            }
        }
        return new Applied(schema.withTable(b.build()), Set.of(name), Set.of());
    }

    private Outcome createIndex(LogicalSchema schema, String db, CreateIndex ci) {
        TableName name = name(ci.getTable(), db);
        SchemaTable table = schema.table(name).orElse(null);
        if (table == null) {
            return new Failed("Table '" + name + "' doesn't exist", Set.of(name));
        }
        Index ix = ci.getIndex();
        String type = ix.getType() == null ? "KEY" : ix.getType();
        TableBuilder b = new TableBuilder(table);
        addIndex(b, type.toUpperCase(Locale.ROOT).contains("KEY") || type.toUpperCase(Locale.ROOT).contains("INDEX") ? type
                : type + " KEY", ix.getName(), ix.getColumns(), ix.getIndexSpec());
        return new Applied(schema.withTable(b.build()), Set.of(name), Set.of());
    }

    private void addIndex(TableBuilder b, String type, String name, List<Index.ColumnParams> columns, List<String> spec) {
        String t = type == null ? "KEY" : type.toUpperCase(Locale.ROOT);
        if (t.contains("FOREIGN") || t.contains("CHECK")) {
            return; // foreign keys and checks are not kept
        }
        SchemaIndex.Kind kind = t.startsWith("PRIMARY") ? SchemaIndex.Kind.PRIMARY
                : t.startsWith("UNIQUE") || t.contains(" UNIQUE") ? SchemaIndex.Kind.UNIQUE
                        : t.startsWith("FULLTEXT") ? SchemaIndex.Kind.FULLTEXT
                                : t.startsWith("SPATIAL") ? SchemaIndex.Kind.SPATIAL : SchemaIndex.Kind.KEY;
        List<SchemaIndex.Part> parts = new ArrayList<>();
        for (Index.ColumnParams p : columns) {
            Integer length = null;
            if (p.getParams() != null) {
                for (String s : p.getParams()) {
                    Matcher m = INT.matcher(s);
                    if (m.find()) {
                        length = Integer.parseInt(m.group());
                    }
                }
            }
            String col = unquote(p.getColumnName());
            // JSqlParser keeps a prefix length in the name when it comes without a space: `a`(5)
            Matcher pm = Pattern.compile("^(.*?)\\s*\\((\\d+)\\)$").matcher(col);
            if (pm.matches()) {
                col = unquote(pm.group(1));
                length = Integer.parseInt(pm.group(2));
            }
            parts.add(new SchemaIndex.Part(b.columnName(col), length));
        }
        String comment = null;
        if (spec != null) {
            for (int i = 0; i + 1 < spec.size(); i++) {
                if (spec.get(i).equalsIgnoreCase("COMMENT")) {
                    comment = unquoteString(spec.get(i + 1));
                }
            }
        }
        String n = name == null ? null : unquote(name);
        b.addIndex(kind, n == null || n.startsWith(UNNAMED) ? null : n, parts, comment);
    }

    private void tableOptions(TableBuilder b, List<String> options) {
        if (options == null) {
            return;
        }
        List<String> o = options.stream().filter(s -> !s.equals("=")).toList();
        String charset = null;
        String collation = null;
        for (int i = 0; i < o.size(); i++) {
            String w = o.get(i).toUpperCase(Locale.ROOT);
            String next = i + 1 < o.size() ? o.get(i + 1) : null;
            switch (w) {
                case "DEFAULT" -> {
                }
                case "ENGINE", "TYPE" -> {
                    b.engine = engine(next);
                    i++;
                }
                case "CHARSET" -> {
                    charset = SqlTypes.charset(next);
                    i++;
                }
                case "CHARACTER" -> {
                    charset = SqlTypes.charset(o.get(i + 2));
                    i += 2;
                }
                case "COLLATE" -> {
                    collation = SqlTypes.collation(next);
                    i++;
                }
                case "COMMENT" -> {
                    b.comment = unquoteString(next);
                    i++;
                }
                case "AUTO_INCREMENT" -> i++; // the counter: not tracked
                default -> {
                    if (next != null) {
                        b.options.removeIf(x -> x.startsWith(w + "="));
                        b.options.add(w + "=" + next.toUpperCase(Locale.ROOT));
                        i++;
                    }
                }
            }
        }
        if (charset != null || collation != null) {
            String[] cc = resolve(charset, collation, b.charset, b.collation);
            b.charset = cc[0];
            b.collation = cc[1];
        }
    }

    private static String engine(String e) {
        String u = e.toUpperCase(Locale.ROOT);
        return switch (u) {
            case "INNODB" -> "InnoDB";
            case "MYISAM" -> "MyISAM";
            case "ARIA" -> "Aria";
            case "MEMORY", "HEAP" -> "MEMORY";
            case "ROCKSDB" -> "ROCKSDB";
            default -> e;
        };
    }

    // ---------------------------------------------------------------- ALTER TABLE

    private Outcome alter(LogicalSchema schema, String db, Alter alter) {
        TableName name = name(alter.getTable(), db);
        SchemaTable table = schema.table(name).orElse(null);
        if (table == null) {
            return new Failed("Table '" + name + "' doesn't exist", Set.of(name));
        }
        TableBuilder b = new TableBuilder(table);
        TableName newName = name;
        for (AlterExpression e : alter.getAlterExpressions()) {
            switch (e.getOperation()) {
                case ADD -> {
                    if (e.getColDataTypeList() != null) {
                        for (AlterExpression.ColumnDataType c : e.getColDataTypeList()) {
                            ParsedColumn pc = column(c.getColumnName(), c.getColDataType(), c.getColumnSpecs(), b, false);
                            if (b.indexOfColumn(pc.column().name()) >= 0 && e.isUseIfNotExists()) {
                                continue; // ADD COLUMN IF NOT EXISTS of a column there: a note on a server, no change
                            }
                            if (b.indexOfColumn(pc.column().name()) >= 0) {
                                throw new IllegalArgumentException("Duplicate column name '" + pc.column().name() + "'");
                            }
                            b.addColumn(pc.column(), pc.after(), pc.first());
                            pc.addIndexes(b);
                        }
                    } else if (e.getPkColumns() != null) {
                        b.addIndex(SchemaIndex.Kind.PRIMARY, null, parts(b, e.getPkColumns()), null);
                    } else if (e.getUkColumns() != null) {
                        b.addIndex(SchemaIndex.Kind.UNIQUE, e.getUkName() == null ? null : unquote(e.getUkName()),
                                parts(b, e.getUkColumns()), null);
                    } else if (e.getIndex() != null) {
                        Index ix = e.getIndex();
                        addIndex(b, ix.getType(), ix.getName(), ix.getColumns(), ix.getIndexSpec());
                    } else if (e.getFkColumns() != null || e.getConstraintName() != null) {
                        // a foreign key or check: not kept
                    } else {
                        throw new IllegalArgumentException("cannot apply " + e);
                    }
                }
                case DROP -> {
                    if (e.getColumnName() != null) {
                        b.dropColumn(unquote(e.getColumnName()), e.isUsingIfExists());
                    } else if (e.getIndex() != null) {
                        String idx = e.getIndex().getName();
                        if (idx == null || idx.equalsIgnoreCase("PRIMARY")) {
                            b.dropIndex(SchemaIndex.PRIMARY);
                        } else {
                            b.dropIndex(unquote(idx));
                        }
                    } else if (e.getConstraintName() != null) {
                        b.dropIndexIfExists(unquote(e.getConstraintName()));
                    } else {
                        throw new IllegalArgumentException("cannot apply " + e);
                    }
                }
                case DROP_PRIMARY_KEY -> b.dropIndex(SchemaIndex.PRIMARY);
                case DROP_UNIQUE -> b.dropIndex(unquote(e.getUkName() != null ? e.getUkName() : e.getConstraintName()));
                case DROP_FOREIGN_KEY -> {
                }
                case MODIFY, CHANGE -> {
                    for (AlterExpression.ColumnDataType c : e.getColDataTypeList()) {
                        String old = e.getOperation() == net.sf.jsqlparser.statement.alter.AlterOperation.CHANGE
                                && e.getColumnOldName() != null ? unquote(e.getColumnOldName()) : unquote(c.getColumnName());
                        ParsedColumn pc = column(c.getColumnName(), c.getColDataType(), c.getColumnSpecs(), b, false);
                        b.replaceColumn(old, pc.column(), pc.after(), pc.first());
                        pc.addIndexes(b);
                    }
                }
                case RENAME -> b.renameColumn(unquote(e.getColumnOldName()), unquote(e.getColumnName()));
                case RENAME_INDEX, RENAME_KEY -> b.renameIndex(unquote(e.getColumnOldName()), unquote(e.getColumnName()));
                case RENAME_TABLE -> newName = qualified(e.getNewTableName(), name.database());
                case ALTER -> alterColumn(b, e);
                case CONVERT -> {
                    String[] cc = resolve(e.getCharacterSet() == null ? null : SqlTypes.charset(e.getCharacterSet()),
                            e.getCollation() == null ? null : SqlTypes.collation(e.getCollation()), b.charset, b.collation);
                    b.charset = cc[0];
                    b.collation = cc[1];
                    b.convertColumns();
                }
                case COMMENT, COMMENT_WITH_EQUAL_SIGN -> b.comment = unquoteString(e.getCommentText());
                case ENGINE -> b.engine = engine(e.getEngineOption());
                case COLLATE, SET_TABLE_OPTION, UNSPECIFIC -> {
                    if (e.getCharacterSet() != null || e.getCollation() != null) {
                        String[] cc = resolve(e.getCharacterSet() == null ? null : SqlTypes.charset(e.getCharacterSet()),
                                e.getCollation() == null ? null : SqlTypes.collation(e.getCollation()), b.charset,
                                b.collation);
                        b.charset = cc[0];
                        b.collation = cc[1];
                    } else if (e.getEngineOption() != null) {
                        b.engine = engine(e.getEngineOption());
                    } else if (e.getTableOption() != null) {
                        tableOptions(b, List.of(e.getTableOption().split("\\s*=\\s*|\\s+")));
                    } else if (e.getOptionalSpecifier() != null) {
                        tableOptions(b, List.of(e.getOptionalSpecifier().split("\\s*=\\s*|\\s+")));
                    }
                }
                case ALGORITHM, LOCK, FORCE, KEY_BLOCK_SIZE, DISABLE_KEYS, ENABLE_KEYS -> {
                }
                default -> {
                    if (!e.getOperation().name().contains("PARTITION")) {
                        throw new IllegalArgumentException("cannot apply ALTER TABLE operation " + e.getOperation()
                                + " (" + e + ")");
                    }
                }
            }
        }
        SchemaTable altered = b.build();
        LogicalSchema s = schema;
        Set<TableName> touched = new LinkedHashSet<>(List.of(name));
        if (!newName.equals(name)) {
            if (schema.table(newName).isPresent()) {
                throw new IllegalArgumentException("Table '" + newName + "' already exists");
            }
            s = s.withoutTable(name);
            altered = altered.withName(newName);
            touched.add(newName);
        }
        return new Applied(s.withTable(altered), touched, Set.of());
    }

    private void alterColumn(TableBuilder b, AlterExpression e) {
        if (e.getColumnSetDefaultList() != null) {
            for (AlterExpression.ColumnSetDefault d : e.getColumnSetDefaultList()) {
                String col = b.columnName(unquote(d.getColumnName()));
                SchemaColumn c = b.column(col);
                b.replaceColumn(col, c.withDefault(defaultOf(List.of(d.getDefaultValue().split("\\s+")), 0).value()),
                        null, false);
            }
        }
        if (e.getColumnDropDefaultList() != null) {
            for (AlterExpression.ColumnDropDefault d : e.getColumnDropDefaultList()) {
                String col = b.columnName(unquote(d.getColumnName()));
                b.replaceColumn(col, b.column(col).withDefault(null), null, false);
            }
        }
        if (e.getColumnSetDefaultList() == null && e.getColumnDropDefaultList() == null) {
            throw new IllegalArgumentException("cannot apply " + e);
        }
    }

    private List<SchemaIndex.Part> parts(TableBuilder b, List<String> columns) {
        List<SchemaIndex.Part> parts = new ArrayList<>();
        for (String c : columns) {
            parts.add(new SchemaIndex.Part(b.columnName(unquote(c)), null));
        }
        return parts;
    }

    // ---------------------------------------------------------------- columns

    /** A column with where it goes and the keys its definition declares. */
    private record ParsedColumn(SchemaColumn column, String after, boolean first, boolean primary, boolean unique) {
        void addIndexes(TableBuilder b) {
            if (primary) {
                b.addIndex(SchemaIndex.Kind.PRIMARY, null, List.of(new SchemaIndex.Part(column.name(), null)), null);
            }
            if (unique) {
                b.addIndex(SchemaIndex.Kind.UNIQUE, null, List.of(new SchemaIndex.Part(column.name(), null)), null);
            }
        }
    }

    private record DefaultAt(ColumnDefault value, int next) {
    }

    private ParsedColumn column(String rawName, ColDataType dt, List<String> specs, TableBuilder table,
            boolean serverText) {
        String name = unquote(rawName);
        String dataType = dt.getDataType();
        String type = dataType;
        String args = null;
        int paren = dataType.indexOf('(');
        if (paren >= 0) {
            type = dataType.substring(0, paren);
            args = dataType.substring(paren + 1, dataType.lastIndexOf(')'));
        } else if (dt.getArgumentsStringList() != null && !dt.getArgumentsStringList().isEmpty()) {
            args = String.join(",", dt.getArgumentsStringList());
        }
        type = SqlTypes.canonical(type);
        boolean unsigned = false;
        boolean zerofill = false;
        if (type.endsWith(" unsigned")) {
            type = type.substring(0, type.length() - " unsigned".length()).strip();
            unsigned = true;
        }
        type = SqlTypes.canonical(type);
        if (args != null) {
            args = args.strip().replaceAll("\\s*,\\s*", ",");
        }
        if (type.equals("bool") || type.equals("boolean")) {
            type = "tinyint";
            args = "1";
        }
        String charset = dt.getCharacterSet() == null ? null : SqlTypes.charset(dt.getCharacterSet());
        String collation = null;
        boolean nullable = true;
        ColumnDefault def = null;
        boolean autoIncrement = false;
        String onUpdate = null;
        String comment = null;
        String after = null;
        boolean first = false;
        boolean primary = false;
        boolean unique = false;
        List<String> extra = new ArrayList<>();
        String generated = null;
        List<String> s = specs == null ? List.of() : specs;
        for (int i = 0; i < s.size(); i++) {
            String w = s.get(i).toUpperCase(Locale.ROOT);
            switch (w) {
                case "UNSIGNED" -> unsigned = true;
                case "SIGNED" -> {
                }
                case "ZEROFILL" -> {
                    zerofill = true;
                    unsigned = true;
                }
                case "NOT" -> {
                    if (i + 1 < s.size() && s.get(i + 1).equalsIgnoreCase("NULL")) {
                        nullable = false;
                        i++;
                    } else {
                        extra.add(s.get(i));
                    }
                }
                case "NULL" -> nullable = true;
                case "DEFAULT" -> {
                    DefaultAt d = defaultOf(s, i + 1);
                    def = d.value();
                    i = d.next() - 1;
                }
                case "AUTO_INCREMENT" -> autoIncrement = true;
                case "COMMENT" -> comment = unquoteString(s.get(++i));
                case "CHARACTER" -> {
                    i++; // SET
                    charset = SqlTypes.charset(s.get(++i));
                }
                case "CHARSET" -> charset = SqlTypes.charset(s.get(++i));
                case "COLLATE" -> collation = SqlTypes.collation(s.get(++i));
                case "ON" -> {
                    if (i + 2 < s.size() && s.get(i + 1).equalsIgnoreCase("UPDATE")) {
                        DefaultAt d = defaultOf(s, i + 2);
                        onUpdate = d.value().text();
                        i = d.next() - 1;
                    } else {
                        extra.add(s.get(i));
                    }
                }
                case "PRIMARY" -> {
                    primary = true;
                    if (i + 1 < s.size() && s.get(i + 1).equalsIgnoreCase("KEY")) {
                        i++;
                    }
                }
                case "KEY" -> primary = true;
                case "UNIQUE" -> {
                    unique = true;
                    if (i + 1 < s.size() && (s.get(i + 1).equalsIgnoreCase("KEY") || s.get(i + 1).equalsIgnoreCase("INDEX"))) {
                        i++;
                    }
                }
                case "GENERATED" -> {
                    // GENERATED ALWAYS AS (expr) [VIRTUAL|STORED|PERSISTENT]: taken with the AS below
                }
                case "ALWAYS" -> {
                }
                case "AS" -> {
                    if (!serverText) {
                        throw new IllegalArgumentException("generated column " + name + ": the server's spelling of its"
                                + " expression is not known from the statement");
                    }
                    String expr = i + 1 < s.size() ? s.get(++i) : "";
                    String kind = i + 1 < s.size() && Set.of("VIRTUAL", "STORED", "PERSISTENT")
                            .contains(s.get(i + 1).toUpperCase(Locale.ROOT)) ? s.get(++i).toUpperCase(Locale.ROOT) : "VIRTUAL";
                    generated = "GENERATED ALWAYS AS " + expr + " " + kind;
                }
                case "AFTER" -> after = unquote(s.get(++i));
                case "FIRST" -> first = true;
                case "CHECK" -> {
                    String expr = i + 1 < s.size() ? s.get(i + 1) : "";
                    Matcher jm = JSON_CHECK.matcher(expr);
                    if (jm.matches() && jm.group(1).equals(name) && type.equals("longtext")) {
                        type = "json";
                        i++;
                    } else {
                        extra.add("CHECK " + expr);
                        i++;
                    }
                }
                default -> extra.add(s.get(i));
            }
        }
        if (type.equals("json")) {
            charset = null;
            collation = null;
        } else if (SqlTypes.isCharacter(type)) {
            String[] cc = resolve(charset, collation, table.charset, table.collation);
            charset = cc[0];
            collation = cc[1];
        } else {
            charset = null;
            collation = null;
        }
        if (primary) {
            nullable = false;
        }
        if (type.equals("decimal")) {
            args = args == null ? "10,0" : args.contains(",") ? args : args + ",0";
        } else if ((type.equals("char") || type.equals("binary") || type.equals("bit")) && args == null) {
            args = "1";
        } else if (SqlTypes.isInteger(type) && args != null
                && args.equals(String.valueOf(SqlTypes.displayWidth(type, unsigned)))) {
            args = null;
        }
        if (def != null && def.kind() == ColumnDefault.Kind.NULL && !nullable) {
            throw new IllegalArgumentException("Invalid default value for '" + name + "'");
        }
        if (def != null && def.kind() == ColumnDefault.Kind.NULL) {
            def = null; // DEFAULT NULL of a nullable column is the implicit default
        }
        if (generated != null) {
            extra.add(0, generated);
        }
        SchemaColumn c = new SchemaColumn(name, type, args, unsigned, zerofill, charset, collation, nullable, def,
                autoIncrement, onUpdate, comment, extra.isEmpty() ? null : String.join(" ", extra));
        return new ParsedColumn(c, after, first, primary, unique);
    }

    /** The default value starting at token {@code i}. */
    private static DefaultAt defaultOf(List<String> s, int i) {
        String t = s.get(i);
        if (t.equalsIgnoreCase("NULL")) {
            return new DefaultAt(ColumnDefault.NULL, i + 1);
        }
        if (t.startsWith("'") || t.startsWith("\"")) {
            return new DefaultAt(ColumnDefault.literal(unquoteString(t)), i + 1);
        }
        if ((t.equals("-") || t.equals("+")) && i + 1 < s.size()) {
            return new DefaultAt(ColumnDefault.literal((t.equals("-") ? "-" : "") + s.get(i + 1)), i + 2);
        }
        if (Character.isDigit(t.charAt(0)) || t.startsWith("-") || t.startsWith(".")) {
            return new DefaultAt(ColumnDefault.literal(t), i + 1);
        }
        if (t.startsWith("(")) {
            return new DefaultAt(ColumnDefault.expression(t), i + 1);
        }
        String lower = t.toLowerCase(Locale.ROOT);
        String args = "()";
        int next = i + 1;
        int p = lower.indexOf('(');
        if (p >= 0) {
            args = lower.substring(p).replace(" ", "");
            lower = lower.substring(0, p);
        } else if (next < s.size() && s.get(next).startsWith("(")) {
            args = s.get(next).replace(" ", "");
            next++;
        }
        if (lower.equals("true") || lower.equals("false")) {
            return new DefaultAt(ColumnDefault.literal(lower.equals("true") ? "1" : "0"), i + 1);
        }
        if (Set.of("current_timestamp", "now", "localtime", "localtimestamp").contains(lower)) {
            return new DefaultAt(ColumnDefault.expression("current_timestamp" + args), next);
        }
        if (lower.startsWith("b'") || lower.startsWith("x'") || lower.startsWith("0x") || lower.startsWith("0b")) {
            return new DefaultAt(ColumnDefault.expression(t), i + 1);
        }
        return new DefaultAt(ColumnDefault.expression(p >= 0 || next > i + 1 ? lower + args : t), next);
    }

    // ---------------------------------------------------------------- names

    private static TableName name(Table t, String db) {
        String database = t.getSchemaName() != null ? unquote(t.getSchemaName()) : db;
        if (database == null || database.isEmpty()) {
            throw new IllegalArgumentException("table " + unquote(t.getName()) + " without a database and no default database");
        }
        return new TableName(database, unquote(t.getName()));
    }

    private static TableName qualified(String name, String db) {
        DdlTokens t = new DdlTokens(name);
        return t.tableName(db);
    }

    static String unquote(String s) {
        if (s == null) {
            return null;
        }
        String x = s.strip();
        if (x.length() >= 2 && (x.charAt(0) == '`' || x.charAt(0) == '"') && x.charAt(x.length() - 1) == x.charAt(0)) {
            return x.substring(1, x.length() - 1).replace("``", "`");
        }
        return x;
    }

    static String unquoteString(String s) {
        if (s == null) {
            return null;
        }
        String x = s.strip();
        if (x.length() >= 2 && (x.charAt(0) == '\'' || x.charAt(0) == '"') && x.charAt(x.length() - 1) == x.charAt(0)) {
            List<DdlTokens.Token> t = DdlTokens.tokenize(x);
            return t.size() == 1 ? t.get(0).text() : x.substring(1, x.length() - 1);
        }
        return x;
    }

    private static String stripComments(String sql) {
        // version comments /*!40100 ... */ hold real clauses: keep their content; other comments go
        String s = sql.replaceAll("(?s)/\\*!\\d*\\s?(.*?)\\*/", " $1 ");
        StringBuilder out = new StringBuilder();
        int i = 0;
        char quote = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (quote != 0) {
                out.append(c);
                if (c == '\\' && quote != '`' && i + 1 < s.length()) {
                    out.append(s.charAt(++i));
                } else if (c == quote) {
                    quote = 0;
                }
                i++;
            } else if (c == '\'' || c == '"' || c == '`') {
                quote = c;
                out.append(c);
                i++;
            } else if (s.startsWith("/*", i)) {
                int e = s.indexOf("*/", i + 2);
                i = e < 0 ? s.length() : e + 2;
                out.append(' ');
            } else if (c == '#' || s.startsWith("-- ", i)) {
                int e = s.indexOf('\n', i);
                i = e < 0 ? s.length() : e + 1;
                out.append(' ');
            } else {
                out.append(c);
                i++;
            }
        }
        String r = out.toString().strip();
        return r.endsWith(";") ? r.substring(0, r.length() - 1).strip() : r;
    }

    private static String firstWord(String s) {
        String[] w = s.strip().split("\\s+", 2);
        return w.length == 0 ? "" : w[0].toUpperCase(Locale.ROOT);
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    /** Sorts indexes as a server lists them: primary, unique over NOT NULL columns, other unique, keys, full-text. */
    static Comparator<SchemaIndex> serverOrder(List<SchemaColumn> columns) {
        return Comparator.comparingInt(i -> switch (i.kind()) {
            case PRIMARY -> 0;
            case UNIQUE -> i.columns().stream().allMatch(p -> columns.stream()
                    .anyMatch(c -> c.name().equalsIgnoreCase(p.column()) && !c.nullable())) ? 1 : 2;
            case KEY, SPATIAL -> 3;
            case FULLTEXT -> 4;
        });
    }
}
