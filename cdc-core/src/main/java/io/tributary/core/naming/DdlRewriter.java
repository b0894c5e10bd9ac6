package io.tributary.core.naming;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * Rewrites a physical DDL statement with logical names: {@code ALTER TABLE shop_03.orders_0007 ADD c INT}
 * becomes {@code ALTER TABLE shop.orders ADD c INT}; and gives its normalised form, by which the same
 * logical DDL arriving from several shards is recognised.
 *
 * <p>The statement is split into tokens (words, {@code `quoted`} identifiers, string literals,
 * comments, punctuation); only identifiers in table or database positions are renamed, never columns,
 * indexes, literals or comments. Table positions: after {@code TABLE}/{@code TABLES} (also lists and
 * {@code RENAME TABLE a TO b, c TO d}), {@code REFERENCES}, {@code LIKE} in {@code CREATE TABLE},
 * {@code ALTER TABLE .. RENAME [TO|AS]}, {@code ON} in {@code CREATE/DROP INDEX}, {@code TRUNCATE};
 * database positions: after {@code DATABASE}/{@code SCHEMA}, and the qualifier of a qualified table
 * name. {@code IF [NOT] EXISTS} is skipped. Views, triggers and routines keep their text (their bodies
 * would need a parser). Quoting style is kept.
 *
 * <p>Normalised form: comments dropped, identifiers unquoted, everything outside string literals lower
 * case, whitespace collapsed, a trailing {@code ;} removed.
 *
 * <p>Immutable and thread-safe.
 */
public final class DdlRewriter {

    /**
     * Result: the logical statement, its normalised form, the logical tables and databases it names, the
     * normalised form of the physical statement (what tells two physical copies of one logical statement apart),
     * and the physical tables it names ({@code db.table}, the default database where unqualified), in order.
     */
    public record Rewritten(String sql, String normalized, Set<LogicalTable> tables, Set<String> databases,
            String physicalNormalized, List<String> physicalTables) {

        /** As before issue 16: without the physical tables. */
        public Rewritten(String sql, String normalized, Set<LogicalTable> tables, Set<String> databases,
                String physicalNormalized) {
            this(sql, normalized, tables, databases, physicalNormalized, List.of());
        }

        public Rewritten {
            physicalTables = List.copyOf(physicalTables);
        }
    }

    private enum Kind {
        WORD, QUOTED_ID, STRING, COMMENT, SPACE, PUNCT
    }

    private record Token(Kind kind, int start, int end, String text) {
        boolean isWord(String w) {
            return kind == Kind.WORD && text.equalsIgnoreCase(w);
        }

        boolean isIdentifier() {
            return kind == Kind.WORD || kind == Kind.QUOTED_ID;
        }

        String identifier() {
            return kind == Kind.QUOTED_ID ? text.substring(1, text.length() - 1).replace("``", "`") : text;
        }
    }

    private final LogicalNames names;

    public DdlRewriter(LogicalNames names) {
        this.names = Objects.requireNonNull(names, "names");
    }

