package io.tributary.core.schema;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The tokens of a statement for the few DDL forms JSqlParser 5.3 does not parse ({@code CREATE/ALTER/DROP
 * DATABASE}, {@code DROP TABLE a, b}, {@code DROP INDEX i ON t}): words, {@code `quoted`} identifiers, string
 * literals, punctuation; comments and white space dropped.
 */
final class DdlTokens {

    /** One token; {@code quoted} for a backquoted identifier (its text unquoted). */
    record Token(String text, boolean quoted, boolean string) {
        boolean is(String word) {
            return !quoted && !string && text.equalsIgnoreCase(word);
        }

        String upper() {
            return text.toUpperCase(Locale.ROOT);
        }
    }

    private final List<Token> tokens;
    private int at;

    DdlTokens(String sql) {
        this.tokens = tokenize(sql);
    }

    static List<Token> tokenize(String sql) {
        List<Token> out = new ArrayList<>();
        int i = 0;
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '#' || (c == '-' && i + 2 < n + 1 && sql.startsWith("-- ", i))) {
                int e = sql.indexOf('\n', i);
                i = e < 0 ? n : e + 1;
            } else if (c == '/' && sql.startsWith("/*", i)) {
                int e = sql.indexOf("*/", i + 2);
                i = e < 0 ? n : e + 2;
            } else if (c == '`' || c == '\'' || c == '"') {
                StringBuilder sb = new StringBuilder();
                int j = i + 1;
                while (j < n) {
                    char d = sql.charAt(j);
                    if (d == '\\' && c != '`' && j + 1 < n) {
                        sb.append(sql.charAt(j + 1));
                        j += 2;
                    } else if (d == c && j + 1 < n && sql.charAt(j + 1) == c) {
                        sb.append(c);
                        j += 2;
                    } else if (d == c) {
                        j++;
                        break;
                    } else {
                        sb.append(d);
                        j++;
                    }
                }
                out.add(new Token(sb.toString(), c == '`', c != '`'));
                i = j;
            } else if (Character.isLetterOrDigit(c) || c == '_' || c == '$' || c > 127) {
                int j = i;
                while (j < n && (Character.isLetterOrDigit(sql.charAt(j)) || sql.charAt(j) == '_'
                        || sql.charAt(j) == '$' || sql.charAt(j) > 127)) {
                    j++;
                }
                out.add(new Token(sql.substring(i, j), false, false));
                i = j;
            } else {
                out.add(new Token(String.valueOf(c), false, false));
                i++;
            }
        }
        return out;
    }

    boolean more() {
        return at < tokens.size();
    }

    Token peek() {
        return more() ? tokens.get(at) : null;
    }

    Token next() {
        if (!more()) {
            throw new IllegalArgumentException("unexpected end of statement");
        }
        return tokens.get(at++);
    }

    /** Consumes the word if it comes next. */
    boolean accept(String word) {
        if (more() && tokens.get(at).is(word)) {
            at++;
            return true;
        }
        return false;
    }

    void expect(String word) {
        if (!accept(word)) {
            throw new IllegalArgumentException("expected " + word + ", found " + (more() ? peek().text() : "the end"));
        }
    }

    /** An identifier (quoted or not). */
    String identifier() {
        Token t = next();
        if (t.string() || (!t.quoted() && !Character.isLetterOrDigit(t.text().charAt(0)) && t.text().charAt(0) != '_'
                && t.text().charAt(0) != '$' && t.text().charAt(0) <= 127)) {
            throw new IllegalArgumentException("expected a name, found " + t.text());
        }
        return t.text();
    }

    /** {@code [db.]table}, the database defaulting to {@code defaultDatabase}. */
    TableName tableName(String defaultDatabase) {
        String first = identifier();
        if (accept(".")) {
            return new TableName(first, identifier());
        }
        if (defaultDatabase == null || defaultDatabase.isEmpty()) {
            throw new IllegalArgumentException("table " + first + " without a database and no default database");
        }
        return new TableName(defaultDatabase, first);
    }
}
