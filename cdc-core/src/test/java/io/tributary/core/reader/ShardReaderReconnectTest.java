package io.tributary.core.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.tributary.core.packet.AuthScramble;
import io.tributary.core.packet.ComBinlogDump;
import io.tributary.core.packet.HandshakeResponse41;
import io.tributary.core.packet.HandshakeV10;
import io.tributary.core.packet.MySqlError;
import io.tributary.core.packet.MySqlPacket;
import io.tributary.core.packet.MySqlPacketDecoder;
import io.tributary.core.packet.MySqlPacketEncoder;
import io.tributary.core.packet.MySqlProtocol;
import io.tributary.core.packet.OkPacket;
import io.tributary.core.packet.PacketSequence;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The reader against a replication source built from our own packet codec (server side) that
 * serves a real MariaDB binlog from the corpus and drops the first connection in the middle of a
 * transaction: the sink is told to discard the partial transaction, the reader resumes from the
 * last transaction end, and every transaction arrives exactly once. Also: a wrong password.
 */
class ShardReaderReconnectTest {
    private static final String FILE = "tiflow__mariadb-mysql-bin.000001";
    private static final String PASSWORD = "fixture-pass";

    private EventLoopGroup group;
    private Channel server;
    private byte[] binlog;
    private volatile int cutAfterEvents;
    private final AtomicInteger connections = new AtomicInteger();
    private final List<Long> dumpPositions = new ArrayList<>();

