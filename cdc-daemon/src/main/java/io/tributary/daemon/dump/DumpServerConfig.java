package io.tributary.daemon.dump;

import io.tributary.core.config.ByteSize;
import io.tributary.core.config.ConfigKey;
import io.tributary.core.config.ConfigProblems;
import io.tributary.core.config.ConfigurationException;
import io.tributary.core.config.DurationText;
import io.tributary.core.event.BinlogFlavor;
import io.tributary.storage.binlog.ChecksumPolicy;
import io.tributary.storage.memory.MemoryBudget;
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
 * The dump server's settings ({@code dump.*}). Every key is declared once below ({@link #KEYS}) with its default,
 * validator and meaning; {@link #parse} reads a snapshot of string values and reports every problem at once, each worded
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
 * @param aheadWait      {@code dump.aheadWait}: how long a dump request for a GTID or position this daemon has not
 *                       written yet waits for it before error 1236 (a subscriber moving to a twin a little behind)
 * @param checksums      {@code dump.checksums}: when a subscriber's events read from the files have their CRC32 checked
 */
public record DumpServerConfig(String bindHost, int port, BinlogFlavor flavor, long serverId, List<DumpUser> users,
                               int maxConnections, Duration authTimeout, Duration idleTimeout, long cacheBytes,
                               boolean tlsEnabled, Path tlsCertificate, Path tlsKey, int subscriberBufferBytes,
                               Duration aheadWait, ChecksumPolicy checksums) {

    public static final int DEFAULT_PORT = 3399;
    static final int MIN_SUBSCRIBER_BUFFER = 64 * 1024;

    public static final ConfigKey<String> HOST = ConfigKey.define("dump.host", String.class).defaultValue("0.0.0.0")
            .parser(v -> {
                if (v.isBlank()) {
                    throw new IllegalArgumentException("an address or host name is required (0.0.0.0: all addresses)");
                }
                return v;
            })
            .doc("Address the dump server listens on (0.0.0.0: all).").build();
    public static final ConfigKey<Integer> PORT = ConfigKey.define("dump.port", Integer.class)
            .defaultValue(Integer.toString(DEFAULT_PORT)).parser(v -> parseInt(v, "a TCP port is 1 to 65535"))
            .validator(n -> {
                if (n < 1 || n > 65535) {
                    throw new IllegalArgumentException("a TCP port is 1 to 65535");
                }
                if (n == 3306) {
                    throw new IllegalArgumentException("3306 is the usual port of a MySQL server on this machine;"
                            + " choose another (default " + DEFAULT_PORT + ")");
                }
            })
            .doc("Where replicas and CDC clients connect, 1 to 65535 (never 3306).").build();
    public static final ConfigKey<Integer> MAX_CONNECTIONS = ConfigKey.define("dump.maxConnections", Integer.class)
            .defaultValue("1000").parser(v -> parseInt(v, "not a number")).validator(inRange(1, 100_000))
            .doc("Open connections at most; one more gets MySQL error 1040 (Too many connections). 1 to 100000.")
            .build();
    public static final ConfigKey<Duration> AUTH_TIMEOUT = ConfigKey.define("dump.authTimeout", Duration.class)
            .defaultValue("10s").parser(DumpServerConfig::parseDuration)
            .validator(inRange(Duration.ofMillis(100), Duration.ofHours(1)))
            .doc("A connection that has not logged in by then is closed. 100ms to 1h.").build();
    public static final ConfigKey<Duration> IDLE_TIMEOUT = ConfigKey.define("dump.idleTimeout", Duration.class)
            .defaultValue("8h").parser(DumpServerConfig::parseDuration)
            .validator(inRange(Duration.ofSeconds(1), Duration.ofDays(365)))
            .doc("A connection between statements that sends nothing for this long gets error 4031 and is closed"
                    + " (MySQL's wait_timeout); a subscriber receiving the binlog is never timed out. 1s to 365d.")
            .build();
    public static final ConfigKey<Duration> AHEAD_WAIT = ConfigKey.define("dump.aheadWait", Duration.class)
            .defaultValue("60s").parser(DumpServerConfig::parseDuration)
            .validator(inRange(Duration.ZERO, Duration.ofHours(1)))
            .doc("A dump request for a GTID (or position) this daemon has not written yet waits up to this long for it,"
                    + " instead of failing at once with error 1236: a subscriber that moves to a twin a little behind"
                    + " just continues. Still not written then: error 1236 saying how far behind this daemon is."
                    + " 0s to 1h; 0s refuses at once.")
            .build();
    public static final ConfigKey<ChecksumPolicy> CHECKSUMS = ConfigKey.define("dump.checksums",
                    ChecksumPolicy.class)
            .defaultValue("first-read").parser(DumpServerConfig::parseChecksums)
            .doc("When the CRC32 of an event a subscriber reads from the files is checked: first-read checks each event"
                    + " once, when the first subscriber of this process reads it, and refuses a damaged one to every"
                    + " subscriber (error 1236 saying where); every-read checks it for every subscriber, which costs"
                    + " serving speed and also catches bytes that change on disk after their first read (MySQL's"
                    + " source_verify_checksum). Events served from the tail cache are not read from disk.")
            .build();
    public static final ConfigKey<Long> CACHE_SIZE = ConfigKey.define("dump.cache.size", Long.class)
            .computedDefault(() -> ByteSize.format(MemoryBudget.defaultTailCache(Runtime.getRuntime().maxMemory())),
                    ByteSize.format(MemoryBudget.TAIL_CACHE_CAP) + " or an eighth of the max heap, whichever is smaller")
            .parser(ByteSize::parse)
            .validator(n -> {
                long maxHeap = Runtime.getRuntime().maxMemory();
                if (n > maxHeap) {
                    throw new IllegalArgumentException("exceeds the JVM's max heap (" + ByteSize.format(maxHeap) + ")");
                }
            })
            .doc("Newest part of the global binlog kept in memory and shared by every tailing subscriber (no disk read"
                    + " for them); a subscriber further behind reads the files. Filled only while some subscriber has"
                    + " asked for it in the last 30 s (a daemon catching up with nobody tailing copies nothing into"
                    + " it). 0 turns it off. At most the JVM's max"
                    + " heap; the default leaves room beside the transaction buffer (25% of the heap by default).")
            .build();
    public static final ConfigKey<Long> SUBSCRIBER_BUFFER = ConfigKey.define("dump.subscriber.buffer", Long.class)
            .defaultValue("1MB").parser(ByteSize::parse).validator(inRange((long) MIN_SUBSCRIBER_BUFFER, 1L << 30))
            .doc("Bytes queued for one subscriber before it is made to wait: what a stalled subscriber can hold in"
                    + " memory. A slow subscriber never slows the writer or the others. 64KB to 1GB.")
            .build();
    /** On when unset: the daemon offers TLS as a MySQL 8 server does (see {@link #defaults} for embedding). */
    public static final ConfigKey<Boolean> TLS_ENABLED = ConfigKey.define("dump.tls.enabled", Boolean.class)
            .defaultValue("true").parser(DumpServerConfig::parseBoolean)
            .doc("Offer TLS; clients choose whether to use it. Without certificate/key a self-signed certificate is"
                    + " generated at every start and its SHA-256 fingerprint logged (clients that verify certificates"
                    + " need yours).")
            .build();
    public static final ConfigKey<Path> TLS_CERTIFICATE = ConfigKey.define("dump.tls.certificate", Path.class)
            .parser(DumpServerConfig::readableFile)
            .doc("PEM certificate chain to offer instead, with dump.tls.key (both or neither); empty: generate one.")
            .build();
    public static final ConfigKey<Path> TLS_KEY = ConfigKey.define("dump.tls.key", Path.class)
            .parser(DumpServerConfig::readableFile)
            .doc("PEM PKCS#8 private key of dump.tls.certificate.").build();
    public static final ConfigKey<String> USER_NAME = ConfigKey.define("dump.users[i].name", String.class).required()
            .parser(v -> v)
            .doc("An account downstream tools log in with (mysql_native_password or caching_sha2_password). At least"
                    + " one is required: without dump.users Tributary refuses to start.")
            .build();
    public static final ConfigKey<String> USER_PASSWORD = ConfigKey.define("dump.users[i].password", String.class)
            .parser(v -> v).doc("Its password, inline; or password-env (not both). Passwords are kept only hashed in"
                    + " memory.").build();
    public static final ConfigKey<String> USER_PASSWORD_ENV = ConfigKey.define("dump.users[i].password-env",
            String.class).parser(v -> v).doc("The name of an environment variable holding its password; or password"
                    + " (not both). Passwords are kept only hashed in memory.").build();
    public static final ConfigKey<Boolean> USER_ADMIN = ConfigKey.define("dump.users[i].admin", Boolean.class)
            .defaultValue("false").parser(DumpServerConfig::parseBoolean)
            .doc("May change the live settings (the storage.persist keys) with SQL on the dump port: SHOW VARIABLES"
                    + " LIKE 'storage%'; SET GLOBAL storage.persist.mode = 'FORCE'. Others may read them and get error"
                    + " 1227 on SET GLOBAL.")
            .build();

    /** Every {@code dump.*} key, in declaration order; {@code [i]} stands for the account's index. */
    public static final List<ConfigKey<?>> KEYS = List.of(HOST, PORT, MAX_CONNECTIONS, AUTH_TIMEOUT, IDLE_TIMEOUT,
            AHEAD_WAIT, CHECKSUMS, CACHE_SIZE, SUBSCRIBER_BUFFER, TLS_ENABLED, TLS_CERTIFICATE, TLS_KEY, USER_NAME, USER_PASSWORD,
            USER_PASSWORD_ENV, USER_ADMIN);

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
        if (aheadWait == null || aheadWait.isNegative()) {
            throw new IllegalArgumentException("dump.aheadWait must not be negative, got " + aheadWait);
        }
        java.util.Objects.requireNonNull(checksums, "dump.checksums");
        users = List.copyOf(users);
    }

    /**
     * For embedding and tests: every key at its declared default (all addresses, port 3399, 1000 connections,
     * 10 s to authenticate, 8 h idle, 1 MB per subscriber), a 256 MB tail cache, and no TLS (see {@link #withTls}
     * and {@link #withGeneratedTls}): unlike the daemon, where {@link #TLS_ENABLED} is on when unset, an embedder
     * opts in, so that no certificate is generated for a server that does not need one.
     */
    public static DumpServerConfig defaults(BinlogFlavor flavor, long serverId, List<DumpUser> users) {
        return new DumpServerConfig(HOST.parse(HOST.defaultText()), PORT.parse(PORT.defaultText()), flavor, serverId,
                users, MAX_CONNECTIONS.parse(MAX_CONNECTIONS.defaultText()), AUTH_TIMEOUT.parse(AUTH_TIMEOUT.defaultText()),
                IDLE_TIMEOUT.parse(IDLE_TIMEOUT.defaultText()), MemoryBudget.TAIL_CACHE_CAP, false, null, null,
                SUBSCRIBER_BUFFER.parse(SUBSCRIBER_BUFFER.defaultText()).intValue(),
                AHEAD_WAIT.parse(AHEAD_WAIT.defaultText()), CHECKSUMS.parse(CHECKSUMS.defaultText()));
    }

    /**
     * Reads the {@code dump.*} keys ({@code dump.users[i].password-env} resolved from the process environment).
     *
     * @param dumpKeys every configured key starting with {@code dump.}, with its value
     * @param flavor   {@code binlog.flavor}: the server the dump server looks like
     * @param serverId {@code binlog.server.id}: the {@code @@server_id} it reports
     * @throws ConfigurationException listing every problem found
     */
    public static DumpServerConfig parse(Map<String, String> dumpKeys, BinlogFlavor flavor, long serverId) {
        return parse(dumpKeys, flavor, serverId, System::getenv);
    }

    /** As {@link #parse(Map, BinlogFlavor, long)}, with the environment variables given (tests). */
    public static DumpServerConfig parse(Map<String, String> dumpKeys, BinlogFlavor flavor, long serverId,
            Function<String, String> environment) {
        Parser p = new Parser(dumpKeys);
        String host = p.get(HOST);
        Integer port = p.get(PORT);
        Integer maxConnections = p.get(MAX_CONNECTIONS);
        Duration authTimeout = p.get(AUTH_TIMEOUT);
        Duration idleTimeout = p.get(IDLE_TIMEOUT);
        Duration aheadWait = p.get(AHEAD_WAIT);
        ChecksumPolicy checksums = p.get(CHECKSUMS);
        Long cache = p.get(CACHE_SIZE);
        Long buffer = p.get(SUBSCRIBER_BUFFER);
        Boolean tls = p.get(TLS_ENABLED);
        Path certificate = p.get(TLS_CERTIFICATE);
        Path key = p.get(TLS_KEY);
        if (p.has(TLS_CERTIFICATE) != p.has(TLS_KEY)) {
            ConfigKey<Path> missing = p.has(TLS_CERTIFICATE) ? TLS_KEY : TLS_CERTIFICATE;
            p.problems.add(missing.name(), null, "dump.tls.certificate and dump.tls.key go together; give both or neither");
        } else if (p.has(TLS_CERTIFICATE) && Boolean.FALSE.equals(tls)) {
            p.problems.add(TLS_CERTIFICATE.name(), p.text(TLS_CERTIFICATE),
                    "dump.tls.enabled is false; remove the certificate or enable TLS");
        } else if (certificate != null && key != null) {
            try {
                DumpTls.fromPem(certificate, key);
            } catch (IllegalArgumentException e) {
                p.problems.add(TLS_CERTIFICATE.name(), certificate, e.getMessage());
            }
        }
        List<DumpUser> users = users(p, environment);
        p.reportUnknownKeys();
        p.problems.throwIfAny();
        return new DumpServerConfig(host, port, flavor, serverId, users, maxConnections, authTimeout, idleTimeout,
                cache, tls, certificate, key, buffer.intValue(), aheadWait, checksums);
    }

    private static List<DumpUser> users(Parser p, Function<String, String> environment) {
        ConfigProblems problems = p.problems;
        List<DumpUser> users = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < MAX_USERS; i++) {
            if (!p.hasAccount(i)) {
                break;
            }
            String nameKey = USER_NAME.name(i);
            String name = p.raw(nameKey);
            boolean nameOk = false;
            if (name == null || name.isBlank()) {
                problems.add(nameKey, name, "an account name is required");
            } else if (name.length() > MAX_USER_NAME || name.contains("'") || name.contains("\0")) {
                problems.add(nameKey, name, "1 to " + MAX_USER_NAME + " characters, without quotes");
            } else if (!names.add(name)) {
                problems.add(nameKey, name, "another dump user already has this name");
            } else {
                nameOk = true;
            }
            String passwordKey = USER_PASSWORD.name(i);
            String envKey = USER_PASSWORD_ENV.name(i);
            String password = p.raw(passwordKey);
            String variable = p.raw(envKey);
            if (password != null && variable != null) {
                problems.add(envKey, variable, "give either password or password-env, not both");
                password = null;
            } else if (variable != null) {
                password = environment.apply(variable.strip());
                if (password == null) {
                    problems.add(envKey, variable, "the environment variable " + variable + " is not set");
                }
            } else if (password == null) {
                problems.add(passwordKey, null, "a password (or password-env naming an environment variable) is required");
            }
            if (password != null && password.isEmpty()) {
                problems.add(variable != null ? envKey : passwordKey, variable != null ? variable : "(empty)",
                        "an empty password is not accepted");
                password = null;
            }
            String adminKey = USER_ADMIN.name(i);
            Boolean admin = problems.read(USER_ADMIN, adminKey, p.raw(adminKey), true);
            if (nameOk && password != null) {
                users.add(DumpUser.withPassword(name, password, admin == null ? Boolean.FALSE : admin));
            }
        }
        if (!p.hasAccount(0)) {
            problems.add("dump.users", "(none)", "at least one account is required: " + USER_NAME.name(0) + " and "
                    + USER_PASSWORD.name(0) + " (or .password-env); replicas and CDC tools log in with it");
        }
        return users;
    }

    public DumpServerConfig withPort(int newPort) {
        return new DumpServerConfig(bindHost, newPort, flavor, serverId, users, maxConnections, authTimeout,
                idleTimeout, cacheBytes, tlsEnabled, tlsCertificate, tlsKey, subscriberBufferBytes, aheadWait, checksums);
    }

    public DumpServerConfig withCacheBytes(long bytes) {
        return new DumpServerConfig(bindHost, port, flavor, serverId, users, maxConnections, authTimeout, idleTimeout,
                bytes, tlsEnabled, tlsCertificate, tlsKey, subscriberBufferBytes, aheadWait, checksums);
    }

    /** Offers TLS with this PEM certificate chain and PKCS#8 key. */
    public DumpServerConfig withTls(Path certificate, Path key) {
        return new DumpServerConfig(bindHost, port, flavor, serverId, users, maxConnections, authTimeout, idleTimeout,
                cacheBytes, true, certificate, key, subscriberBufferBytes, aheadWait, checksums);
    }

    /** Offers TLS with a self-signed certificate generated when the server is made. */
    public DumpServerConfig withGeneratedTls() {
        return new DumpServerConfig(bindHost, port, flavor, serverId, users, maxConnections, authTimeout, idleTimeout,
                cacheBytes, true, null, null, subscriberBufferBytes, aheadWait, checksums);
    }

    public DumpServerConfig withSubscriberBuffer(int bytes) {
        return new DumpServerConfig(bindHost, port, flavor, serverId, users, maxConnections, authTimeout, idleTimeout,
                cacheBytes, tlsEnabled, tlsCertificate, tlsKey, bytes, aheadWait, checksums);
    }

    public DumpServerConfig withMaxConnections(int max) {
        return new DumpServerConfig(bindHost, port, flavor, serverId, users, max, authTimeout, idleTimeout, cacheBytes,
                tlsEnabled, tlsCertificate, tlsKey, subscriberBufferBytes, aheadWait, checksums);
    }

    public DumpServerConfig withAheadWait(Duration wait) {
        return new DumpServerConfig(bindHost, port, flavor, serverId, users, maxConnections, authTimeout, idleTimeout,
                cacheBytes, tlsEnabled, tlsCertificate, tlsKey, subscriberBufferBytes, wait, checksums);
    }

    public DumpServerConfig withChecksums(ChecksumPolicy policy) {
        return new DumpServerConfig(bindHost, port, flavor, serverId, users, maxConnections, authTimeout, idleTimeout,
                cacheBytes, tlsEnabled, tlsCertificate, tlsKey, subscriberBufferBytes, aheadWait, policy);
    }

    public DumpServerConfig withTimeouts(Duration auth, Duration idle) {
        return new DumpServerConfig(bindHost, port, flavor, serverId, users, maxConnections, auth, idle, cacheBytes,
                tlsEnabled, tlsCertificate, tlsKey, subscriberBufferBytes, aheadWait, checksums);
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
                + ", checksums=" + checksums.name().toLowerCase(Locale.ROOT).replace('_', '-')
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

    private static <T extends Comparable<T>> ConfigKey.Validator<T> inRange(T min, T max) {
        return value -> {
            if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
                throw new IllegalArgumentException("must be between " + show(min) + " and " + show(max));
            }
        };
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

    /** {@code first-read} or {@code every-read}. */
    static ChecksumPolicy parseChecksums(String v) {
        return switch (v.strip().toLowerCase(Locale.ROOT)) {
            case "first-read" -> ChecksumPolicy.FIRST_READ;
            case "every-read" -> ChecksumPolicy.EVERY_READ;
            default -> throw new IllegalArgumentException("must be first-read or every-read");
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

    /** Collects every problem; remembers which keys were read, so that the rest can be reported as unknown. */
    private static final class Parser {
        private final Map<String, String> values;
        private final Set<String> read = new HashSet<>();
        private final ConfigProblems problems = new ConfigProblems();

        Parser(Map<String, String> values) {
            this.values = new LinkedHashMap<>(values);
            // an empty `certificate:` in YAML means none
            for (ConfigKey<Path> k : List.of(TLS_CERTIFICATE, TLS_KEY)) {
                if (this.values.get(k.name()) != null && this.values.get(k.name()).isBlank()) {
                    this.values.remove(k.name());
                    read.add(k.name());
                }
            }
        }

        boolean has(ConfigKey<?> key) {
            return values.get(key.name()) != null;
        }

        String text(ConfigKey<?> key) {
            return values.get(key.name());
        }

        String raw(String key) {
            read.add(key);
            return values.get(key);
        }

        boolean hasAccount(int index) {
            String prefix = "dump.users[" + index + "].";
            return values.keySet().stream().anyMatch(k -> k.startsWith(prefix));
        }

        /** The value (or default) converted and validated; null when absent without default or refused. */
        <T> T get(ConfigKey<T> key) {
            return problems.read(key, key.name(), raw(key.name()), true);
        }

        void reportUnknownKeys() {
            Set<String> known = new TreeSet<>();
            for (ConfigKey<?> k : KEYS) {
                known.add(k.name());
            }
            for (Map.Entry<String, String> e : values.entrySet()) {
                if (read.contains(e.getKey())) {
                    continue;
                }
                Matcher m = USER_KEY.matcher(e.getKey());
                String reason = m.matches() && known.contains("dump.users[i]." + m.group(2))
                        ? "accounts are numbered from 0 without gaps; this one is not reached"
                        : "unknown key (known: " + String.join(", ", known) + ")";
                problems.add(e.getKey(), e.getValue(), reason);
            }
        }
    }
}
