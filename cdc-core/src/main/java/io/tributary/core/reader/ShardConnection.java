package io.tributary.core.reader;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.tributary.core.packet.AuthMoreData;
import io.tributary.core.packet.AuthScramble;
import io.tributary.core.packet.AuthSwitchRequest;
import io.tributary.core.packet.ErrPacket;
import io.tributary.core.packet.HandshakeResponse41;
import io.tributary.core.packet.HandshakeV10;
import io.tributary.core.packet.MySqlMessage;
import io.tributary.core.packet.MySqlPacket;
import io.tributary.core.packet.MySqlPacketDecoder;
import io.tributary.core.packet.MySqlPacketEncoder;
import io.tributary.core.packet.MySqlProtocol;
import io.tributary.core.packet.MySqlServerException;
import io.tributary.core.packet.OkPacket;
import io.tributary.core.packet.PacketSequence;
import io.tributary.core.packet.SslRequest;
import io.tributary.core.packet.TextResultSet;
import io.tributary.core.packet.TextResultSetDecoder;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SSLException;

/**
 * One client connection to a shard: connect (Netty NIO), handshake, optional TLS, authentication,
 * then simple commands one at a time ({@link #query}, {@link #command}) and finally the binlog
 * stream ({@link #startStream}).
 *
 * <p>Authentication: {@code mysql_native_password}; {@code caching_sha2_password} fast path, and
 * full authentication sending the clear password over TLS or the password encrypted with the
 * server's RSA public key (asked for with {@code 0x02}) otherwise; auth switch requests to either.
 *
 * <p>Threading: protocol state lives on the channel's event loop. The public methods may be called
 * from any thread; they return futures completed on the event loop. One command at a time.
 */
final class ShardConnection {
    /** Receives the packets of the binlog stream on the event loop; the payload is released after the call. */
    interface StreamListener {
        void onPacket(ByteBuf payload);

        void onFailure(Throwable cause);
    }

    /** A completed command: an OK packet or a result set. */
    record QueryResult(OkPacket ok, TextResultSet resultSet) {
    }

    private enum State { GREETING, TLS_HANDSHAKE, AUTH, READY, COMMAND, STREAMING, CLOSED }

    private static final int CLIENT_CAPABILITIES = MySqlProtocol.CLIENT_LONG_PASSWORD | MySqlProtocol.CLIENT_LONG_FLAG
            | MySqlProtocol.CLIENT_PROTOCOL_41 | MySqlProtocol.CLIENT_TRANSACTIONS | MySqlProtocol.CLIENT_SECURE_CONNECTION
            | MySqlProtocol.CLIENT_PLUGIN_AUTH | MySqlProtocol.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
            | MySqlProtocol.CLIENT_CONNECT_ATTRS;

    private final ShardReaderConfig config;
    private final SslContext sslContext;
    private final PacketSequence sequence = new PacketSequence();
    private final Duration readIdle;
    private final CompletableFuture<ShardConnection> connected = new CompletableFuture<>();
    private Channel channel;

    // event-loop state
    private State state = State.GREETING;
    private HandshakeV10 handshake;
    private int capabilities;
    private String authPlugin;
    private byte[] seed;
    private boolean awaitingPublicKey;
    private boolean tlsActive;
    private CompletableFuture<QueryResult> pending;
    private TextResultSetDecoder resultSet;
    private StreamListener listener;

    private ShardConnection(ShardReaderConfig config, SslContext sslContext) {
        this.config = config;
        this.sslContext = sslContext;
        // A live shard sends at least a heartbeat per period; three silent periods mean a dead peer.
        this.readIdle = config.heartbeatPeriod().multipliedBy(3).plusSeconds(2);
    }

