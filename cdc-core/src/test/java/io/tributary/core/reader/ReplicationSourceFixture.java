package io.tributary.core.reader;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.tributary.core.packet.AuthMoreData;
import io.tributary.core.packet.AuthScramble;
import io.tributary.core.packet.AuthSwitchRequest;
import io.tributary.core.packet.ComBinlogDump;
import io.tributary.core.packet.HandshakeResponse41;
import io.tributary.core.packet.HandshakeV10;
import io.tributary.core.packet.MySqlError;
import io.tributary.core.packet.MySqlMessage;
import io.tributary.core.packet.MySqlPacket;
import io.tributary.core.packet.MySqlPacketDecoder;
import io.tributary.core.packet.MySqlPacketEncoder;
import io.tributary.core.packet.MySqlProtocol;
import io.tributary.core.packet.OkPacket;
import io.tributary.core.packet.PacketSequence;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32;
import javax.crypto.Cipher;

/**
 * A replication source built from our own packet codec (server side), for tests that need what a
 * real server does not do on demand: drop a connection at a chosen event, or authenticate with
 * {@code caching_sha2_password} (no MySQL 8 here). It checks passwords the way the servers do,
 * answers every query with OK and serves the events of a real binlog file from the requested
 * offset, after a fake ROTATE (and the file's FORMAT_DESCRIPTION when starting past it).
 */
final class ReplicationSourceFixture implements AutoCloseable {
    /** How the fixture authenticates. */
    enum Auth {
        /** mysql_native_password from the greeting. */
        NATIVE,
        /** Greets with caching_sha2_password, then switches the client to mysql_native_password. */
        SWITCH_TO_NATIVE,
        /** caching_sha2_password, scramble checked against the cached digest (fast path). */
        SHA2_FAST,
        /** caching_sha2_password, empty cache: full authentication with the RSA public key. */
        SHA2_FULL_RSA
    }

    private final Auth auth;
    private final String password;
    private final byte[] binlog;
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel server;
    private final AtomicInteger connections = new AtomicInteger();
    private final List<Long> dumpPositions = Collections.synchronizedList(new ArrayList<>());
    private final List<String> authSteps = Collections.synchronizedList(new ArrayList<>());
    private final KeyPair rsa;
    private volatile int cutFirstConnectionAfter = Integer.MAX_VALUE;

