package io.tributary.core.reader;

import io.tributary.core.config.ConfigProblem;
import io.tributary.core.position.ShardPosition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How a {@link ShardReader} reaches one shard and how much it may buffer. Immutable; validated on
 * construction, reporting every invalid value at once.
 *
 * @param shardName name used in thread names, events and errors
 * @param serverId the server id to register as; must differ from every other replica of the shard
 * @param startPosition where to start; a position with a GTID set starts by GTID
 * @param heartbeatPeriod how often the shard sends a heartbeat when idle ({@code Duration.ZERO}: never)
 * @param tls whether to switch to TLS after the greeting (refused if the shard does not offer it); the
 *        server certificate is verified, including its host name
 * @param tlsTrustedCertificatesPem PEM certificates to trust for TLS ({@code null}: the JDK's trust store)
 * @param connectTimeout limit for TCP connect and for the handshake and set-up queries
 * @param maxBufferedEvents events held between the socket and the sink before reading pauses
 * @param maxBufferedBytes event bytes held between the socket and the sink before reading pauses
 * @param backoff delays between reconnection attempts
 */
public record ShardReaderConfig(String shardName, String host, int port, String user, String password, long serverId,
                                ShardPosition startPosition, Duration heartbeatPeriod, boolean tls,
                                String tlsTrustedCertificatesPem, Duration connectTimeout, int maxBufferedEvents, long maxBufferedBytes, Backoff backoff) {

    /**
     * Exponential backoff: {@code initialDelay * multiplier^(attempt-1)}, at most {@code maxDelay}.
     *
     * @param maxAttempts consecutive failed attempts before the reader gives up; 0 = never gives up
     */
    public record Backoff(Duration initialDelay, Duration maxDelay, double multiplier, int maxAttempts) {
        /**
         * 200 ms doubling up to 2 s, never giving up. The cap is low on purpose: while one shard's reader is
         * away the whole global order waits for it, so a shard that is back must be found within seconds; an
         * attempt against a shard that is down costs one refused TCP connection.
         */
        public static final Backoff DEFAULT = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(2), 2.0, 0);

        public Backoff {
            List<String> problems = new ArrayList<>();
            check(problems, initialDelay != null && !initialDelay.isNegative() && !initialDelay.isZero(),
                    "backoff.initialDelay", initialDelay, "must be positive");
            check(problems, maxDelay != null && (initialDelay == null || maxDelay.compareTo(initialDelay) >= 0),
                    "backoff.maxDelay", maxDelay, "must be >= initialDelay");
            check(problems, multiplier >= 1.0, "backoff.multiplier", multiplier, "must be >= 1");
            check(problems, maxAttempts >= 0, "backoff.maxAttempts", maxAttempts, "must be >= 0");
            if (!problems.isEmpty()) {
                throw new IllegalArgumentException(String.join("; ", problems));
            }
        }

        /** The delay before attempt {@code attempt} (1-based). */
        public Duration delay(int attempt) {
            double ms = initialDelay.toMillis() * Math.pow(multiplier, Math.max(0, attempt - 1));
            return ms >= maxDelay.toMillis() ? maxDelay : Duration.ofMillis((long) ms);
        }
    }

    public ShardReaderConfig {
        List<String> problems = new ArrayList<>();
        check(problems, shardName != null && !shardName.isBlank(), "shardName", shardName, "must not be blank");
        check(problems, host != null && !host.isBlank(), "host", host, "must not be blank");
        check(problems, port > 0 && port < 65536, "port", port, "must be 1..65535");
        check(problems, user != null && !user.isEmpty(), "user", user, "must not be empty");
        check(problems, serverId > 0 && serverId <= 0xFFFF_FFFFL, "serverId", serverId, "must be 1..4294967295");
        check(problems, startPosition != null, "startPosition", startPosition, "must be set");
        check(problems, heartbeatPeriod != null && !heartbeatPeriod.isNegative(), "heartbeatPeriod", heartbeatPeriod,
                "must be >= 0");
        check(problems, connectTimeout != null && !connectTimeout.isNegative() && !connectTimeout.isZero(),
                "connectTimeout", connectTimeout, "must be positive");
        check(problems, maxBufferedEvents > 0, "maxBufferedEvents", maxBufferedEvents, "must be positive");
        check(problems, maxBufferedBytes > 0, "maxBufferedBytes", maxBufferedBytes, "must be positive");
        check(problems, backoff != null, "backoff", backoff, "must be set");
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        if (password == null) {
            password = "";
        }
    }

    private static void check(List<String> problems, boolean ok, String key, Object value, String reason) {
        if (!ok) {
            problems.add(ConfigProblem.invalid(key, value, reason).message());
        }
    }

    /** A configuration with the usual defaults: heartbeat 5 s, no TLS, 10 s connect timeout, 10000 events / 64 MB. */
    public static ShardReaderConfig of(String shardName, String host, int port, String user, String password,
                                       long serverId, ShardPosition start) {
        return new ShardReaderConfig(shardName, host, port, user, password, serverId, start, Duration.ofSeconds(5),
                false, null, Duration.ofSeconds(10), 10_000, 64L << 20, Backoff.DEFAULT);
    }

    public ShardReaderConfig withStartPosition(ShardPosition p) {
        return new ShardReaderConfig(shardName, host, port, user, password, serverId, p, heartbeatPeriod, tls,
                tlsTrustedCertificatesPem, connectTimeout, maxBufferedEvents, maxBufferedBytes, backoff);
    }

    public ShardReaderConfig withBuffer(int events, long bytes) {
        return new ShardReaderConfig(shardName, host, port, user, password, serverId, startPosition, heartbeatPeriod,
                tls, tlsTrustedCertificatesPem, connectTimeout, events, bytes, backoff);
    }

    public ShardReaderConfig withBackoff(Backoff b) {
        return new ShardReaderConfig(shardName, host, port, user, password, serverId, startPosition, heartbeatPeriod,
                tls, tlsTrustedCertificatesPem, connectTimeout, maxBufferedEvents, maxBufferedBytes, b);
    }

    public ShardReaderConfig withPassword(String p) {
        return new ShardReaderConfig(shardName, host, port, user, p, serverId, startPosition, heartbeatPeriod, tls,
                tlsTrustedCertificatesPem, connectTimeout, maxBufferedEvents, maxBufferedBytes, backoff);
    }

    /** TLS on, trusting the given PEM certificates ({@code null}: the JDK's trust store). */
    public ShardReaderConfig withTls(boolean on, String trustedCertificatesPem) {
        return new ShardReaderConfig(shardName, host, port, user, password, serverId, startPosition, heartbeatPeriod,
                on, trustedCertificatesPem, connectTimeout, maxBufferedEvents, maxBufferedBytes, backoff);
    }

    @Override
    public String toString() {
        return "ShardReaderConfig[shard=" + shardName + ", " + user + "@" + host + ":" + port + ", serverId=" + serverId
                + ", start=" + startPosition + ", heartbeat=" + heartbeatPeriod + ", tls=" + tls + (tlsTrustedCertificatesPem != null ? " (own trust)" : "") + ", connectTimeout="
                + connectTimeout + ", maxBufferedEvents=" + maxBufferedEvents + ", maxBufferedBytes=" + maxBufferedBytes
                + ", backoff=" + backoff + "]";
    }
}
