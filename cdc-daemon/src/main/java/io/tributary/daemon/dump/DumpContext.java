package io.tributary.daemon.dump;

import io.netty.handler.ssl.SslContext;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.storage.tail.TailCache;

import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * What a {@link ConnectionHandler} needs of its server, and no more: it is built once by {@link DumpServer} and
 * shared by every connection (the server itself stays out of the connections' reach).
 *
 * @param config        limits, flavor and timeouts ({@code dump.*})
 * @param authenticator the users and how they log in
 * @param sslContext    TLS for connections that ask for it; null when not offered
 * @param responder     answers COM_QUERY (server variables, live variables, binlog views)
 * @param writer        the global binlog (its files, index and durable mark); returns null until the binlog is open
 * @param tailCache     the shared tail cache; returns null while there is none (turned off, or no binlog yet)
 * @param tailFanOut    serves the subscribers caught up with that cache from one thread; null while there is no cache
 * @param subscribers   the executor dumps and slow statements run on (never an event loop)
 * @param connections   counts connections against {@code dump.maxConnections} and tracks the dumping ones
 * @param fromFiles     counts events subscribers read from the binlog files
 * @param fromCache     counts events subscribers were sent from the tail cache
 */
record DumpContext(DumpServerConfig config, Authenticator authenticator, SslContext sslContext, QueryResponder responder,
        Supplier<GlobalBinlogWriter> writer, Supplier<TailCache> tailCache, Supplier<TailFanOut> tailFanOut,
        ExecutorService subscribers,
        DumpConnections connections, LongAdder fromFiles, LongAdder fromCache) {

    DumpContext {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(authenticator, "authenticator");
        Objects.requireNonNull(responder, "responder");
        Objects.requireNonNull(writer, "writer");
        Objects.requireNonNull(tailCache, "tailCache");
        Objects.requireNonNull(tailFanOut, "tailFanOut");
        Objects.requireNonNull(subscribers, "subscribers");
        Objects.requireNonNull(connections, "connections");
        Objects.requireNonNull(fromFiles, "fromFiles");
        Objects.requireNonNull(fromCache, "fromCache");
    }
}
