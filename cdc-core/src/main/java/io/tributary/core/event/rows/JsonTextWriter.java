package io.tributary.core.event.rows;

import java.math.BigDecimal;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Writes a {@link JsonDocument} tree as JSON text the way MySQL's {@code Json_wrapper::to_string} does:
 * {@code ", "} between members and elements, {@code ": "} after keys, doubles with at least one decimal
 * place or an exponent, temporal values as quoted strings with 6 fractional digits (dates without time).
 * Stateless and thread-safe.
 */
final class JsonTextWriter {
    private JsonTextWriter() {
    }

    static String write(Object node) {
        StringBuilder sb = new StringBuilder();
        write(sb, node);
        return sb.toString();
    }

    private static void write(StringBuilder sb, Object node) {
        if (node instanceof Map<?, ?> m) {
            sb.append('{');
            Iterator<? extends Map.Entry<?, ?>> it = m.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<?, ?> e = it.next();
                quote(sb, (String) e.getKey());
                sb.append(": ");
                write(sb, e.getValue());
                if (it.hasNext()) {
                    sb.append(", ");
                }
            }
            sb.append('}');
        } else if (node instanceof List<?> l) {
            sb.append('[');
            for (int i = 0; i < l.size(); i++) {
                if (i > 0) {
                    sb.append(", ");
                }
                write(sb, l.get(i));
            }
            sb.append(']');
        } else if (node instanceof String s) {
            quote(sb, s);
        } else if (node instanceof Double d) {
            sb.append(formatDouble(d));
        } else if (node instanceof BigDecimal bd) {
            sb.append(bd.toPlainString());
        } else if (node instanceof JsonTemporal t) {
            quote(sb, t.text());
        } else if (node instanceof JsonOpaque o) {
            quote(sb, o.toString());
        } else {
            sb.append(node);   // Long, BigInteger, Boolean, JsonNull
        }
    }

    static String formatDouble(double d) {
        String s = Double.toString(d);
        int e = s.indexOf('E');
        if (e < 0) {
            return s;
        }
        String mantissa = s.substring(0, e);
        if (mantissa.endsWith(".0")) {
            mantissa = mantissa.substring(0, mantissa.length() - 2);
        }
        String exp = s.substring(e + 1);
        return mantissa + "e" + exp;
    }

    static void quote(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
