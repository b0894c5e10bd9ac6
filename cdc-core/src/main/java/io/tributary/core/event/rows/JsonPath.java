package io.tributary.core.event.rows;

import java.util.ArrayList;
import java.util.List;

/**
 * Parses the simple MySQL JSON paths found in JSON diffs: {@code $} followed by member legs
 * ({@code .name} or {@code ."quoted name"}) and array-cell legs ({@code [3]}, {@code [last]},
 * {@code [last-1]}). Wildcards and ranges never occur in diffs and are refused.
 */
final class JsonPath {
    /** An array-cell leg: {@code index} counted from the start, or from the end when {@code fromEnd}. */
    record Cell(int index, boolean fromEnd) {
        /** The position in an array of {@code size} ({@code Json_array_index}). */
        int position(int size) {
            return fromEnd ? (index < size ? size - index - 1 : -1) : index;
        }
    }

    private JsonPath() {
    }

    /** The legs: {@link String} for members, {@link Cell} for array cells. */
    static List<Object> parse(String path) {
        int i = skipSpace(path, 0);
        if (i >= path.length() || path.charAt(i) != '$') {
            throw bad(path, i, "expected '$'");
        }
        i++;
        List<Object> legs = new ArrayList<>();
        while (true) {
            i = skipSpace(path, i);
            if (i >= path.length()) {
                return legs;
            }
            char c = path.charAt(i);
            if (c == '.') {
                i = skipSpace(path, i + 1);
                if (i < path.length() && path.charAt(i) == '"') {
                    StringBuilder sb = new StringBuilder();
                    i++;
                    while (true) {
                        if (i >= path.length()) {
                            throw bad(path, i, "unterminated quoted member");
                        }
                        char q = path.charAt(i++);
                        if (q == '"') {
                            break;
                        }
                        if (q == '\\') {
                            if (i >= path.length()) {
                                throw bad(path, i, "dangling escape");
                            }
                            char e = path.charAt(i++);
                            switch (e) {
                                case 'b' -> sb.append('\b');
                                case 'f' -> sb.append('\f');
                                case 'n' -> sb.append('\n');
                                case 'r' -> sb.append('\r');
                                case 't' -> sb.append('\t');
                                case 'u' -> {
                                    if (i + 4 > path.length()) {
                                        throw bad(path, i, "short \\u escape");
                                    }
                                    sb.append((char) Integer.parseInt(path.substring(i, i + 4), 16));
                                    i += 4;
                                }
                                default -> sb.append(e);
                            }
                        } else {
                            sb.append(q);
                        }
                    }
                    legs.add(sb.toString());
                } else {
                    int start = i;
                    while (i < path.length() && path.charAt(i) != '.' && path.charAt(i) != '['
                            && !Character.isWhitespace(path.charAt(i))) {
                        i++;
                    }
                    if (i == start || path.substring(start, i).equals("*")) {
                        throw bad(path, start, "expected a member name");
                    }
                    legs.add(path.substring(start, i));
                }
            } else if (c == '[') {
                int close = path.indexOf(']', i);
                if (close < 0) {
                    throw bad(path, i, "unterminated array cell");
                }
                String inner = path.substring(i + 1, close).trim();
                legs.add(cell(path, i, inner));
                i = close + 1;
            } else {
                throw bad(path, i, "expected '.' or '['");
            }
        }
    }

    private static Cell cell(String path, int at, String inner) {
        try {
            if (inner.startsWith("last")) {
                String rest = inner.substring(4).trim();
                if (rest.isEmpty()) {
                    return new Cell(0, true);
                }
                if (rest.startsWith("-")) {
                    return new Cell(Integer.parseInt(rest.substring(1).trim()), true);
                }
                throw bad(path, at, "expected [last] or [last-N]");
            }
            return new Cell(Integer.parseInt(inner), false);
        } catch (NumberFormatException e) {
            throw bad(path, at, "bad array index '" + inner + "'");
        }
    }

    private static int skipSpace(String s, int i) {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        return i;
    }

    private static RowDecodeException bad(String path, int at, String why) {
        return new RowDecodeException("JSON diff path '" + path + "' at character " + at + ": " + why);
    }
}
