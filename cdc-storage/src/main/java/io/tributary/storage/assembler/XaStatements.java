package io.tributary.storage.assembler;

import io.tributary.core.event.XaXid;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * Reads the xid of an {@code XA COMMIT} / {@code XA ROLLBACK} statement as servers write it into the binlog:
 * {@code XA COMMIT X'6774',X'6271',1} (MySQL and MariaDB), also accepting quoted strings
 * ({@code 'tx-1','branch-0'}) and a missing bqual or format id (empty, 1). Stateless.
 */
final class XaStatements {

    private XaStatements() {
    }

    /** Whether the statement is {@code XA COMMIT ... ONE PHASE}. */
    static boolean onePhase(String sql) {
        return sql.toUpperCase(Locale.ROOT).replaceAll("\\s+", " ").endsWith("ONE PHASE");
    }

    /**
     * @param where named in the error (shard, file and offset)
     * @throws IllegalArgumentException naming the statement when it holds no xid
     */
    static XaXid xid(String sql, String where) {
        String s = sql.strip();
        String upper = s.toUpperCase(Locale.ROOT);
        int at = upper.startsWith("XA COMMIT") ? 9 : upper.startsWith("XA ROLLBACK") ? 11 : -1;
        if (at < 0) {
            throw new IllegalArgumentException(where + ": expected XA COMMIT or XA ROLLBACK, found: " + s);
        }
        List<byte[]> parts = new ArrayList<>();
        long formatId = 1;
        int i = at;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (Character.isWhitespace(c) || c == ',') {
                i++;
            } else if ((c == 'X' || c == 'x') && i + 1 < s.length() && s.charAt(i + 1) == '\'') {
                int close = s.indexOf('\'', i + 2);
                if (close < 0) {
                    throw new IllegalArgumentException(where + ": unterminated X'...' in: " + s);
                }
                parts.add(HexFormat.of().parseHex(s.substring(i + 2, close)));
                i = close + 1;
            } else if (c == '\'' || c == '"') {
                int close = s.indexOf(c, i + 1);
                if (close < 0) {
                    throw new IllegalArgumentException(where + ": unterminated string in: " + s);
                }
                parts.add(s.substring(i + 1, close).getBytes(StandardCharsets.UTF_8));
                i = close + 1;
            } else if (Character.isDigit(c) && parts.size() >= 1) {
                int j = i;
                while (j < s.length() && Character.isDigit(s.charAt(j))) {
                    j++;
                }
                formatId = Long.parseLong(s.substring(i, j));
                i = j;
            } else {
                break;
            }
        }
        if (parts.isEmpty()) {
            throw new IllegalArgumentException(where + ": no xid in: " + s);
        }
        return new XaXid(formatId, parts.get(0), parts.size() > 1 ? parts.get(1) : new byte[0]);
    }
}