    /**
     * @param defaultDatabase the statement's default database on the shard (QUERY event), or empty
     * @param sql             the physical statement
     */
    public Rewritten rewrite(String defaultDatabase, String sql) {
        List<Token> all = tokenize(sql);
        List<Integer> code = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            Kind k = all.get(i).kind();
            if (k != Kind.SPACE && k != Kind.COMMENT) {
                code.add(i);
            }
        }
        String[] replacement = new String[all.size()];
        Set<LogicalTable> tables = new LinkedHashSet<>();
        Set<String> databases = new LinkedHashSet<>();
        String first = code.isEmpty() ? "" : all.get(code.get(0)).text().toUpperCase(Locale.ROOT);
        boolean createOrDrop = first.equals("CREATE") || first.equals("DROP");
        boolean indexStatement = createOrDrop && containsWordWithin(all, code, "INDEX", 4);
        boolean skipBodies = createOrDrop && (containsWordWithin(all, code, "VIEW", 6)
                || containsWordWithin(all, code, "TRIGGER", 6) || containsWordWithin(all, code, "PROCEDURE", 6)
                || containsWordWithin(all, code, "FUNCTION", 6) || containsWordWithin(all, code, "EVENT", 6));
        List<String> physicalTables = new ArrayList<>();
        Ctx ctx = new Ctx(all, code, replacement, defaultDatabase, tables, databases, physicalTables);
        if (!skipBodies) {
            boolean onUsed = false;
            for (int c = 0; c < code.size(); c++) {
                Token t = all.get(code.get(c));
                if (t.kind() != Kind.WORD) {
                    continue;
                }
                String w = t.text().toUpperCase(Locale.ROOT);
                switch (w) {
                    case "TABLE", "TABLES" -> c = tableList(ctx, c + 1, first.equals("RENAME"));
                    case "REFERENCES" -> c = tableName(ctx, c + 1);
                    case "LIKE" -> {
                        if (first.equals("CREATE")) {
                            c = tableName(ctx, c + 1);
                        }
                    }
                    case "RENAME" -> {
                        if (first.equals("ALTER") && c + 1 < code.size()) {
                            Token n = all.get(code.get(c + 1));
                            if (!n.isWord("COLUMN") && !n.isWord("INDEX") && !n.isWord("KEY")) {
                                int at = n.isWord("TO") || n.isWord("AS") ? c + 2 : c + 1;
                                c = tableName(ctx, at);
                            }
                        }
                    }
                    case "ON" -> {
                        if (indexStatement && !onUsed) {
                            onUsed = true;
                            c = tableName(ctx, c + 1);
                        }
                    }
                    case "TRUNCATE" -> {
                        if (c == 0 && c + 1 < code.size() && !all.get(code.get(c + 1)).isWord("TABLE")) {
                            c = tableName(ctx, c + 1);
                        }
                    }
                    case "DATABASE", "SCHEMA" -> c = databaseName(ctx, c + 1);
                    default -> {
                    }
                }
            }
        }
        StringBuilder out = new StringBuilder(sql.length());
        for (int i = 0; i < all.size(); i++) {
            out.append(replacement[i] != null ? replacement[i] : all.get(i).text());
        }
        return new Rewritten(out.toString(), normalize(all, replacement), tables, databases,
                normalize(all, new String[all.size()]), physicalTables);
    }

    /** Comments dropped, identifiers unquoted, lower case outside string literals, whitespace collapsed, no trailing ';'. */
    private static String normalize(List<Token> all, String[] replacement) {
        StringBuilder norm = new StringBuilder();
        for (int i = 0; i < all.size(); i++) {
            Token t = all.get(i);
            String text = replacement[i] != null ? replacement[i] : t.text();
            switch (t.kind()) {
                case SPACE, COMMENT -> {
                    if (norm.length() > 0 && norm.charAt(norm.length() - 1) != ' ') {
                        norm.append(' ');
                    }
                }
                case STRING -> norm.append(text);
                case QUOTED_ID -> norm.append(text.substring(1, text.length() - 1).replace("``", "`").toLowerCase(Locale.ROOT));
                default -> norm.append(text.toLowerCase(Locale.ROOT));
            }
        }
        String n = norm.toString().strip();
        while (n.endsWith(";")) {
            n = n.substring(0, n.length() - 1).strip();
        }
        return n;
    }

    private record Ctx(List<Token> all, List<Integer> code, String[] replacement, String defaultDatabase,
            Set<LogicalTable> tables, Set<String> databases, List<String> physicalTables) {
        Token at(int c) {
            return c < code.size() ? all.get(code.get(c)) : null;
        }
    }

    private static boolean containsWordWithin(List<Token> all, List<Integer> code, String word, int limit) {
        for (int c = 0; c < Math.min(limit, code.size()); c++) {
            if (all.get(code.get(c)).isWord(word)) {
                return true;
            }
        }
        return false;
    }

    private static int skipIfExists(Ctx ctx, int c) {
        Token t = ctx.at(c);
        if (t != null && t.isWord("IF")) {
            c++;
            if (ctx.at(c) != null && ctx.at(c).isWord("NOT")) {
                c++;
            }
            if (ctx.at(c) != null && ctx.at(c).isWord("EXISTS")) {
                c++;
            }
        }
        return c;
    }

    /** Names after TABLE: a list separated by commas, and for RENAME TABLE the targets after TO. */
    private int tableList(Ctx ctx, int c, boolean rename) {
        c = tableName(ctx, c);
        while (true) {
            Token next = ctx.at(c + 1);
            if (next == null) {
                return c;
            }
            if (next.kind() == Kind.PUNCT && next.text().equals(",")) {
                c = tableName(ctx, c + 2);
            } else if (rename && next.isWord("TO")) {
                c = tableName(ctx, c + 2);
            } else {
                return c;
            }
        }
    }

    /** Renames the (possibly qualified) table name at code index {@code c}; returns the index of its last token. */
    private int tableName(Ctx ctx, int c) {
        c = skipIfExists(ctx, c);
        Token a = ctx.at(c);
        if (a == null || !a.isIdentifier() || isReserved(a)) {
            return c - 1;
        }
        Token dot = ctx.at(c + 1);
        Token b = ctx.at(c + 2);
        if (dot != null && dot.kind() == Kind.PUNCT && dot.text().equals(".") && b != null && b.isIdentifier()) {
            String db = names.database(a.identifier());
            String table = names.table(b.identifier());
            ctx.replacement()[ctx.code().get(c)] = quoteLike(a, db);
            ctx.replacement()[ctx.code().get(c + 2)] = quoteLike(b, table);
            ctx.tables().add(new LogicalTable(db, table));
            ctx.physicalTables().add(a.identifier() + "." + b.identifier());
            return c + 2;
        }
        String table = names.table(a.identifier());
        ctx.replacement()[ctx.code().get(c)] = quoteLike(a, table);
        ctx.tables().add(new LogicalTable(names.database(ctx.defaultDatabase()), table));
        ctx.physicalTables().add((ctx.defaultDatabase() == null ? "" : ctx.defaultDatabase()) + "." + a.identifier());
        return c;
    }

    private int databaseName(Ctx ctx, int c) {
        c = skipIfExists(ctx, c);
        Token a = ctx.at(c);
        if (a == null || !a.isIdentifier() || isReserved(a)) {
            return c - 1;
        }
        String db = names.database(a.identifier());
        ctx.replacement()[ctx.code().get(c)] = quoteLike(a, db);
        ctx.databases().add(db);
        return c;
    }

    private static boolean isReserved(Token t) {
        if (t.kind() != Kind.WORD) {
            return false;
        }
        return switch (t.text().toUpperCase(Locale.ROOT)) {
            case "IF", "ADD", "DROP", "SET", "CHARACTER", "DEFAULT", "COLLATE", "CHARSET", "WITH", "AS", "TO", "ON",
                    "STATUS", "WHERE", "FROM", "IN" -> true;
            default -> false;
        };
    }

    private static String quoteLike(Token original, String name) {
        return original.kind() == Kind.QUOTED_ID || !name.matches("[A-Za-z0-9_$]+") ? "`" + name.replace("`", "``") + "`"
                : name;
    }

    private static List<Token> tokenize(String s) {
        List<Token> out = new ArrayList<>();
        int i = 0;
        int n = s.length();
        while (i < n) {
            char ch = s.charAt(i);
            int start = i;
            Kind kind;
            if (Character.isWhitespace(ch)) {
                while (i < n && Character.isWhitespace(s.charAt(i))) {
                    i++;
                }
                kind = Kind.SPACE;
            } else if (ch == '#' || (ch == '-' && s.startsWith("-- ", i)) || (ch == '-' && s.startsWith("--", i) && i + 2 == n)) {
                while (i < n && s.charAt(i) != '\n') {
                    i++;
                }
                kind = Kind.COMMENT;
            } else if (ch == '/' && s.startsWith("/*", i) && !s.startsWith("/*!", i) && !s.startsWith("/*M!", i)) {
                int close = s.indexOf("*/", i + 2);
                i = close < 0 ? n : close + 2;
                kind = Kind.COMMENT;
            } else if (ch == '`' || ch == '\'' || ch == '"') {
                i = endOfQuoted(s, i, ch);
                kind = ch == '`' ? Kind.QUOTED_ID : Kind.STRING;
            } else if (Character.isLetterOrDigit(ch) || ch == '_' || ch == '$') {
                while (i < n && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '_' || s.charAt(i) == '$')) {
                    i++;
                }
                kind = Kind.WORD;
            } else {
                i++;
                kind = Kind.PUNCT;
            }
            out.add(new Token(kind, start, i, s.substring(start, i)));
        }
        return out;
    }

    /** End (exclusive) of a quoted token; a doubled quote continues it, backslash escapes in strings. */
    private static int endOfQuoted(String s, int i, char q) {
        int n = s.length();
        int j = i + 1;
        while (j < n) {
            char c = s.charAt(j);
            if (c == '\\' && q != '`') {
                j += 2;
                continue;
            }
            if (c == q) {
                if (j + 1 < n && s.charAt(j + 1) == q) {
                    j += 2;
                    continue;
                }
                return j + 1;
            }
            j++;
        }
        return n;
    }
}
