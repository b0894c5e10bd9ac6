package io.tributary.daemon.dump;

import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The syntax check of queries and data statements the dump server does not serve, with JSqlParser: one that does
 * not parse gets error 1064 quoting the text from the token where parsing failed, as a server answers; one that
 * parses is valid SQL this server does not serve (1235). Only statements beginning with {@link #CHECKED} words
 * are checked: JSqlParser's grammar covers MySQL's queries and DML, not its administrative statements
 * ({@code FLUSH}, {@code LOCK TABLES}, {@code KILL} ...), which it would wrongly call malformed. Parsing takes
 * milliseconds and more on the first call (the parser's classes load), so it runs off the event loop.
 * Stateless and thread-safe.
 */
final class SqlSyntax {
    /** The first words of the statements JSqlParser checks. */
    static final Set<String> CHECKED = Set.of("SELECT", "WITH", "INSERT", "UPDATE", "DELETE", "REPLACE", "VALUES");
    private static final Pattern AT = Pattern.compile("at line (\\d+), column (\\d+)");
    private static final Pattern AT_END = Pattern.compile("Encountered unexpected token:\\s*<EOF>");

    private SqlSyntax() {
    }

    /** Whether {@code sql} (normalized) begins with a word whose statements JSqlParser checks. */
    static boolean checks(String sql) {
        int end = 0;
        while (end < sql.length() && Character.isLetter(sql.charAt(end))) {
            end++;
        }
        return CHECKED.contains(sql.substring(0, end).toUpperCase(Locale.ROOT));
    }

    /**
     * The 1064 error for {@code sql} if it does not parse, null if it does.
     *
     * @param sql a statement without comments and trailing semicolons ({@link SqlText#normalize})
     */
    static Answer error(String sql) {
        try {
            CCJSqlParserUtil.parse(sql);
            return null;
        } catch (JSQLParserException e) {
            Throwable cause = e;
            while (cause.getCause() != null) {
                cause = cause.getCause();
            }
            String message = String.valueOf(cause.getMessage());
            Matcher at = AT.matcher(message);
            if (!at.find()) {
                return QueryResponder.parseError(sql, 1);
            }
            int line = Integer.parseInt(at.group(1));
            if (AT_END.matcher(message).find()) { // JSqlParser places the end on the last character
                return QueryResponder.parseError("", line);
            }
            int column = Integer.parseInt(at.group(2));
            return QueryResponder.parseError(sql.substring(Math.min(sql.length(), offset(sql, line, column))), line);
        }
    }

    /** The index in {@code s} of 1-based {@code line} and {@code column}. */
    private static int offset(String s, int line, int column) {
        int i = 0;
        for (int l = 1; l < line && i < s.length(); i++) {
            if (s.charAt(i) == '\n') {
                l++;
            }
        }
        return i + column - 1;
    }
}
