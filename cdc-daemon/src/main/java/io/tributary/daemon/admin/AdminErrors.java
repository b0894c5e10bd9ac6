package io.tributary.daemon.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The body of every refusal of the admin endpoints: {@code {"status":403,"error":"<why, and what to do>"}}, so
 * that a user of curl reads the reason without looking at the daemon's log.
 */
final class AdminErrors {

    /** Spring Web's JSON library, as the endpoints' other answers are written (no escaping by hand). */
    private static final ObjectMapper JSON = new ObjectMapper();

    private AdminErrors() {
    }

    static void send(HttpServletResponse response, int status, String reason) throws IOException {
        response.setStatus(status);
        response.setContentType("application/json");
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        response.getWriter().write(body(status, reason));
    }

    static String body(int status, String reason) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", status);
        body.put("error", reason);
        try {
            return JSON.writeValueAsString(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a map of a number and a string always serialises", e);
        }
    }
}
