package io.tributary.daemon.dump;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.tributary.core.packet.AuthMoreData;
import io.tributary.core.packet.AuthSwitchRequest;
import io.tributary.core.packet.ComBinlogDump;
import io.tributary.core.packet.ComBinlogDumpGtid;
import io.tributary.core.packet.ComQuery;
import io.tributary.core.packet.ComRegisterSlave;
import io.tributary.core.packet.ErrPacket;
import io.tributary.core.packet.HandshakeResponse41;
import io.tributary.core.packet.HandshakeV10;
import io.tributary.core.packet.MySqlError;
import io.tributary.core.packet.MySqlMessage;
import io.tributary.core.packet.MySqlPacket;
import io.tributary.core.packet.MySqlPacketDecoder;
import io.tributary.core.packet.MySqlProtocol;
import io.tributary.core.packet.MySqlProtocolException;
import io.tributary.core.packet.OkPacket;
import io.tributary.core.packet.SslRequest;
import io.tributary.core.packet.WireBuffers;
import io.tributary.storage.binlog.BinlogPosition;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.storage.tail.TailCache;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * One client connection, as a state machine on its event loop:
 * <pre>
 * GREETED --HandshakeResponse41--> (AUTH_SWITCHED | SHA2_FULL | SHA2_RSA)* --OK--> COMMANDS --COM_BINLOG_DUMP*--> DUMPING
 * </pre>
 * Authentication: {@code mysql_native_password} (MariaDB flavor's default) or {@code caching_sha2_password}
 * (MySQL flavor's default: fast path for users that authenticated fully before, else full authentication with
 * the RSA public key exchange, or the clear password over TLS); TLS is offered when a certificate is
 * configured (SslRequest, then the TLS handshake, then the rest of the handshake encrypted). A client that
 * answers with another plugin is switched to the default. Wrong
 * credentials get error 1045. Commands: COM_QUERY (answered by {@link QueryResponder}), COM_PING, COM_QUIT,
 * COM_INIT_DB (as {@code USE db}), COM_REGISTER_SLAVE, COM_BINLOG_DUMP, COM_BINLOG_DUMP_GTID; any other command gets error 1047.
 * A dump hands the connection to a {@link BinlogStreamer} on the server's subscriber executor. Limits: not
 * authenticated within {@code dump.authTimeout}, or idle between statements for {@code dump.idleTimeout} (error
 * 4031): closed with one log line; a dumping subscriber is never idle.
 *
 * <p>Not sharable: one instance per channel, used only by its event loop.
 */
final class ConnectionHandler extends SimpleChannelInboundHandler<MySqlPacket> {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionHandler.class);
    private static final int SERVER_CAPABILITIES = MySqlProtocol.CLIENT_LONG_PASSWORD | MySqlProtocol.CLIENT_FOUND_ROWS
            | MySqlProtocol.CLIENT_LONG_FLAG | MySqlProtocol.CLIENT_CONNECT_WITH_DB | MySqlProtocol.CLIENT_PROTOCOL_41
            | MySqlProtocol.CLIENT_TRANSACTIONS | MySqlProtocol.CLIENT_SECURE_CONNECTION
            | MySqlProtocol.CLIENT_MULTI_RESULTS | MySqlProtocol.CLIENT_PLUGIN_AUTH
            | MySqlProtocol.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA | MySqlProtocol.CLIENT_CONNECT_ATTRS;
    private static final int COM_INIT_DB = MySqlProtocol.COM_INIT_DB;
    private static final byte FAST_AUTH_SUCCESS = 3;
    private static final byte PERFORM_FULL_AUTHENTICATION = 4;
    private static final byte REQUEST_PUBLIC_KEY = 2;
    private static final int ER_NO_SUCH_THREAD = 1094;
    private static final int ER_KILL_DENIED_ERROR = 1095;

    enum State { GREETED, AUTH_SWITCHED, SHA2_FULL, SHA2_RSA, COMMANDS, DUMPING, CLOSED }

    private final DumpContext context;
    private final long connectionId;
    private final byte[] seed = new byte[20];
    private State state = State.GREETED;
    private boolean admitted;
    private boolean tls;
    private String user = "";
    private String plugin;
    private int nextSequenceId;
    private DumpSession session;
    private BinlogStreamer streamer;
    /** The result set being streamed by a worker thread, if any. */
    private volatile ChannelResultSink resultSink;
    private Future<?> streaming;
    private long lastReadNanos = System.nanoTime();
    private boolean answering;

    ConnectionHandler(DumpContext context, long connectionId) {
        this.context = context;
        this.connectionId = connectionId;
        SecureRandom random = new SecureRandom();
        for (int i = 0; i < seed.length; i++) {
            seed[i] = (byte) (1 + random.nextInt(126)); // printable-safe, never NUL
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        admitted = context.connections().admit();
        if (!admitted) {
            state = State.CLOSED;
            nextSequenceId = 0;
            sendAndClose(ctx, MySqlError.ER_CON_COUNT_ERROR.toPacket("Too many connections (dump.maxConnections = "
                    + context.config().maxConnections() + ")"));
            return;
        }
        plugin = context.config().flavor().isMariaDb() ? Authenticator.NATIVE : Authenticator.CACHING_SHA2;
        String version = context.config().flavor().isMariaDb() ? "5.5.5-" + context.config().flavor().serverVersion()
                : context.config().flavor().serverVersion();
        nextSequenceId = 0;
        int capabilities = SERVER_CAPABILITIES | (context.sslContext() != null ? MySqlProtocol.CLIENT_SSL : 0);
        send(ctx, new HandshakeV10(HandshakeV10.PROTOCOL_VERSION, version, connectionId, seed, capabilities,
                MySqlProtocol.UTF8MB4_GENERAL_CI, MySqlProtocol.SERVER_STATUS_AUTOCOMMIT, plugin));
        ctx.flush();
        ctx.executor().schedule(() -> {
            if (state.compareTo(State.COMMANDS) < 0 && ctx.channel().isActive()) {
                LOG.info("dump connection {} from {} closed: not authenticated within {}", connectionId,
                        ctx.channel().remoteAddress(), context.config().authTimeout());
                ctx.close();
            }
        }, context.config().authTimeout().toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (admitted) {
            admitted = false;
            context.connections().release();
        }
        if (state == State.DUMPING && streamer != null && !streamer.endedOnItsOwn()) {
            LOG.info("dump connection {} ({}@{}) ended: the subscriber disconnected", connectionId, user,
                    ctx.channel().remoteAddress());
        }
        state = State.CLOSED;
        context.connections().closed(connectionId);
        context.connections().subscriberEnded(ctx.channel());
        if (streaming != null) {
            streaming.cancel(true);
        }
        if (streamer != null) {
            streamer.writabilityChanged();
        }
        if (session != null) {
            // the snapshot transaction and sync-point connections on the shards: closed off the event loop
            try {
                context.subscribers().execute(session.holds::close);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                session.holds.close(); // the server is shutting down
            }
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        ChannelResultSink sink = resultSink;
        if (sink != null) {
            sink.writabilityChanged();
        }
        if (streamer != null) {
            streamer.writabilityChanged();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, MySqlPacket packet) {
        lastReadNanos = System.nanoTime();
        nextSequenceId = (packet.sequenceId() + 1) & 0xFF;
        ByteBuf in = packet.payload();
        try {
            switch (state) {
                case GREETED -> {
                    if (!tls && in.readableBytes() == SslRequest.LENGTH
                            && (in.getIntLE(in.readerIndex()) & MySqlProtocol.CLIENT_SSL) != 0) {
                        startTls(ctx);
                        return;
                    }
                    handshakeResponse(ctx, HandshakeResponse41.decode(in));
                }
                case AUTH_SWITCHED -> authenticate(ctx, WireBuffers.readRestBytes(in));
                case SHA2_FULL -> fullAuthentication(ctx, WireBuffers.readRestBytes(in));
                case SHA2_RSA -> rsaPassword(ctx, WireBuffers.readRestBytes(in));
                case COMMANDS -> command(ctx, in);
                case DUMPING -> {
                    // a replica sends nothing while dumping (semi-sync acknowledgements are not negotiated) but may quit
                    if (in.isReadable() && in.getUnsignedByte(in.readerIndex()) == MySqlProtocol.COM_QUIT) {
                        state = State.CLOSED;
                        ctx.close();
                    }
                }
                case CLOSED -> {
                }
                default -> throw new IllegalStateException("unknown state " + state);
            }
        } catch (MySqlProtocolException e) {
            LOG.info("dump connection {} from {}: {}", connectionId, ctx.channel().remoteAddress(), e.getMessage());
            sendAndClose(ctx, e.error().toPacket(e.getMessage()));
        } catch (RuntimeException e) {
            LOG.info("dump connection {} from {}: malformed packet in state {}: {}", connectionId,
                    ctx.channel().remoteAddress(), state, e.toString());
            sendAndClose(ctx, MySqlError.ER_MALFORMED_PACKET.toPacket("Malformed packet in state " + state + ": "
                    + e.getMessage()));
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable c = cause instanceof io.netty.handler.codec.DecoderException && cause.getCause() != null
                && !(cause instanceof MySqlProtocolException) ? cause.getCause() : cause;
        LOG.info("dump connection {} from {} closed: {}", connectionId, ctx.channel().remoteAddress(), c.toString());
        if (c instanceof MySqlProtocolException p && ctx.channel().isActive()) {
            nextSequenceId = 0;
            sendAndClose(ctx, p.error().toPacket(p.getMessage()));
        } else {
            ctx.close();
        }
    }

    // ---- authentication

    /**
     * The client asked for TLS: a TLS handler goes in front of the packet decoder, and the handshake bytes the
     * client may have sent right behind its SSL request (already read) are fed to it.
     */
    private void startTls(ChannelHandlerContext ctx) {
        MySqlPacketDecoder decoder = (MySqlPacketDecoder) ctx.pipeline().get("packet-decoder");
        ByteBuf rest = decoder.takeBytesAfterSslRequest();
        if (context.sslContext() == null) {
            rest.release();
            LOG.info("dump connection {} from {}: asked for TLS, which is not offered (dump.tls.enabled)", connectionId,
                    ctx.channel().remoteAddress());
            sendAndClose(ctx, MySqlError.ER_HANDSHAKE_ERROR.toPacket("Bad handshake: TLS was requested but this"
                    + " server does not offer it (dump.tls.enabled)"));
            return;
        }
        tls = true;
        ctx.pipeline().addFirst("tls", context.sslContext().newHandler(ctx.alloc()));
        if (rest.isReadable()) {
            ctx.pipeline().fireChannelRead(rest);
        } else {
            rest.release();
        }
    }

    private void handshakeResponse(ChannelHandlerContext ctx, HandshakeResponse41 r) {
        user = r.user();
        session = new DumpSession(connectionId, user, context.config().flavor(), false);
        session.database = r.database() == null || r.database().isEmpty() ? null : r.database();
        String clientPlugin = r.authPluginName() == null || r.authPluginName().isEmpty() ? Authenticator.NATIVE
                : r.authPluginName();
        if (!clientPlugin.equals(Authenticator.NATIVE) && !clientPlugin.equals(Authenticator.CACHING_SHA2)) {
            state = State.AUTH_SWITCHED;
            byte[] data = java.util.Arrays.copyOf(seed, seed.length + 1);
            send(ctx, new AuthSwitchRequest(plugin, data));
            ctx.flush();
            return;
        }
        plugin = clientPlugin;
        authenticate(ctx, r.authResponse());
    }

    private void authenticate(ChannelHandlerContext ctx, byte[] response) {
        Authenticator auth = context.authenticator();
        if (plugin.equals(Authenticator.NATIVE)) {
            if (auth.checkNative(user, seed, response)) {
                authenticated(ctx);
            } else {
                denied(ctx, response.length > 0);
            }
            return;
        }
        if (response.length == 0 || !auth.knows(user)) {
            denied(ctx, response.length > 0);
        } else if (auth.checkCachingSha2Fast(user, seed, response)) {
            send(ctx, new AuthMoreData(new byte[] {FAST_AUTH_SUCCESS}));
            authenticated(ctx);
        } else {
            state = State.SHA2_FULL;
            send(ctx, new AuthMoreData(new byte[] {PERFORM_FULL_AUTHENTICATION}));
            ctx.flush();
        }
    }

    private void fullAuthentication(ChannelHandlerContext ctx, byte[] data) {
        if (data.length == 1 && data[0] == REQUEST_PUBLIC_KEY) {
            state = State.SHA2_RSA;
            send(ctx, new AuthMoreData(context.authenticator().publicKeyPem().getBytes(StandardCharsets.US_ASCII)));
            ctx.flush();
            return;
        }
        if (tls) {
            if (context.authenticator().checkClear(user, data)) {
                authenticated(ctx);
            } else {
                denied(ctx, true);
            }
            return;
        }
        rsaPassword(ctx, data);
    }

    private void rsaPassword(ChannelHandlerContext ctx, byte[] encrypted) {
        if (context.authenticator().checkCachingSha2Rsa(user, seed, encrypted)) {
            authenticated(ctx);
        } else {
            denied(ctx, true);
        }
    }

    private void authenticated(ChannelHandlerContext ctx) {
        state = State.COMMANDS;
        session.admin = context.authenticator().isAdmin(user);
        context.connections().loggedIn(connectionId, user, ctx.channel());
        send(ctx, OkPacket.EMPTY);
        ctx.flush();
        scheduleIdleCheck(ctx, context.config().idleTimeout().toNanos());
    }

    /**
     * {@code dump.idleTimeout}, MySQL's {@code wait_timeout}: a connection between statements that sends nothing
     * for that long gets error 4031 (as MySQL 8 sends it) and is closed. A dumping subscriber sends nothing by
     * design and is never timed out; a statement still being answered does not count as idle.
     */
    private void scheduleIdleCheck(ChannelHandlerContext ctx, long delayNanos) {
        ctx.executor().schedule(() -> {
            if (state != State.COMMANDS || !ctx.channel().isActive()) {
                return;
            }
            long idleNanos = System.nanoTime() - lastReadNanos;
            long limit = context.config().idleTimeout().toNanos();
            if (idleNanos < limit || answering) {
                scheduleIdleCheck(ctx, Math.max(limit - idleNanos, 1_000_000));
                return;
            }
            LOG.info("dump connection {} ({}@{}) closed: idle for {} (dump.idleTimeout)", connectionId, user,
                    ctx.channel().remoteAddress(), context.config().idleTimeout());
            nextSequenceId = 0;
            sendAndClose(ctx, MySqlError.ER_CLIENT_INTERACTION_TIMEOUT.toPacket("The client was disconnected by the"
                    + " server because of inactivity (dump.idleTimeout = " + context.config().idleTimeout() + ")"));
        }, delayNanos, TimeUnit.NANOSECONDS);
    }

    private void denied(ChannelHandlerContext ctx, boolean withPassword) {
        String host = ctx.channel().remoteAddress() instanceof InetSocketAddress a ? a.getHostString() : "?";
        LOG.info("dump connection {}: access denied for user '{}'@'{}'", connectionId, user, host);
        sendAndClose(ctx, MySqlError.ER_ACCESS_DENIED_ERROR.toPacket("Access denied for user '" + user + "'@'" + host
                + "' (using password: " + (withPassword ? "YES" : "NO") + ")"));
    }

    // ---- commands

    private void command(ChannelHandlerContext ctx, ByteBuf in) {
        if (!in.isReadable()) {
            throw new MySqlProtocolException(MySqlError.ER_MALFORMED_PACKET, "empty command packet");
        }
        int command = in.getUnsignedByte(in.readerIndex());
        switch (command) {
            case MySqlProtocol.COM_QUIT -> {
                state = State.CLOSED;
                ctx.close();
            }
            case MySqlProtocol.COM_PING -> reply(ctx, ok());
            case COM_INIT_DB -> {
                // the command clients send to change the database (mysql's "use", Connector/J's setCatalog): the
                // schema statements' USE, so an unknown database is 1049 and later statements see the new default
                String db = in.toString(in.readerIndex() + 1, in.readableBytes() - 1, StandardCharsets.UTF_8);
                query(ctx, "USE `" + db.replace("`", "``") + "`");
            }
            case MySqlProtocol.COM_QUERY -> query(ctx, ComQuery.decode(in).sql());
            case MySqlProtocol.COM_REGISTER_SLAVE -> {
                ComRegisterSlave r = ComRegisterSlave.decode(in);
                session.registeredServerId = r.serverId();
                reply(ctx, ok());
            }
            case MySqlProtocol.COM_BINLOG_DUMP -> {
                ComBinlogDump d = ComBinlogDump.decode(in);
                String fileName = dumpFileName(d.fileName());
                String gtidState = session.userVariable("slave_connect_state");
                // as MariaDB's server: with @slave_connect_state set, the dump starts at that GTID state and the file
                // and position are ignored. A MariaDB replica in GTID mode sends, when it reconnects, the file and
                // position it had read to, which may be inside a transaction: it expects that transaction again from
                // its GTID event (and skips the events it already queued), and stops with "could not queue event"
                // when the stream starts in its middle
                boolean mariaGtid = context.config().flavor().isMariaDb() && gtidState != null;
                BinlogPosition start = mariaGtid ? null : new BinlogPosition(fileName.isEmpty()
                        ? firstFile() : fileName, Math.max(4, d.position()));
                dump(ctx, new DumpRequest(start, mariaGtid ? gtidState : null,
                        (d.flags() & DumpRequest.BINLOG_DUMP_NON_BLOCK) != 0, session.checksumAware(),
                        session.heartbeatPeriod(), d.serverId()));
            }
            case MySqlProtocol.COM_BINLOG_DUMP_GTID -> {
                ComBinlogDumpGtid d = ComBinlogDumpGtid.decode(in);
                dump(ctx, new DumpRequest(null, gtidText(d), (d.flags() & DumpRequest.BINLOG_DUMP_NON_BLOCK) != 0,
                        session.checksumAware(), session.heartbeatPeriod(), d.serverId()));
            }
            default -> reply(ctx, MySqlError.ER_UNKNOWN_COM_ERROR.toPacket("Unknown command 0x"
                    + Integer.toHexString(command) + " (the dump server serves queries, ping, quit and binlog dumps)"));
        }
    }

    /**
     * The file name of a COM_BINLOG_DUMP as the servers read it: up to the first NUL. Both MySQL and MariaDB
     * take the name with {@code strlen}, and clients such as zongji send it NUL-terminated
     * ({@code binlog.000001\0}, or a lone {@code \0} for "no file" before a MariaDB GTID start).
     */
    static String dumpFileName(String raw) {
        if (raw == null) {
            return "";
        }
        int nul = raw.indexOf('\0');
        return nul < 0 ? raw : raw.substring(0, nul);
    }

    private String firstFile() {
        GlobalBinlogWriter w = context.writer().get();
        return w == null || w.index().entries().isEmpty() ? "binlog.000001" : w.index().entries().get(0).file();
    }

    private static String gtidText(ComBinlogDumpGtid d) {
        StringBuilder b = new StringBuilder();
        for (ComBinlogDumpGtid.Sid sid : d.sids()) {
            for (ComBinlogDumpGtid.Interval iv : sid.intervals()) {
                if (b.length() > 0) {
                    b.append(',');
                }
                b.append(sid.uuid()).append(':').append(iv.start());
                if (iv.endExclusive() - 1 > iv.start()) {
                    b.append('-').append(iv.endExclusive() - 1);
                }
            }
        }
        return b.toString();
    }

    private void dump(ChannelHandlerContext ctx, DumpRequest request) {
        GlobalBinlogWriter w = context.writer().get();
        if (w == null) {
            reply(ctx, MySqlError.ER_MASTER_FATAL_ERROR_READING_BINLOG.toPacket("the global binlog is not open yet"
                    + " (Tributary is starting or recovering); retry shortly"));
            return;
        }
        LOG.info("dump connection {} ({}@{}): {}", connectionId, user, ctx.channel().remoteAddress(), request);
        state = State.DUMPING;
        TailCache cache = context.tailCache().get();
        streamer = new BinlogStreamer(ctx.channel(), w, request, nextSequenceId, cache, context.tailFanOut().get(),
                context.fromFiles(),
                context.fromCache(), context.config().aheadWait(), context.config().checksums());
        context.connections().subscriberStarted(ctx.channel(), streamer);
        streaming = context.subscribers().submit(streamer);
    }

    private void query(ChannelHandlerContext ctx, String sql) {
        LOG.debug("dump connection {} ({}): {}", connectionId, user, sql);
        Answer a = context.responder().answer(sql, session);
        if (a instanceof Answer.Streamed streamed) {
            stream(ctx, sql, streamed);
            return;
        }
        if (a instanceof Answer.Deferred d) {
            int seq = nextSequenceId;
            answering = true;
            context.subscribers().execute(() -> {
                Answer done;
                try {
                    done = d.work().call();
                } catch (Exception e) {
                    done = Answer.error(MySqlError.ER_UNKNOWN_ERROR, "cannot answer '" + sql + "': " + e.getMessage());
                }
                Answer result = done;
                ctx.executor().execute(() -> {
                    answering = false;
                    lastReadNanos = System.nanoTime();
                    nextSequenceId = seq;
                    refused(sql, result);
                    answer(ctx, result);
                });
            });
            return;
        }
        refused(sql, a);
        answer(ctx, a);
    }

    /**
     * A result set streamed from a worker thread ({@code SELECT} over a logical table): the connection reads no
     * statement meanwhile (the client waits for the result's end), and takes the sequence id back at the end.
     */
    private void stream(ChannelHandlerContext ctx, String sql, Answer.Streamed streamed) {
        ChannelResultSink sink = new ChannelResultSink(ctx.channel(), nextSequenceId, false, session.statusFlags());
        resultSink = sink;
        answering = true;
        context.connections().statementStarted(connectionId, sink::kill);
        try {
            context.subscribers().execute(() -> {
                try {
                    streamed.work().accept(sink);
                    if (sink.killed() && !sink.finished()) {
                        LOG.info("dump connection {} ({}): '{}' interrupted by KILL QUERY", connectionId, user, sql);
                        sink.error(MySqlError.ER_QUERY_INTERRUPTED.toPacket("Query execution was interrupted"));
                    }
                } catch (RuntimeException e) {
                    LOG.warn("dump connection {} ({}): '{}' failed", connectionId, user, sql, e);
                    sink.error(MySqlError.ER_UNKNOWN_ERROR.toPacket("cannot answer '" + sql + "': " + e));
                } finally {
                    context.connections().statementEnded(connectionId);
                    ctx.executor().execute(() -> {
                        answering = false;
                        resultSink = null;
                        lastReadNanos = System.nanoTime();
                        nextSequenceId = sink.nextSequenceId();
                    });
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            context.connections().statementEnded(connectionId);
            answering = false;
            resultSink = null;
            reply(ctx, MySqlError.ER_SERVER_SHUTDOWN.toPacket("the dump server is shutting down"));
        }
    }

    /** A statement answered with an error is logged: what a client sent that the dump server does not serve. */
    private void refused(String sql, Answer a) {
        if (a instanceof Answer.Error err && LOG.isInfoEnabled()) {
            LOG.info("dump connection {} ({}): error {} for '{}': {}", connectionId, user, err.packet().code(),
                    sql.length() > 300 ? sql.substring(0, 300) + "..." : sql, err.packet().message());
        }
    }

    private void answer(ChannelHandlerContext ctx, Answer a) {
        if (a instanceof Answer.Error err) {
            reply(ctx, err.packet());
        } else if (a instanceof Answer.Rows rows) {
            for (MySqlMessage m : rows.resultSet().messages(false, session.statusFlags())) {
                send(ctx, m);
            }
            ctx.flush();
        } else if (a instanceof Answer.Ok) {
            reply(ctx, ok());
        } else if (a instanceof Answer.Kill k) {
            kill(ctx, k);
        } else {
            throw new IllegalStateException("deferred answers are run before answering");
        }
    }

    /**
     * {@code KILL [CONNECTION | QUERY] id}, as a server does it: an unknown id gets error 1094, another user's
     * connection error 1095 (unless an admin asks). KILL closes the connection; KILL QUERY stops a streamed
     * {@code SELECT} (its client gets error 1317, the shards' queries are cancelled), ends a running dump (with its
     * connection, as a server's dump thread ends) and is a no-op on a connection between statements.
     * Killing one's own connection closes it without an answer.
     */
    private void kill(ChannelHandlerContext ctx, Answer.Kill k) {
        DumpConnections.Client target = context.connections().client(k.connectionId());
        if (target == null) {
            reply(ctx, new ErrPacket(ER_NO_SUCH_THREAD, "HY000", "Unknown thread id: " + k.connectionId()));
            return;
        }
        if (!target.user().equals(user) && !session.admin) {
            reply(ctx, new ErrPacket(ER_KILL_DENIED_ERROR, "HY000", "You are not owner of thread " + k.connectionId()));
            return;
        }
        boolean self = target.id() == connectionId;
        Runnable running = k.queryOnly() && !self ? context.connections().runningStatement(target.id()) : null;
        if (running != null) {
            LOG.info("dump connection {} ({}@{}): its statement killed by connection {} ({})", target.id(),
                    target.user(), target.channel().remoteAddress(), connectionId, user);
            running.run();
            reply(ctx, ok());
            return;
        }
        if (k.queryOnly() && (self || !context.connections().isDumping(target.channel()))) {
            reply(ctx, ok());
            return;
        }
        LOG.info("dump connection {} ({}@{}): killed by connection {} ({})", target.id(), target.user(),
                target.channel().remoteAddress(), connectionId, user);
        if (self) {
            state = State.CLOSED;
            ctx.close();
            return;
        }
        target.channel().close();
        reply(ctx, ok());
    }

    /** OK with the session's status flags (autocommit off after {@code SET autocommit=0}: MariaDB Connector/J reads it there). */
    private OkPacket ok() {
        return new OkPacket(0, 0, session.statusFlags(), 0, "");
    }

    private void reply(ChannelHandlerContext ctx, MySqlMessage m) {
        send(ctx, m);
        ctx.flush();
    }

    private void send(ChannelHandlerContext ctx, MySqlMessage m) {
        ByteBuf buf = Unpooled.buffer(64);
        m.encode(buf);
        ctx.write(new MySqlPacket(nextSequenceId, buf));
        nextSequenceId = (nextSequenceId + 1) & 0xFF;
    }

    private void sendAndClose(ChannelHandlerContext ctx, ErrPacket err) {
        state = State.CLOSED;
        ByteBuf buf = Unpooled.buffer(64);
        err.encode(buf);
        ctx.writeAndFlush(new MySqlPacket(nextSequenceId, buf)).addListener(f -> ctx.close());
    }
}
