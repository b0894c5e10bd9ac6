package io.tributary.daemon.dump;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.tributary.core.packet.MySqlPacketDecoder;
import io.tributary.core.packet.MySqlPacketEncoder;
import io.tributary.core.packet.PacketSequence;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.storage.tail.TailCache;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Serves the global binlog over the MySQL replication protocol: replicas, {@code mysqlbinlog}/{@code
 * mariadb-binlog} and CDC clients connect to it as to one MySQL or MariaDB server ({@code dump.port}, 3399).
 *
 * <p>Netty NIO: one boss thread accepts, {@code max(2, cores)} event loops run the protocol (handshake,
 * statements) and never block; each dumping subscriber reads the binlog files on its own thread of the
 * subscriber executor and writes only while its channel is writable (high water mark {@code dump.subscriber.buffer}),
 * so one slow
 * subscriber never slows the writer or the others.
 *
 * <p>The writer is given as a supplier that returns null until the global binlog is open; a dump request
 * before that gets a clean error 1236. The daemon passes its live settings ({@link LiveVariables}, the
 * daemon's {@code LiveConfig}) so that admin accounts can {@code SET GLOBAL} them here. Typical use:
 * <pre>
 * DumpServer server = new DumpServer(tributaryConfig.dump(), () -> writerOrNull, liveConfig).start();
 * ...
 * server.close();
 * </pre>
 * Thread-safe; {@link #start()} once, {@link #close()} once.
 */
public final class DumpServer implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(DumpServer.class);

    private final DumpServerConfig config;
    private final Supplier<GlobalBinlogWriter> writer;
    private final Authenticator authenticator;
    private final QueryResponder responder;
    private final DumpTls tls;
    private final DumpConnections connections;
    private final AtomicInteger subscriberThreads = new AtomicInteger();
    private final ExecutorService subscribers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "dump-subscriber-" + subscriberThreads.incrementAndGet());
        t.setDaemon(true);
        return t;
    });
    private final java.util.concurrent.atomic.LongAdder eventsFromFiles = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder eventsFromCache = new java.util.concurrent.atomic.LongAdder();
    private final DumpContext context;
    private TailCache cache;
    private TailFanOut fanOut;
    private boolean closed;
    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private Channel serverChannel;

    public DumpServer(DumpServerConfig config, Supplier<GlobalBinlogWriter> writer) {
        this(config, writer, LiveVariables.NONE);
    }

    /**
     * @param config what to listen on, who may log in, limits and TLS
     * @param writer the global binlog writer; returns null until the binlog is open
     * @param live   the settings {@code SHOW VARIABLES} lists and admin accounts may {@code SET GLOBAL}
     *               ({@link LiveVariables#NONE}: none)
     * @throws IllegalArgumentException when the configured TLS certificate or key cannot be used
     */
    public DumpServer(DumpServerConfig config, Supplier<GlobalBinlogWriter> writer, LiveVariables live) {
        this(config, writer, live, ShardSource.NONE);
    }

    /**
     * @param config what to listen on, who may log in, limits and TLS
     * @param writer the global binlog writer; returns null until the binlog is open
     * @param live   the settings {@code SHOW VARIABLES} lists and admin accounts may {@code SET GLOBAL}
     * @param shards the shards a {@code SELECT} over a logical table reads ({@link ShardSource#NONE}: none)
     * @throws IllegalArgumentException when the configured TLS certificate or key cannot be used
     */
    public DumpServer(DumpServerConfig config, Supplier<GlobalBinlogWriter> writer, LiveVariables live,
            ShardSource shards) {
        this(config, writer, live, shards, StreamProgress.NONE);
    }

    /**
     * @param config   what to listen on, who may log in, limits and TLS
     * @param writer   the global binlog writer; returns null until the binlog is open
     * @param live     the settings {@code SHOW VARIABLES} lists and admin accounts may {@code SET GLOBAL}
     * @param shards   the shards a {@code SELECT} over a logical table reads ({@link ShardSource#NONE}: none)
     * @param progress how far the global binlog holds each shard: binlog positions answered are matched with the
     *                 shards ({@link StreamPositions}); {@link StreamProgress#NONE}: the durable end as it is
     * @throws IllegalArgumentException when the configured TLS certificate or key cannot be used
     */
    public DumpServer(DumpServerConfig config, Supplier<GlobalBinlogWriter> writer, LiveVariables live,
            ShardSource shards, StreamProgress progress) {
        this.config = config;
        this.writer = writer;
        this.authenticator = new Authenticator(config.usersByName());
        this.tls = !config.tlsEnabled() ? null : config.tlsCertificate() == null ? DumpTls.generate()
                : DumpTls.fromPem(config.tlsCertificate(), config.tlsKey());
        if (tls != null && tls.generated()) {
            LOG.info("dump server TLS: generated a self-signed certificate ({}), SHA-256 fingerprint {};"
                    + " configure dump.tls.certificate and dump.tls.key to offer your own", DumpTls.GENERATED_SUBJECT,
                    tls.fingerprint());
        } else if (tls != null) {
            LOG.info("dump server TLS: certificate {} (SHA-256 fingerprint {})", config.tlsCertificate(),
                    tls.fingerprint());
        }
        GlobalBinlogWriter w = writer.get();
        String uuid = w == null ? "00000000-0000-0000-0000-000000000000" : w.serverUuid().toString();
        this.responder = new QueryResponder(new ServerVariables(config.flavor(), config.serverId(), uuid, config.port(),
                tls != null), writer, live, shards, new StreamPositions(shards, progress, StreamPositions.WAIT));
        this.connections = new DumpConnections(config.maxConnections());
        this.context = new DumpContext(config, authenticator, tls == null ? null : tls.context(), responder, writer,
                this::cache, this::fanOut, subscribers, connections, eventsFromFiles, eventsFromCache);
    }

    /** SHA-256 fingerprint of the certificate offered ({@code AB:CD:...}); null without TLS. */
    public String tlsFingerprint() {
        return tls == null ? null : tls.fingerprint();
    }

    /** Binds the port; returns once the server accepts connections. */
    public synchronized DumpServer start() throws InterruptedException {
        if (serverChannel != null) {
            throw new IllegalStateException("dump server already started on " + serverChannel.localAddress());
        }
        boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        workers = new MultiThreadIoEventLoopGroup(Math.max(2, Runtime.getRuntime().availableProcessors()),
                NioIoHandler.newFactory());
        ServerBootstrap b = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 256)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(
                        config.subscriberBufferBytes() / 4, config.subscriberBufferBytes()))
                .childHandler(new Initializer(context));
        try {
            serverChannel = b.bind(config.bindHost(), config.port()).sync().channel();
        } catch (RuntimeException e) {
            shutdownGroups();
            throw new IllegalStateException("cannot listen on " + config.bindHost() + ":" + config.port()
                    + " (dump.host / dump.port): " + e.getMessage(), e);
        }
        LOG.info("dump server listening on {} as {} ({})", serverChannel.localAddress(), config.flavor().serverVersion(),
                config.users().size() + " user(s)");
        cache();
        return this;
    }

    /** The port actually bound (useful with port 0). */
    public int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    /** Open client connections. */
    public int connectionCount() {
        return connections.count();
    }

    /** Connections receiving the binlog now. */
    public int subscriberCount() {
        return connections.subscriberCount();
    }

    /**
     * Bytes queued in memory for the subscriber with the most: what a stalled subscriber costs. Bounded by
     * {@code dump.subscriber.buffer} plus one event; its streamer waits instead of queuing more.
     */
    public long largestSubscriberBacklogBytes() {
        return connections.largestSubscriberBacklogBytes();
    }

    /** The connections receiving the binlog now, with where each one is (a snapshot for the status page). */
    public java.util.List<DumpSubscriber> subscribers() {
        return connections.subscribers(writer.get());
    }

    /** Events subscribers read from the binlog files (a subscriber catching up, or with the cache off). */
    public long eventsReadFromFiles() {
        return eventsFromFiles.sum();
    }

    /** Events subscribers were sent from the shared tail cache, with no file read. */
    public long eventsServedFromCache() {
        return eventsFromCache.sum();
    }

    /**
     * The shared tail cache, attached to the writer once it exists (fed by it from then on); null when turned off or
     * not ready.
     */
    private synchronized TailCache cache() {
        if (cache == null && !closed && config.cacheBytes() > 0) {
            GlobalBinlogWriter w = writer.get();
            if (w != null) {
                cache = TailCache.attach(w, config.cacheBytes());
                fanOut = TailFanOut.start(cache, io.netty.buffer.ByteBufAllocator.DEFAULT);
            }
        }
        return cache;
    }

    /** The fan-out of the tail cache; null while there is no cache. */
    private synchronized TailFanOut fanOut() {
        return cache() == null ? null : fanOut;
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (fanOut != null) {
            fanOut.close();
        }
        if (cache != null) {
            cache.close();
        }
        if (serverChannel != null) {
            serverChannel.close().syncUninterruptibly();
        }
        subscribers.shutdownNow();
        shutdownGroups();
        try {
            subscribers.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void shutdownGroups() {
        if (workers != null) {
            workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
        if (boss != null) {
            boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /**
     * Builds each connection's pipeline: packet decoder and encoder sharing one {@link PacketSequence}, then the
     * connection's {@link ConnectionHandler}, given the server's {@link DumpContext}. Sharable: its only state is
     * the connection id counter.
     */
    @ChannelHandler.Sharable
    static final class Initializer extends ChannelInitializer<SocketChannel> {
        /** A client sends small packets; anything larger than this is refused before it is buffered. */
        private static final int MAX_CLIENT_PAYLOAD = 1 << 20;
        private final DumpContext context;
        private final AtomicLong connectionIds = new AtomicLong();

        Initializer(DumpContext context) {
            this.context = context;
        }

        @Override
        protected void initChannel(SocketChannel ch) {
            PacketSequence sequence = new PacketSequence();
            ch.pipeline()
                    .addLast("packet-decoder", new MySqlPacketDecoder(MySqlPacketDecoder.Role.SERVER, sequence,
                            MAX_CLIENT_PAYLOAD))
                    .addLast("packet-encoder", new MySqlPacketEncoder(sequence))
                    .addLast("connection", new ConnectionHandler(context, connectionIds.incrementAndGet()));
        }
    }
}
