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
 * endpoints answer 403 to everyone. Passwords are compared in constant time.
 */
public class AdminAuthentication extends OncePerRequestFilter {

    private final String user;
    private final byte[] password;

    public AdminAuthentication(String user, String password) {
        this.user = user;
        this.password = password == null ? null : password.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return !request.getRequestURI().startsWith("/admin");
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (user == null || password == null) {
            response.sendError(HttpServletResponse.SC_FORBIDDEN,
                    "admin endpoints are off: set cdc.admin.user and cdc.admin.password (or password-env)");
            return;
        }
        String header = request.getHeader("Authorization");
        if (header != null && header.startsWith("Basic ")) {
            String decoded;
            try {
                decoded = new String(Base64.getDecoder().decode(header.substring(6).strip()), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                decoded = "";
            }
            int colon = decoded.indexOf(':');
            if (colon > 0 && decoded.substring(0, colon).equals(user) && MessageDigest.isEqual(password,
                    decoded.substring(colon + 1).getBytes(StandardCharsets.UTF_8))) {
                chain.doFilter(request, response);
                return;
            }
        }
        response.setHeader("WWW-Authenticate", "Basic realm=\"tributary\"");
        response.sendError(HttpServletResponse.SC_UNAUTHORIZED, "authentication required");
    }
}
