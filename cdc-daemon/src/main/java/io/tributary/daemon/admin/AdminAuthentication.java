package io.tributary.daemon.admin;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * HTTP Basic authentication for {@code /admin/**} against {@code cdc.admin.user} and its password
 * ({@code cdc.admin.password} or {@code cdc.admin.password-env}). Without configured credentials the admin
 * endpoints answer 403 to everyone. Passwords are compared in constant time. Every refusal says why in its body
 * ({@link AdminErrors}): which keys to set, or that the credentials were missing or wrong.
 */
public class AdminAuthentication extends OncePerRequestFilter {

    private final String user;
    private final byte[] password;
    private final String offReason;

    /**
     * @param offReason why the endpoints are off when {@code user} or {@code password} is null (shown in the 403)
     */
    public AdminAuthentication(String user, String password, String offReason) {
        this.user = user;
        this.password = password == null ? null : password.getBytes(StandardCharsets.UTF_8);
        this.offReason = offReason;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return !request.getRequestURI().startsWith("/admin");
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (user == null || password == null) {
            AdminErrors.send(response, HttpServletResponse.SC_FORBIDDEN, offReason);
            return;
        }
        String header = request.getHeader("Authorization");
        response.setHeader("WWW-Authenticate", "Basic realm=\"tributary\"");
        if (header == null || !header.startsWith("Basic ")) {
            AdminErrors.send(response, HttpServletResponse.SC_UNAUTHORIZED, "authentication required: HTTP Basic"
                    + " with cdc.admin.user and its password (curl -u USER:PASSWORD ...)");
            return;
        }
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(header.substring(6).strip()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            decoded = "";
        }
        int colon = decoded.indexOf(':');
        if (colon > 0 && decoded.substring(0, colon).equals(user) && MessageDigest.isEqual(password,
                decoded.substring(colon + 1).getBytes(StandardCharsets.UTF_8))) {
            response.setHeader("WWW-Authenticate", null);
            chain.doFilter(request, response);
            return;
        }
        AdminErrors.send(response, HttpServletResponse.SC_UNAUTHORIZED,
                "wrong user or password: the admin account is cdc.admin.user with cdc.admin.password"
                        + " (or cdc.admin.password-env)");
    }
}