    @BeforeEach
    void startSource() throws Exception {
        Path file = BinlogStreamTrackerTest.corpus().resolve("mariadb-10.x").resolve(FILE);
        binlog = BinlogStreamTrackerTest.read(file);
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
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

    @AfterEach
    void stopSource() {
        if (server != null) {
            server.close().syncUninterruptibly();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private ShardReaderConfig config(String password) {
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        return new ShardReaderConfig("fixture", "127.0.0.1", port, "cdc", password, 77, ShardPosition.at(FILE, 4),
                Duration.ZERO, false, Duration.ofSeconds(5), 1000, 1 << 20,
                new ShardReaderConfig.Backoff(Duration.ofMillis(50), Duration.ofMillis(200), 2.0, 5));
    }

    /** Offsets of the events in the file (start of each event). */
    private List<int[]> events() {
        List<int[]> list = new ArrayList<>();
        int offset = 4;
        while (offset + 19 <= binlog.length) {
            int size = (int) io.netty.buffer.Unpooled.wrappedBuffer(binlog, offset + 9, 4).getUnsignedIntLE(0);
            list.add(new int[] {offset, size, binlog[offset + 4] & 0xFF});
            offset += size;
        }
        return list;
    }

    @Test
    void shouldRewindAPartialTransactionAndDeliverEveryTransactionOnce() throws Exception {
        List<int[]> events = events();
        List<String> expected = new ArrayList<>();
        int cut = -1;
        int xids = 0;
        for (int i = 0; i < events.size(); i++) {
            int[] e = events.get(i);
            if (e[2] == 162) {
                expected.add(io.netty.buffer.Unpooled.wrappedBuffer(binlog, e[0] + 19, 8).getLongLE(0) + "");
            }
            if (e[2] == 16 && ++xids == 2) {
                cut = i - 1; // drop the connection right before the second XID: inside that transaction
            }
        }
        assertThat(cut).isPositive();
        // the fake ROTATE comes first, so the connection carries events 0..cut-1 before it drops
        cutAfterEvents = cut + 1;

        List<String> delivered = new ArrayList<>();
        List<String> pending = new ArrayList<>();
        List<Long> rewinds = new ArrayList<>();
        ShardEventSink sink = new ShardEventSink() {
            @Override
            public synchronized void onEvent(ShardEvent event) {
                if (event.type() == 162) {
                    pending.clear();
                    pending.add(event.bytes().getLongLE(event.bytes().readerIndex() + 19) + "");
                }
                if (event.transactionEnd() && !pending.isEmpty()) {
                    delivered.add(pending.remove(0));
                }
                event.release();
            }

            @Override
            public synchronized void onRewind(ShardPosition restartPosition, long discardedEvents) {
                rewinds.add(discardedEvents);
                pending.clear();
            }
        };
        try (ShardReader reader = new ShardReader(config(PASSWORD), sink)) {
            reader.start();
            long deadline = System.currentTimeMillis() + 10_000;
            while (System.currentTimeMillis() < deadline) {
                synchronized (sink) {
                    if (delivered.size() >= expected.size()) {
                        break;
                    }
                }
                Thread.sleep(20);
            }
            synchronized (sink) {
                assertThat(delivered).as("every transaction exactly once, in order").containsExactlyElementsOf(expected);
                assertThat(rewinds).as("one rewind, dropping the events of the cut transaction").hasSize(1);
                assertThat(rewinds.get(0)).isPositive();
            }
            assertThat(reader.connections()).isEqualTo(2);
            // the second dump starts at the GTID event that opened the cut transaction
            int gtidOfCut = cut;
            while (events.get(gtidOfCut)[2] != 162) {
                gtidOfCut--;
            }
            assertThat(dumpPositions).containsExactly(4L, (long) events.get(gtidOfCut)[0]);
            assertThat(rewindCount(rewinds)).as("events of the cut transaction delivered before the drop").isEqualTo(cut - gtidOfCut);
            assertThat(reader.restartPosition()).isEqualTo(ShardPosition.at(FILE, binlog.length));
        }
    }

    private static long rewindCount(List<Long> rewinds) {
        return rewinds.get(0);
    }

    @Test
    void shouldNotRetryAWrongPassword() throws Exception {
        try (ShardReader reader = new ShardReader(config("wrong"), new ShardEventSink() {
            @Override
            public void onEvent(ShardEvent event) {
                event.release();
            }
        })) {
            reader.start();
            assertThatThrownBy(() -> reader.termination().get(10, TimeUnit.SECONDS)).cause()
                    .isInstanceOf(ShardAuthenticationException.class)
                    .hasMessageStartingWith("shard fixture: authentication failed for user 'cdc' at 127.0.0.1:")
                    .hasMessageEndingWith(": server error 1045 (28000): Access denied for user 'cdc'");
            assertThat(connections.get()).as("connection attempts").isEqualTo(1);
        }
    }

    /** The replication source: greeting, native password check, OK to everything, then the binlog. */
    private final class Source extends SimpleChannelInboundHandler<MySqlPacket> {
        private final PacketSequence seq;
        private final byte[] seed = "abcdefghij0123456789".getBytes(StandardCharsets.US_ASCII);
        private boolean authenticated;

        Source(PacketSequence seq) {
            this.seq = seq;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            connections.incrementAndGet();
            ctx.writeAndFlush(new HandshakeV10(10, "5.5.5-10.11.5-MariaDB-fixture", connections.get(), seed,
                    0xFFFF_F7FF & ~MySqlProtocol.CLIENT_SSL, 45, 2, MySqlProtocol.MYSQL_NATIVE_PASSWORD).toPacket(ctx.alloc(), 0));
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, MySqlPacket msg) {
            ByteBuf p = msg.payload();
            if (!authenticated) {
                HandshakeResponse41 r = HandshakeResponse41.decode(p);
                if (!java.util.Arrays.equals(r.authResponse(), AuthScramble.nativePassword(AuthScramble.utf8(PASSWORD), seed))) {
                    ctx.writeAndFlush(MySqlError.ER_ACCESS_DENIED_ERROR.toPacket("Access denied for user '" + r.user() + "'")
                            .toPacket(ctx.alloc(), seq.next()));
                    return;
                }
                authenticated = true;
                ctx.writeAndFlush(OkPacket.EMPTY.toPacket(ctx.alloc(), seq.next()));
                return;
            }
            int command = p.getUnsignedByte(p.readerIndex());
            if (command != MySqlProtocol.COM_BINLOG_DUMP) {
                ctx.writeAndFlush(OkPacket.EMPTY.toPacket(ctx.alloc(), seq.next()));
                return;
            }
            ComBinlogDump dump = ComBinlogDump.decode(p);
            dumpPositions.add(dump.position());
            int limit = connections.get() == 1 ? cutAfterEvents : Integer.MAX_VALUE;
            int sent = 0;
            send(ctx, fakeRotate(dump.fileName(), dump.position()));
            sent++;
            List<int[]> events = events();
            if (dump.position() > 4) {
                send(ctx, java.util.Arrays.copyOfRange(binlog, events.get(0)[0], events.get(0)[0] + events.get(0)[1]));
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
                send(ctx, java.util.Arrays.copyOfRange(binlog, e[0], e[0] + e[1]));
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
            ByteBuf b = io.netty.buffer.Unpooled.buffer();
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