    ReplicationSourceFixture(Auth auth, String password, byte[] binlog) throws Exception {
        this.auth = auth;
        this.password = password;
        this.binlog = binlog;
        KeyPairGenerator gen = KeyPairGenerator.getInstance("RSA");
        gen.initialize(2048);
        this.rsa = gen.generateKeyPair();
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        PacketSequence seq = new PacketSequence();
                        ch.pipeline().addLast(new MySqlPacketDecoder(MySqlPacketDecoder.Role.SERVER, seq),
                                new MySqlPacketEncoder(seq), new Source(seq));
                    }
                }).bind("127.0.0.1", 0).sync().channel();
    }

    int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    int connections() {
        return connections.get();
    }

    List<Long> dumpPositions() {
        return List.copyOf(dumpPositions);
    }

    List<String> authSteps() {
        return List.copyOf(authSteps);
    }

    /** The first connection sends this many events (the fake ROTATE counts) and then closes. */
    void cutFirstConnectionAfter(int events) {
        cutFirstConnectionAfter = events;
    }

    /** Start offset, size and type of each event in the file. */
    List<int[]> events() {
        List<int[]> list = new ArrayList<>();
        int offset = 4;
        while (offset + 19 <= binlog.length) {
            int size = (int) Unpooled.wrappedBuffer(binlog, offset + 9, 4).getUnsignedIntLE(0);
            list.add(new int[] {offset, size, binlog[offset + 4] & 0xFF});
            offset += size;
        }
        return list;
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static byte[] sha256(byte[]... parts) throws Exception {
        MessageDigest d = MessageDigest.getInstance("SHA-256");
        for (byte[] p : parts) {
            d.update(p);
        }
        return d.digest();
    }

    private final class Source extends SimpleChannelInboundHandler<MySqlPacket> {
        private final PacketSequence seq;
        private byte[] seed = "abcdefghij0123456789".getBytes(StandardCharsets.US_ASCII);
        private String user;
        private String step = "response";
        private int connection;

        Source(PacketSequence seq) {
            this.seq = seq;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            connection = connections.incrementAndGet();
            String plugin = auth == Auth.NATIVE ? MySqlProtocol.MYSQL_NATIVE_PASSWORD : MySqlProtocol.CACHING_SHA2_PASSWORD;
            reply(ctx, new HandshakeV10(10, "5.5.5-10.11.5-MariaDB-fixture", connection, seed,
                    0xFFFF_F7FF & ~MySqlProtocol.CLIENT_SSL, 45, 2, plugin));
        }

        private void reply(ChannelHandlerContext ctx, MySqlMessage m) {
            ctx.writeAndFlush(m.toPacket(ctx.alloc(), seq.next()));
        }

        private void deny(ChannelHandlerContext ctx) {
            authSteps.add("denied");
            reply(ctx, MySqlError.ER_ACCESS_DENIED_ERROR.toPacket("Access denied for user '" + user + "'"));
        }

        private void accept(ChannelHandlerContext ctx) {
            step = "ready";
            reply(ctx, OkPacket.EMPTY);
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, MySqlPacket msg) throws Exception {
            ByteBuf p = msg.payload();
            byte[] pw = AuthScramble.utf8(password);
            switch (step) {
                case "response" -> {
                    HandshakeResponse41 r = HandshakeResponse41.decode(p);
                    user = r.user();
                    switch (auth) {
                        case NATIVE -> {
                            authSteps.add("native");
                            if (Arrays.equals(r.authResponse(), AuthScramble.nativePassword(pw, seed))) {
                                accept(ctx);
                            } else {
                                deny(ctx);
                            }
                        }
                        case SWITCH_TO_NATIVE -> {
                            authSteps.add("switch");
                            seed = "ZYXWVUTSRQ9876543210".getBytes(StandardCharsets.US_ASCII);
                            step = "switched";
                            byte[] data = Arrays.copyOf(seed, seed.length + 1);
                            reply(ctx, new AuthSwitchRequest(MySqlProtocol.MYSQL_NATIVE_PASSWORD, data));
                        }
                        case SHA2_FAST -> {
                            byte[] stored = sha256(sha256(pw));
                            byte[] mask = sha256(stored, seed);
                            byte[] d1 = new byte[32];
                            for (int i = 0; i < 32 && i < r.authResponse().length; i++) {
                                d1[i] = (byte) (r.authResponse()[i] ^ mask[i]);
                            }
                            authSteps.add("sha2-fast");
                            if (r.authResponse().length == 32 && Arrays.equals(sha256(d1), stored)) {
                                reply(ctx, new AuthMoreData(new byte[] {MySqlProtocol.CACHING_SHA2_FAST_AUTH_SUCCESS}));
                                accept(ctx);
                            } else {
                                deny(ctx);
                            }
                        }
                        case SHA2_FULL_RSA -> {
                            authSteps.add("sha2-full");
                            step = "key-request";
                            reply(ctx, new AuthMoreData(new byte[] {MySqlProtocol.CACHING_SHA2_PERFORM_FULL_AUTH}));
                        }
                        default -> throw new IllegalStateException();
                    }
                }
                case "switched" -> {
                    byte[] response = new byte[p.readableBytes()];
                    p.readBytes(response);
                    authSteps.add("native-after-switch");
                    if (Arrays.equals(response, AuthScramble.nativePassword(pw, seed))) {
                        accept(ctx);
                    } else {
                        deny(ctx);
                    }
                }
                case "key-request" -> {
                    if (p.readableBytes() != 1 || p.getByte(p.readerIndex()) != MySqlProtocol.CACHING_SHA2_REQUEST_PUBLIC_KEY) {
                        deny(ctx);
                        return;
                    }
                    authSteps.add("key-sent");
                    step = "encrypted";
                    String pem = "-----BEGIN PUBLIC KEY-----\n" + Base64.getMimeEncoder().encodeToString(rsa.getPublic().getEncoded())
                            + "\n-----END PUBLIC KEY-----\n";
                    reply(ctx, new AuthMoreData(pem.getBytes(StandardCharsets.US_ASCII)));
                }
                case "encrypted" -> {
                    byte[] cipherText = new byte[p.readableBytes()];
                    p.readBytes(cipherText);
                    Cipher cipher = Cipher.getInstance("RSA/ECB/OAEPWithSHA-1AndMGF1Padding");
                    cipher.init(Cipher.DECRYPT_MODE, rsa.getPrivate());
                    byte[] plain = cipher.doFinal(cipherText);
                    for (int i = 0; i < plain.length; i++) {
                        plain[i] ^= seed[i % seed.length];
                    }
                    authSteps.add("rsa-password");
                    if (Arrays.equals(plain, AuthScramble.clearPassword(pw))) {
                        accept(ctx);
                    } else {
                        deny(ctx);
                    }
                }
                case "ready" -> command(ctx, p);
                default -> throw new IllegalStateException(step);
            }
        }

        private void command(ChannelHandlerContext ctx, ByteBuf p) {
            if (p.getUnsignedByte(p.readerIndex()) != MySqlProtocol.COM_BINLOG_DUMP) {
                reply(ctx, OkPacket.EMPTY);
                return;
            }
            ComBinlogDump dump = ComBinlogDump.decode(p);
            dumpPositions.add(dump.position());
            int limit = connection == 1 ? cutFirstConnectionAfter : Integer.MAX_VALUE;
            int sent = 0;
            send(ctx, fakeRotate(dump.fileName(), dump.position()));
            sent++;
            List<int[]> events = events();
            if (dump.position() > 4) {
                send(ctx, Arrays.copyOfRange(binlog, events.get(0)[0], events.get(0)[0] + events.get(0)[1]));
                sent++;
            }
            for (int[] e : events) {
                if (e[0] < dump.position()) {
                    continue;
                }
                if (sent >= limit) {
                    ctx.flush();
                    ctx.close();
                    return;
                }
                send(ctx, Arrays.copyOfRange(binlog, e[0], e[0] + e[1]));
                sent++;
            }
            ctx.flush();
        }

        private void send(ChannelHandlerContext ctx, byte[] event) {
            ByteBuf payload = ctx.alloc().buffer(event.length + 1).writeByte(0).writeBytes(event);
            ctx.write(new MySqlPacket(seq.next(), payload));
        }

        private byte[] fakeRotate(String name, long position) {
            byte[] n = name.getBytes(StandardCharsets.UTF_8);
            ByteBuf b = Unpooled.buffer();
            int size = 19 + 8 + n.length + 4;
            b.writeIntLE(0).writeByte(4).writeIntLE(1).writeIntLE(size).writeIntLE(0).writeShortLE(ShardEvent.ARTIFICIAL_FLAG);
            b.writeLongLE(position).writeBytes(n);
            CRC32 crc = new CRC32();
            crc.update(b.array(), 0, b.writerIndex());
            b.writeIntLE((int) crc.getValue());
            byte[] out = new byte[b.readableBytes()];
            b.readBytes(out);
            return out;
        }
    }
}