    /** Connects and authenticates; the future fails with the server's error or the network's. */
    static CompletableFuture<ShardConnection> open(EventLoopGroup group, ShardReaderConfig config) {
        SslContext ssl = null;
        if (config.tls()) {
            try {
                ssl = SslContextBuilder.forClient().build();
            } catch (SSLException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        ShardConnection c = new ShardConnection(config, ssl);
        Bootstrap b = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, config.connectTimeout().toMillis()))
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast("decoder", new MySqlPacketDecoder(MySqlPacketDecoder.Role.CLIENT, c.sequence));
                        ch.pipeline().addLast("encoder", new MySqlPacketEncoder(c.sequence));
                        if (!config.heartbeatPeriod().isZero()) {
                            ch.pipeline().addLast("idle", new IdleStateHandler(c.readIdle.toMillis(), 0, 0, TimeUnit.MILLISECONDS));
                        }
                        ch.pipeline().addLast("handler", c.new Handler());
                    }
                });
        b.connect(config.host(), config.port()).addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess()) {
                c.connected.completeExceptionally(f.cause());
            } else {
                c.channel = f.channel();
            }
        });
        return c.connected;
    }

    HandshakeV10 handshake() {
        return handshake;
    }

    Channel channel() {
        return channel;
    }

    boolean isMariaDb() {
        return handshake.isMariaDb();
    }

    String hostPort() {
        return config.host() + ":" + config.port();
    }

    /** Runs a statement; completes with the OK packet or the result set, or fails with {@link MySqlServerException}. */
    CompletableFuture<QueryResult> query(String sql) {
        return send(new io.tributary.core.packet.ComQuery(sql));
    }

    /** Sends a command that answers OK or ERR (COM_REGISTER_SLAVE, COM_PING). */
    CompletableFuture<QueryResult> command(MySqlMessage command) {
        return send(command);
    }

    private CompletableFuture<QueryResult> send(MySqlMessage command) {
        CompletableFuture<QueryResult> f = new CompletableFuture<>();
        channel.eventLoop().execute(() -> {
            if (state != State.READY) {
                f.completeExceptionally(new IllegalStateException("connection to " + hostPort() + " is " + state
                        + ", cannot send " + command.getClass().getSimpleName()));
                return;
            }
            state = State.COMMAND;
            pending = f;
            resultSet = null;
            writeCommand(command);
        });
        return f;
    }

    /** Sends the dump command; from then on every packet goes to {@code l}. */
    void startStream(MySqlMessage dumpCommand, StreamListener l) {
        channel.eventLoop().execute(() -> {
            if (state != State.READY) {
                l.onFailure(new IllegalStateException("connection to " + hostPort() + " is " + state + ", cannot dump"));
                return;
            }
            state = State.STREAMING;
            listener = l;
            writeCommand(dumpCommand);
        });
    }

    void close() {
        if (channel != null) {
            channel.close();
        }
    }

    private void writeCommand(MySqlMessage command) {
        sequence.reset(0);
        channel.writeAndFlush(command.toPacket(channel.alloc(), 0)).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
    }

    private void write(MySqlMessage message) {
        channel.writeAndFlush(message.toPacket(channel.alloc(), sequence.next()))
                .addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
    }

    private void writeRaw(byte[] bytes) {
        write(out -> out.writeBytes(bytes));
    }

    private final class Handler extends SimpleChannelInboundHandler<MySqlPacket> {
        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            channel = ctx.channel();
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt instanceof IdleStateEvent && state == State.STREAMING && ctx.channel().config().isAutoRead()) {
                exceptionCaught(ctx, new IOException("nothing received from " + hostPort() + " for "
                        + readIdle.toMillis() + " ms although heartbeats were asked for every "
                        + config.heartbeatPeriod().toMillis() + " ms"));
                return;
            }
            super.userEventTriggered(ctx, evt);
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, MySqlPacket packet) {
            ByteBuf p = packet.payload();
            switch (state) {
                case GREETING -> greeting(ctx, p);
                case AUTH -> auth(p);
                case COMMAND -> response(p);
                case STREAMING -> listener.onPacket(p);
                default -> throw new IllegalStateException("unexpected packet from " + hostPort() + " in state " + state
                        + ": " + packet);
            }
        }

        private void greeting(ChannelHandlerContext ctx, ByteBuf p) {
            if (p.isReadable() && p.getUnsignedByte(p.readerIndex()) == MySqlProtocol.ERR_HEADER) {
                throw new MySqlServerException("greeting from " + hostPort(), ErrPacket.decode(p));
            }
            handshake = HandshakeV10.decode(p);
            seed = handshake.authPluginData();
            capabilities = CLIENT_CAPABILITIES & handshake.capabilities() | MySqlProtocol.CLIENT_PROTOCOL_41;
            if (config.tls()) {
                if (!handshake.hasCapability(MySqlProtocol.CLIENT_SSL)) {
                    throw new IllegalStateException("TLS is configured but " + hostPort() + " (" + handshake.serverVersion()
                            + ") does not offer it");
                }
                capabilities |= MySqlProtocol.CLIENT_SSL;
                state = State.TLS_HANDSHAKE;
                channel.writeAndFlush(new SslRequest(capabilities, MySqlProtocol.DEFAULT_MAX_PAYLOAD_BYTES,
                        MySqlProtocol.UTF8MB4_GENERAL_CI).toPacket(ctx.alloc(), sequence.next())).addListener(f -> {
                            if (!f.isSuccess()) {
                                ctx.fireExceptionCaught(f.cause());
                                return;
                            }
                            SslHandler ssl = sslContext.newHandler(ctx.alloc(), config.host(), config.port());
                            ctx.pipeline().addFirst("tls", ssl);
                            ssl.handshakeFuture().addListener(h -> {
                                if (h.isSuccess()) {
                                    tlsActive = true;
                                    sendHandshakeResponse();
                                } else {
                                    ctx.fireExceptionCaught(h.cause());
                                }
                            });
                        });
            } else {
                sendHandshakeResponse();
            }
        }

        private void sendHandshakeResponse() {
            String plugin = handshake.authPluginName();
            if (plugin == null || !(plugin.equals(MySqlProtocol.MYSQL_NATIVE_PASSWORD)
                    || plugin.equals(MySqlProtocol.CACHING_SHA2_PASSWORD))) {
                plugin = MySqlProtocol.MYSQL_NATIVE_PASSWORD;
            }
            authPlugin = plugin;
            byte[] auth = AuthScramble.forPlugin(plugin, AuthScramble.utf8(config.password()), seed);
            state = State.AUTH;
            write(new HandshakeResponse41(capabilities, MySqlProtocol.DEFAULT_MAX_PAYLOAD_BYTES,
                    MySqlProtocol.UTF8MB4_GENERAL_CI, config.user(), auth, null, plugin,
                    Map.of("_client_name", "tributary", "program_name", "tributary-shard-reader")));
        }

        private void auth(ByteBuf p) {
            int header = p.isReadable() ? p.getUnsignedByte(p.readerIndex()) : -1;
            switch (header) {
                case MySqlProtocol.OK_HEADER -> {
                    OkPacket.decode(p);
                    state = State.READY;
                    connected.complete(ShardConnection.this);
                }
                case MySqlProtocol.ERR_HEADER -> throw new MySqlServerException("authentication of '" + config.user()
                        + "' at " + hostPort(), ErrPacket.decode(p));
                case MySqlProtocol.AUTH_SWITCH_HEADER -> {
                    AuthSwitchRequest sw = AuthSwitchRequest.decode(p);
                    authPlugin = sw.pluginName();
                    seed = sw.seed();
                    byte[] pw = AuthScramble.utf8(config.password());
                    if (MySqlProtocol.MYSQL_CLEAR_PASSWORD.equals(authPlugin)) {
                        if (!tlsActive) {
                            throw new IllegalStateException(hostPort() + " asks for mysql_clear_password without TLS; refusing to send the password in clear");
                        }
                        writeRaw(AuthScramble.clearPassword(pw));
                    } else {
                        writeRaw(AuthScramble.forPlugin(authPlugin, pw, seed));
                    }
                }
                case MySqlProtocol.AUTH_MORE_DATA_HEADER -> moreData(AuthMoreData.decode(p).data());
                default -> throw new IllegalStateException("unexpected packet 0x" + Integer.toHexString(header)
                        + " from " + hostPort() + " during authentication");
            }
        }

        private void moreData(byte[] data) {
            if (!MySqlProtocol.CACHING_SHA2_PASSWORD.equals(authPlugin)) {
                throw new IllegalStateException("unexpected AuthMoreData from " + hostPort() + " for plugin " + authPlugin);
            }
            byte[] pw = AuthScramble.utf8(config.password());
            if (awaitingPublicKey) {
                awaitingPublicKey = false;
                writeRaw(AuthScramble.rsaEncryptedPassword(pw, seed, new String(data, StandardCharsets.US_ASCII)));
            } else if (data.length == 1 && data[0] == MySqlProtocol.CACHING_SHA2_FAST_AUTH_SUCCESS) {
                return;
            } else if (data.length == 1 && data[0] == MySqlProtocol.CACHING_SHA2_PERFORM_FULL_AUTH) {
                if (tlsActive) {
                    writeRaw(AuthScramble.clearPassword(pw));
                } else {
                    awaitingPublicKey = true;
                    writeRaw(new byte[] {MySqlProtocol.CACHING_SHA2_REQUEST_PUBLIC_KEY});
                }
            } else {
                throw new IllegalStateException("unexpected caching_sha2_password data of " + data.length + " bytes from " + hostPort());
            }
        }

        private void response(ByteBuf p) {
            if (resultSet == null) {
                int header = p.isReadable() ? p.getUnsignedByte(p.readerIndex()) : -1;
                if (header == MySqlProtocol.OK_HEADER) {
                    finish(new QueryResult(OkPacket.decode(p), null), null);
                    return;
                }
                if (header == MySqlProtocol.ERR_HEADER) {
                    finish(null, new MySqlServerException("command on " + hostPort(), ErrPacket.decode(p)));
                    return;
                }
                resultSet = new TextResultSetDecoder(false);
            }
            TextResultSet rs;
            try {
                rs = resultSet.accept(p);
            } catch (MySqlServerException e) {
                finish(null, e);
                return;
            }
            if (rs != null) {
                finish(new QueryResult(null, rs), null);
            }
        }

        private void finish(QueryResult r, Throwable error) {
            CompletableFuture<QueryResult> f = pending;
            pending = null;
            resultSet = null;
            state = State.READY;
            if (error != null) {
                f.completeExceptionally(error);
            } else {
                f.complete(r);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            fail(cause);
            ctx.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            fail(new IOException("connection to " + hostPort() + " closed" + (state == State.STREAMING ? " during the binlog stream" : " in state " + state)));
            super.channelInactive(ctx);
        }

        private void fail(Throwable cause) {
            State was = state;
            state = State.CLOSED;
            connected.completeExceptionally(cause);
            if (pending != null) {
                CompletableFuture<QueryResult> f = pending;
                pending = null;
                f.completeExceptionally(cause);
            }
            if (was == State.STREAMING && listener != null) {
                StreamListener l = listener;
                listener = null;
                l.onFailure(cause);
            }
        }
    }
}
