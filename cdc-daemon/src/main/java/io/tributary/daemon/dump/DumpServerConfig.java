package io.tributary.daemon.dump;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.storage.buffer.ByteSize;
import io.tributary.storage.buffer.DurationText;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The dump server's settings ({@code dump.*}). Every key is declared once in {@link Key} with its default and
 * meaning; {@link #parse} reads a snapshot of string values and reports every problem at once, each worded
 * {@code Invalid value V for configuration K: reason}.
 *
 * <p>Accounts: {@code dump.users[i].name}, {@code .password} or {@code .password-env} (the name of an
 * environment variable holding it), {@code .admin} (may {@code SET GLOBAL} the live settings). At least one
 * account is required: Tributary invents none, and a configuration without {@code dump.users} is refused
 * naming the key. Passwords are hashed at once ({@link DumpUser}); the cleartext is not kept.
 *
 * <p>TLS ({@code dump.tls.enabled}, default true, as a MySQL 8 server does): offered with the configured PEM
 * certificate and key, or, when none is configured, with a self-signed certificate generated at startup
 * (its SHA-256 fingerprint is logged). TLS is offered, never required: clients choose.
 *
 * @param bindHost       address to listen on ({@code dump.host}, default all)
 * @param port           {@code dump.port}, default 3399; 0 picks a free port (tests). 3306 is refused
 * @param flavor         which server the dump server looks like (follows {@code binlog.flavor})
 * @param serverId       {@code @@server_id} it reports (the global binlog's server id)
 * @param users          who may log in
 * @param maxConnections {@code dump.maxConnections}: connection N+1 gets error 1040
 * @param authTimeout    {@code dump.authTimeout}: a connection that has not authenticated by then is closed
 * @param idleTimeout    {@code dump.idleTimeout}: a connection in the command phase that sends nothing for this
 *                       long is closed (like {@code wait_timeout}); never applied to a subscriber that is dumping
 * @param cacheBytes     {@code dump.cache.size}: the shared tail cache, default 256 MB; 0 turns it off
 * @param tlsEnabled     {@code dump.tls.enabled}: offer TLS
 * @param tlsCertificate {@code dump.tls.certificate}: PEM certificate chain; null with TLS on = generate one
 * @param tlsKey         {@code dump.tls.key}: PEM PKCS#8 private key of that certificate
 * @param subscriberBufferBytes {@code dump.subscriber.buffer}: bytes queued for one subscriber before its
 *                       streamer waits (the channel's high water mark), default 1 MB
 */
public record DumpServerConfig(String bindHost, int port, BinlogFlavor flavor, long serverId, List<DumpUser> users,
                               int maxConnections, Duration authTimeout, Duration idleTimeout, long cacheBytes,
                               boolean tlsEnabled, Path tlsCertificate, Path tlsKey, int subscriberBufferBytes) {

    public static final int DEFAULT_PORT = 3399;
    static final int MIN_SUBSCRIBER_BUFFER = 64 * 1024;

    /** Every {@code dump.*} key, its default and its meaning. {@code [i]} stands for the account's index. */
    public enum Key {
        HOST("dump.host", "0.0.0.0", "Address the dump server listens on (0.0.0.0: all)."),
        PORT("dump.port", "3399", "Where replicas and CDC clients connect, 1 to 65535 (never 3306)."),
        MAX_CONNECTIONS("dump.maxConnections", "1000",
                "Open connections at most; one more gets MySQL error 1040 (Too many connections). 1 to 100000."),
        AUTH_TIMEOUT("dump.authTimeout", "10s", "A connection that has not logged in by then is closed. 100ms to 1h."),
        IDLE_TIMEOUT("dump.idleTimeout", "8h", "A connection between statements that sends nothing for this long is"
                + " closed (MySQL's wait_timeout); never a subscriber receiving the binlog. 1s to 365d."),
        CACHE_SIZE("dump.cache.size", "256MB", "Newest part of the global binlog kept in memory for tailing"
                + " subscribers (no disk read for them); 0 turns it off. At most the JVM's max heap. Unset: 256MB or an"
                + " eighth of the max heap, whichever is smaller (beside the transaction buffer's 25%)."),
        SUBSCRIBER_BUFFER("dump.subscriber.buffer", "1MB", "Bytes queued for one subscriber before it is made to"
                + " wait: the memory a stalled subscriber may hold. 64KB to 1GB."),
        TLS_ENABLED("dump.tls.enabled", "true", "Offer TLS (clients choose). Without a configured certificate, a"
                + " self-signed one is generated at startup and its SHA-256 fingerprint logged."),
        TLS_CERTIFICATE("dump.tls.certificate", null, "PEM certificate chain to offer (with dump.tls.key)."),
        TLS_KEY("dump.tls.key", null, "PEM PKCS#8 private key of dump.tls.certificate."),
        USER_NAME("dump.users[i].name", null, "An account downstream tools log in with (at least one is required)."),
        USER_PASSWORD("dump.users[i].password", null, "Its password (stored hashed in memory)."),
        USER_PASSWORD_ENV("dump.users[i].password-env", null,
                "Or: the environment variable holding its password (not both)."),
        USER_ADMIN("dump.users[i].admin", "false",
                "May change the live settings with SET GLOBAL on the dump port (SHOW VARIABLES shows them to all).");

        private final String key;
        private final String defaultValue;
        private final String doc;

        Key(String key, String defaultValue, String doc) {
            this.key = key;
            this.defaultValue = defaultValue;
            this.doc = doc;
        }

        /** The key; for an account's key, with {@code [i]} where the index goes. */
        public String key() {
            return key;
        }

        /** The key of account {@code index}, e.g. {@code dump.users[0].name}. */
        public String key(int index) {
            return key.replace("[i]", "[" + index + "]");
        }

        /** The default, or {@code null} when there is none (required, or optional without a value). */
        public String defaultValue() {
            return defaultValue;
        }

        public String doc() {
            return doc;
        }
    }

    private static final Pattern USER_KEY = Pattern.compile("dump\\.users\\[(\\d+)]\\.(.+)");
    private static final int MAX_USERS = 1024;
    private static final int MAX_USER_NAME = 80;

    public DumpServerConfig {
        if (port == 3306) {
            throw new IllegalArgumentException("dump.port must not be 3306 (the port of a real server); default is "
                    + DEFAULT_PORT);
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("dump.port must be 0-65535, got " + port);
        }
        if (maxConnections < 1) {
            throw new IllegalArgumentException("dump.maxConnections must be positive, got " + maxConnections);
        }
        if (authTimeout.isNegative() || authTimeout.isZero() || idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new IllegalArgumentException("dump.authTimeout and dump.idleTimeout must be positive, got "
                    + authTimeout + " and " + idleTimeout);
        }
        if (cacheBytes < 0) {
            throw new IllegalArgumentException("dump.cache.size must not be negative, got " + cacheBytes);
        }
        if ((tlsCertificate == null) != (tlsKey == null)) {
            throw new IllegalArgumentException("dump.tls.certificate and dump.tls.key go together; got certificate "
                    + tlsCertificate + " and key " + tlsKey);
        }
        if (tlsCertificate != null && !tlsEnabled) {
            throw new IllegalArgumentException("dump.tls.certificate is set but dump.tls.enabled is false");
        }
        if (subscriberBufferBytes < MIN_SUBSCRIBER_BUFFER) {
            throw new IllegalArgumentException("dump.subscriber.buffer must be at least 64KB, got " + subscriberBufferBytes);
        }
        users = List.copyOf(users);
    }

    /**
     * For embedding and tests: all addresses, port 3399, 1000 connections, 10 s to authenticate, 8 h idle, a
     * 256 MB tail cache, 1 MB per subscriber, and no TLS (see {@link #withTls} and {@link #withGeneratedTls}).
     * The daemon builds its configuration with {@link #parse}, where TLS is on by default.
     */
    public static DumpServerConfig defaults(BinlogFlavor flavor, long serverId, List<DumpUser> users) {
        return new DumpServerConfig("0.0.0.0", DEFAULT_PORT, flavor, serverId, users, 1000, Duration.ofSeconds(10),
                Duration.ofHours(8), 256L << 20, false, null, null, 1 << 20);
    }

    /**
     * Reads the {@code dump.*} keys ({@code dump.users[i].password-env} resolved from the process environment).
     *
     * @param dumpKeys every configured key starting with {@code dump.}, with its value
     * @param flavor   {@code binlog.flavor}: the server the dump server looks like
     * @param serverId {@code binlog.server.id}: the {@code @@server_id} it reports
     * @throws DumpConfigException listing every problem found
     */
    public static DumpServerConfig parse(Map<String, String> dumpKeys, BinlogFlavor flavor, long serverId) {
        return parse(dumpKeys, flavor, serverId, System::getenv);
    }

    /** As {@link #parse(Map, BinlogFlavor, long)}, with the environment variables given (tests). */
    public static DumpServerConfig parse(Map<String, String> dumpKeys, BinlogFlavor flavor, long serverId,
            Function<String, String> environment) {
        Parser p = new Parser(dumpKeys);
        String host = p.get(Key.HOST, v -> {
            if (v.isBlank()) {
                throw new IllegalArgumentException("an address or host name is required (0.0.0.0: all addresses)");
            }
            return v;
        });
        Integer port = p.get(Key.PORT, v -> {
            int n = parseInt(v, "a TCP port is 1 to 65535");
            if (n < 1 || n > 65535) {
                throw new IllegalArgumentException("a TCP port is 1 to 65535");
            }
            if (n == 3306) {
                throw new IllegalArgumentException("3306 is the usual port of a MySQL server on this machine; choose"
                        + " another (default 3399)");
            }
            return n;
        });
        Integer maxConnections = p.get(Key.MAX_CONNECTIONS, v -> inRange(parseInt(v, "not a number"), 1, 100_000));
        Duration authTimeout = p.get(Key.AUTH_TIMEOUT, v -> inRange(parseDuration(v), Duration.ofMillis(100),
                Duration.ofHours(1)));
        Duration idleTimeout = p.get(Key.IDLE_TIMEOUT, v -> inRange(parseDuration(v), Duration.ofSeconds(1),
                Duration.ofDays(365)));
        long maxHeap = Runtime.getRuntime().maxMemory();
        Long cache = p.get(Key.CACHE_SIZE, v -> {
            long n = ByteSize.parse(v);
            if (n > maxHeap) {
                throw new IllegalArgumentException("exceeds the JVM's max heap (" + ByteSize.format(maxHeap) + ")");
            }
            return n;
        });
        if (!p.has(Key.CACHE_SIZE)) {
            cache = Math.min(256L << 20, maxHeap / 8);
        }
        Long buffer = p.get(Key.SUBSCRIBER_BUFFER, v -> inRange(ByteSize.parse(v), (long) MIN_SUBSCRIBER_BUFFER,
                1L << 30));
        Boolean tls = p.get(Key.TLS_ENABLED, DumpServerConfig::parseBoolean);
        Path certificate = p.get(Key.TLS_CERTIFICATE, DumpServerConfig::readableFile);
        Path key = p.get(Key.TLS_KEY, DumpServerConfig::readableFile);
        if (p.has(Key.TLS_CERTIFICATE) != p.has(Key.TLS_KEY)) {
            Key missing = p.has(Key.TLS_CERTIFICATE) ? Key.TLS_KEY : Key.TLS_CERTIFICATE;
            p.problem(missing.key(), null, "dump.tls.certificate and dump.tls.key go together; give both or neither");
        } else if (p.has(Key.TLS_CERTIFICATE) && Boolean.FALSE.equals(tls)) {
            p.problem(Key.TLS_CERTIFICATE.key(), p.text(Key.TLS_CERTIFICATE),
                    "dump.tls.enabled is false; remove the certificate or enable TLS");
        } else if (certificate != null && key != null) {
            try {
                DumpTls.fromPem(certificate, key);
            } catch (IllegalArgumentException e) {
                p.problem(Key.TLS_CERTIFICATE.key(), certificate, e.getMessage());
            }
        }
        List<DumpUser> users = users(p, environment);
        p.reportUnknownKeys();
        if (!p.problems.isEmpty()) {
            throw new DumpConfigException(p.problems);
        }
        return new DumpServerConfig(host, port, flavor, serverId, users, maxConnections, authTimeout, idleTimeout,
                cache, tls, certificate, key, buffer.intValue());
    }

    private static List<DumpUser> users(Parser p, Function<String, String> environment) {
        List<DumpUser> users = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < MAX_USERS; i++) {
            if (!p.hasAccount(i)) {
                break;
            }
            String nameKey = Key.USER_NAME.key(i);
            String name = p.raw(nameKey);
            boolean nameOk = false;
            if (name == null || name.isBlank()) {
                p.problem(nameKey, name, "an account name is required");
            } else if (name.length() > MAX_USER_NAME || name.contains("'") || name.contains("\0")) {
                p.problem(nameKey, name, "1 to " + MAX_USER_NAME + " characters, without quotes");
            } else if (!names.add(name)) {
                p.problem(nameKey, name, "another dump user already has this name");
            } else {
                nameOk = true;
            }
            String passwordKey = Key.USER_PASSWORD.key(i);
            String envKey = Key.USER_PASSWORD_ENV.key(i);
            String password = p.raw(passwordKey);
            String variable = p.raw(envKey);
            if (password != null && variable != null) {
                p.problem(envKey, variable, "give either password or password-env, not both");
                password = null;
            } else if (variable != null) {
                password = environment.apply(variable.strip());
                if (password == null) {
                    p.problem(envKey, variable, "the environment variable " + variable + " is not set");
                }
            } else if (password == null) {
                p.problem(passwordKey, null, "a password (or password-env naming an environment variable) is required");
            }
            if (password != null && password.isEmpty()) {
                p.problem(variable != null ? envKey : passwordKey, variable != null ? variable : "(empty)",
                        "an empty password is not accepted");
                password = null;
            }
            String adminKey = Key.USER_ADMIN.key(i);
            Boolean admin = Boolean.FALSE;
            String adminText = p.raw(adminKey);
            if (adminText != null) {
                try {
                    admin = parseBoolean(adminText.strip());
                } catch (IllegalArgumentException e) {
                    p.problem(adminKey, adminText, e.getMessage());
                }
            }
            if (nameOk && password != null) {
                users.add(DumpUser.withPassword(name, password, admin));
            }
        }
        if (!p.hasAccount(0)) {
            p.problem("dump.users", "(none)", "at least one account is required: dump.users[0].name and"
                    + " dump.users[0].password (or .password-env); replicas and CDC tools log in with it");
        }
        return users;
    }

    public DumpServerConfig withPort(int newPort) {
        return new DumpServerConfig(bindHost, newPort, flavor, serverId, users, maxConnections, authTimeout,
                idleTimeout, cacheBytes, tlsEnabled, tlsCertificate, tlsKey, subscriberBufferBytes);
    }

    public DumpServerConfig withCacheBytes(long bytes) {
        return new DumpServerConfig(bindHost, port, flavor, serverId, users, maxConnections, authTimeout, idleTimeout,
                bytes, tlsEnabled, tlsCertificate, tlsKey, subscriberBufferBytes);
    }

    /** Offers TLS with this PEM certificate chain and PKCS#8 key. */
    public DumpServerConfig withTls(Path certificate, Path key) {
        return new DumpServerConfig(bindHost, port, flavor, serverId, users, maxConnections, authTimeout, idleTimeout,
                cacheBytes, true, certificate, key, subscriberBufferBytes);
    }

    /** Offers TLS with a self-signed certificate generated when the server is made. */
    public DumpServerConfig withGeneratedTls() {
        return new DumpServerConfig(bindHost, port, flavor, serverId, users, maxConnections, authTimeout, idleTimeout,
                cacheBytes, true, null, null, subscriberBufferBytes);
    }

    public DumpServerConfig withSubscriberBuffer(int bytes) {
        return new DumpServerConfig(bindHost, port, flavor, serverId, users, maxConnections, authTimeout, idleTimeout,
                cacheBytes, tlsEnabled, tlsCertificate, tlsKey, bytes);
    }

    public DumpServerConfig withMaxConnections(int max) {
        return new DumpServerConfig(bindHost, port, flavor, serverId, users, max, authTimeout, idleTimeout, cacheBytes,
                tlsEnabled, tlsCertificate, tlsKey, subscriberBufferBytes);
    }

    public DumpServerConfig withTimeouts(Duration auth, Duration idle) {
        return new DumpServerConfig(bindHost, port, flavor, serverId, users, maxConnections, auth, idle, cacheBytes,
                tlsEnabled, tlsCertificate, tlsKey, subscriberBufferBytes);
    }

    Map<String, DumpUser> usersByName() {
        return users.stream().collect(Collectors.toUnmodifiableMap(DumpUser::name, Function.identity()));
    }

    @Override
    public String toString() {
        return "DumpServerConfig[" + bindHost + ":" + port + " " + flavor + " server_id=" + serverId + ", users="
                + users.stream().map(u -> u.name() + (u.admin() ? " (admin)" : "")).toList() + ", maxConnections="
                + maxConnections + ", authTimeout=" + authTimeout + ", idleTimeout=" + idleTimeout + ", cache="
                + ByteSize.format(cacheBytes) + ", subscriberBuffer=" + ByteSize.format(subscriberBufferBytes)
                + ", tls=" + (!tlsEnabled ? "off" : tlsCertificate == null ? "generated" : tlsCertificate) + "]";
    }

    // ---- value parsing

    private static int parseInt(String v, String reason) {
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(reason);
        }
    }

    private static <T extends Comparable<T>> T inRange(T value, T min, T max) {
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new IllegalArgumentException("must be between " + show(min) + " and " + show(max));
        }
        return value;
    }

    private static String show(Object o) {
        if (o instanceof Long l && l >= 1024) {
            return ByteSize.format(l);
        }
        if (o instanceof Duration d) {
            long ms = d.toMillis();
            return ms % 86_400_000 == 0 ? ms / 86_400_000 + "d" : ms % 3_600_000 == 0 ? ms / 3_600_000 + "h"
                    : ms % 60_000 == 0 ? ms / 60_000 + "m" : ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
        }
        return o.toString();
    }

    static Boolean parseBoolean(String v) {
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "true" -> Boolean.TRUE;
            case "false" -> Boolean.FALSE;
            default -> throw new IllegalArgumentException("must be true or false");
        };
    }

    /** {@code 10s}, {@code 8h}, {@code 500ms}, or ISO-8601 ({@code PT8H}). */
    static Duration parseDuration(String v) {
        return DurationText.parse(v, "500ms, 10s, 5m, 8h, 1d, PT8H");
    }

    private static Path readableFile(String v) {
        Path path;
        try {
            path = Path.of(v);
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("not a path: " + e.getReason());
        }
        if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
            throw new IllegalArgumentException("no readable file " + path.toAbsolutePath());
        }
        return path;
    }

    static String message(String key, Object value, String reason) {
        return "Invalid value " + value + " for configuration " + key + ": " + reason;
    }

    /** Collects every problem; remembers which keys were read, so that the rest can be reported as unknown. */
    private static final class Parser {
        private final Map<String, String> values;
        private final Set<String> read = new HashSet<>();
        private final List<String> problems = new ArrayList<>();

        Parser(Map<String, String> values) {
            this.values = new LinkedHashMap<>(values);
            // an empty `certificate:` in YAML means none
            for (Key k : List.of(Key.TLS_CERTIFICATE, Key.TLS_KEY)) {
                if (this.values.get(k.key()) != null && this.values.get(k.key()).isBlank()) {
                    this.values.remove(k.key());
                    read.add(k.key());
                }
            }
        }

        boolean has(Key key) {
            return values.get(key.key()) != null;
        }

        String text(Key key) {
            return values.get(key.key());
        }

        String raw(String key) {
            read.add(key);
            return values.get(key);
        }

        boolean hasAccount(int index) {
            String prefix = "dump.users[" + index + "].";
            return values.keySet().stream().anyMatch(k -> k.startsWith(prefix));
        }

        <T> T get(Key key, Function<String, T> convert) {
            String v = raw(key.key());
            if (v == null) {
                v = key.defaultValue();
                if (v == null) {
                    return null;
                }
            }
            try {
                return convert.apply(v.strip());
            } catch (IllegalArgumentException e) {
                problem(key.key(), v, e.getMessage());
                return null;
            }
        }

        void problem(String key, Object value, String reason) {
            problems.add(message(key, value, reason));
        }

        void reportUnknownKeys() {
            Set<String> known = new TreeSet<>();
            for (Key k : Key.values()) {
                known.add(k.key());
            }
            for (Map.Entry<String, String> e : values.entrySet()) {
                if (read.contains(e.getKey())) {
                    continue;
                }
                Matcher m = USER_KEY.matcher(e.getKey());
                String reason = m.matches() && known.contains("dump.users[i]." + m.group(2))
                        ? "accounts are numbered from 0 without gaps; this one is not reached"
                        : "unknown key (known: " + String.join(", ", known) + ")";
                problem(e.getKey(), e.getValue(), reason);
            }
        }
    }
}
