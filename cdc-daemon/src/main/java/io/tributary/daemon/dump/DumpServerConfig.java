package io.tributary.daemon.dump;

import io.tributary.core.event.BinlogFlavor;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The dump server's settings ({@code dump.*}).
 *
 * @param bindHost       address to listen on ({@code dump.host}, default all)
 * @param port           {@code dump.port}, default 3399; 0 picks a free port (tests). 3306 is refused
 * @param flavor         which server the dump server looks like (follows {@code binlog.flavor})
 * @param serverId       {@code @@server_id} it reports (the global binlog's server id)
 * @param users          who may log in
 * @param maxConnections {@code dump.maxConnections}
 * @param authTimeout    a connection that has not authenticated by then is closed
 * @param cacheBytes     {@code dump.cache.size}: the shared tail cache, default 256 MB; 0 turns it off
 * @param tlsCertificate {@code dump.tls.certificate}: PEM certificate chain; null = no TLS offered
 * @param tlsKey         {@code dump.tls.key}: PEM PKCS#8 private key of that certificate
 * @param subscriberBufferBytes {@code dump.subscriber.buffer}: bytes queued for one subscriber before its
 *                       streamer waits (the channel's high water mark), default 1 MB
 */
public record DumpServerConfig(String bindHost, int port, BinlogFlavor flavor, long serverId, List<DumpUser> users,
                               int maxConnections, Duration authTimeout, long cacheBytes, Path tlsCertificate,
                               Path tlsKey, int subscriberBufferBytes) {

    public static final int DEFAULT_PORT = 3399;

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
        if (cacheBytes < 0) {
            throw new IllegalArgumentException("dump.cache.size must not be negative, got " + cacheBytes);
        }
        if ((tlsCertificate == null) != (tlsKey == null)) {
            throw new IllegalArgumentException("dump.tls.certificate and dump.tls.key go together; got certificate "
                    + tlsCertificate + " and key " + tlsKey);
        }
        if (subscriberBufferBytes < 64 * 1024) {
            throw new IllegalArgumentException("dump.subscriber.buffer must be at least 64KB, got " + subscriberBufferBytes);
        }
        users = List.copyOf(users);
    }

    /** Defaults: all addresses, port 3399, 1000 connections, 10 s to authenticate, a 256 MB tail cache. */
    public static DumpServerConfig defaults(BinlogFlavor flavor, long serverId, List<DumpUser> users) {
        return new DumpServerConfig("0.0.0.0", DEFAULT_PORT, flavor, serverId, users, 1000, Duration.ofSeconds(10),
                256L << 20, null, null, 1 << 20);
    }

    public DumpServerConfig withPort(int newPort) {
        return new DumpServerConfig(bindHost, newPort, flavor, serverId, users, maxConnections, authTimeout, cacheBytes,
                tlsCertificate, tlsKey, subscriberBufferBytes);
    }

    public DumpServerConfig withCacheBytes(long bytes) {
        return new DumpServerConfig(bindHost, port, flavor, serverId, users, maxConnections, authTimeout, bytes,
                tlsCertificate, tlsKey, subscriberBufferBytes);
    }

    /** Offers TLS with this PEM certificate chain and PKCS#8 key. */
    public DumpServerConfig withTls(Path certificate, Path key) {
        return new DumpServerConfig(bindHost, port, flavor, serverId, users, maxConnections, authTimeout, cacheBytes,
                certificate, key, subscriberBufferBytes);
    }

    public DumpServerConfig withSubscriberBuffer(int bytes) {
        return new DumpServerConfig(bindHost, port, flavor, serverId, users, maxConnections, authTimeout, cacheBytes,
                tlsCertificate, tlsKey, bytes);
    }

    Map<String, DumpUser> usersByName() {
        return users.stream().collect(Collectors.toUnmodifiableMap(DumpUser::name, Function.identity()));
    }
}
