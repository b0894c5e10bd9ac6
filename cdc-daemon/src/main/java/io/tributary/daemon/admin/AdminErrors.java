package io.tributary.daemon.admin;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The body of every refusal of the admin endpoints: {@code {"status":403,"error":"<why, and what to do>"}}, so
 * that a user of curl reads the reason without looking at the daemon's log.
 */
final class AdminErrors {

    private AdminErrors() {
    }

    static void send(HttpServletResponse response, int status, String reason) throws IOException {
        response.setStatus(status);
        response.setContentType("application/json");
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        response.getWriter().write(body(status, reason));
    }

    static String body(int status, String reason) {
        return "{\"status\":" + status + ",\"error\":\"" + escape(reason) + "\"}";
    }

    private static String escape(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 8);
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.toString();
    }
}
