package io.tributary.daemon.dump;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The small amount of SQL text handling the dump server needs: comment and terminator removal, splitting
 * at top-level commas, string literals, LIKE patterns, and the syntax errors found without a grammar (unbalanced
 * quotes or parentheses, a first word no statement begins with). Stateless.
 */
final class SqlText {
    private static final Pattern COMMENT = Pattern.compile("/\\*.*?\\*/", Pattern.DOTALL);
    /** A versioned comment, {@code /*!40101 SET NAMES utf8 *}{@code /} (MariaDB also {@code /*M!...}): servers run its text. */
    private static final Pattern EXECUTABLE_COMMENT = Pattern.compile("/\\*M?!\\d*(.*?)\\*/", Pattern.DOTALL);
    /** The words a MySQL or MariaDB statement can begin with; any other first word is a syntax error (1064). */
    private static final java.util.Set<String> STATEMENT_KEYWORDS = java.util.Set.of("ALTER", "ANALYZE", "BEGIN",
            "BINLOG", "CACHE", "CALL", "CHANGE", "CHECK", "CHECKSUM", "CLONE", "COMMIT", "CREATE", "DEALLOCATE",
            "DECLARE", "DELETE", "DESC", "DESCRIBE", "DO", "DROP", "EXECUTE", "EXPLAIN", "FLUSH", "GET", "GRANT",
            "HANDLER", "HELP", "IMPORT", "INSERT", "INSTALL", "KILL", "LOAD", "LOCK", "OPTIMIZE", "PREPARE", "PURGE",
            "RELEASE", "RENAME", "REPAIR", "REPLACE", "RESET", "RESIGNAL", "RESTART", "REVOKE", "ROLLBACK",
            "SAVEPOINT", "SELECT", "SET", "SHOW", "SHUTDOWN", "SIGNAL", "START", "STOP", "TABLE", "TRUNCATE",
            "UNINSTALL", "UNLOCK", "UPDATE", "USE", "VALUES", "WITH", "XA");

    private SqlText() {
    }

    /** The statement without comments (the text of versioned ones kept), surrounding blanks and trailing semicolons. */
    static String normalize(String sql) {
        String s = EXECUTABLE_COMMENT.matcher(sql).replaceAll(m -> java.util.regex.Matcher.quoteReplacement(" " + m.group(1) + " "));
        s = COMMENT.matcher(s).replaceAll(" ").strip();
        while (s.endsWith(";")) {
            s = s.substring(0, s.length() - 1).strip();
        }
        return s;
    }

    /** Splits at {@code sep} outside quotes and parentheses. */
    static List<String> splitTopLevel(String s, char sep) {
        List<String> out = new ArrayList<>();
        int[] start = {0};
        scanTopLevel(s, i -> {
            if (s.charAt(i) == sep) {
                out.add(s.substring(start[0], i).strip());
                start[0] = i + 1;
            }
            return false;
        });
        out.add(s.substring(start[0]).strip());
        return out;
    }

    /** The index of {@code keyword} (upper case, as a whole word) outside quotes and parentheses, or -1. */
    static int indexOfKeyword(String s, String keyword) {
        String upper = s.toUpperCase(Locale.ROOT);
        return scanTopLevel(s, i -> upper.startsWith(keyword, i) && boundary(s, i - 1)
                && boundary(s, i + keyword.length()));
    }

    /**
     * Offers {@code visit} every index that is outside quotes (with backslash escapes) and parentheses and is
     * not itself a quote or parenthesis, in order, until it accepts one.
     *
     * @return the accepted index, or -1
     */
    private static int scanTopLevel(String s, java.util.function.IntPredicate visit) {
        int depth = 0;
        char quote = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (quote != 0) {
                if (c == '\\') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"' || c == '`') {
                quote = c;
            } else if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (depth == 0 && visit.test(i)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Where a statement cannot be tokenized, as the text a server's 1064 error quotes ("near '...'"): from an
     * unterminated quote, from a closing parenthesis without its opening one, or the empty end after an
     * unclosed parenthesis. Null when quotes and parentheses balance.
     */
    static String syntaxError(String s) {
        int depth = 0;
        char quote = 0;
        int quoteAt = -1;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (quote != 0) {
                if (c == '\\' && quote != '`') {
                    i++;
                } else if (c == quote) {
                    if (i + 1 < s.length() && s.charAt(i + 1) == quote) {
                        i++;
                    } else {
                        quote = 0;
                    }
                }
            } else if (c == '\'' || c == '"' || c == '`') {
                quote = c;
                quoteAt = i;
            } else if (c == '(') {
                depth++;
            } else if (c == ')') {
                if (--depth < 0) {
                    return s.substring(i);
                }
            }
        }
        if (quote != 0) {
            return s.substring(quoteAt);
        }
        return depth > 0 ? "" : null;
    }

    /** Whether {@code s} begins with a word a statement can begin with (or a parenthesis, as a query can). */
    static boolean startsWithStatementKeyword(String s) {
        if (s.startsWith("(")) {
            return true;
        }
        int end = 0;
        while (end < s.length() && (Character.isLetter(s.charAt(end)) || s.charAt(end) == '_')) {
            end++;
        }
        return STATEMENT_KEYWORDS.contains(s.substring(0, end).toUpperCase(Locale.ROOT));
    }

    private static boolean boundary(String s, int i) {
        return i < 0 || i >= s.length() || !(Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '_');
    }

    static boolean isQuoted(String s) {
        return s.length() >= 2 && (s.charAt(0) == '\'' || s.charAt(0) == '"') && s.charAt(s.length() - 1) == s.charAt(0);
    }

    /** The text of a quoted literal, with backslash escapes and doubled quotes resolved. */
    static String unquote(String s) {
        char q = s.charAt(0);
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 1; i < s.length() - 1; i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length() - 1) {
                char n = s.charAt(++i);
                b.append(switch (n) {
                    case 'n' -> '\n';
                    case 't' -> '\t';
                    case '0' -> '\0';
                    default -> n;
                });
            } else if (c == q && i + 1 < s.length() - 1 && s.charAt(i + 1) == q) {
                b.append(q);
                i++;
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    static String unbacktick(String s) {
        return s.length() >= 2 && s.charAt(0) == '`' && s.endsWith("`") ? s.substring(1, s.length() - 1) : s;
    }

    /** Whether {@code value} matches the SQL LIKE {@code pattern} (case-insensitive, {@code %}, {@code _}, {@code \}). */
    static boolean like(String value, String pattern) {
        StringBuilder re = new StringBuilder("(?is)");
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c == '\\' && i + 1 < pattern.length()) {
                re.append(Pattern.quote(String.valueOf(pattern.charAt(++i))));
            } else if (c == '%') {
                re.append(".*");
            } else if (c == '_') {
                re.append('.');
            } else {
                re.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return value.matches(re.toString());
    }
}
