package io.tributary.test.dump;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The floor of the tail benchmark: the least any server can do to deliver a transaction to N tailing subscribers on
 * this machine. It answers the {@link RawTailSubscribers}' login, queries and COM_BINLOG_DUMP without checking them,
 * then {@link #publish} writes one transaction (a MariaDB GTID event, one event of filler standing for the rows, an
 * XID), framed once into one buffer, to every subscriber's socket in turn from the calling thread: one write system
 * call per subscriber and nothing else. Every subscriber is sent the same packets from its dump on, so their sequence
 * ids line up and one buffer serves all.
 *
 * <p>Threading: an accepting thread answers logins; {@link #publish} from one thread at a time.
 */
final class FanOutFloorServer implements Closeable {
    private final ServerSocketChannel server;
    private final List<SocketChannel> dumping = new CopyOnWriteArrayList<>();
    private final Thread acceptor;
    private final int rowsBytes;
    private int sequenceId = 1;
    private long gtid;

    FanOutFloorServer(int rowsBytes) throws IOException {
        this.rowsBytes = rowsBytes;
        this.server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        this.acceptor = new Thread(this::accept, "floor-acceptor");
        this.acceptor.setDaemon(true);
        this.acceptor.start();
    }

    int port() {
        return ((InetSocketAddress) server.socket().getLocalSocketAddress()).getPort();
    }

    /** Waits until {@code n} subscribers sent their dump request. */
    void awaitSubscribers(int n) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (dumping.size() < n) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(dumping.size() + " of " + n + " subscribers dumping after 60 s");
            }
            Thread.sleep(1);
        }
    }

    /** The sequence number the next {@link #publish} carries. */
    long nextGtid() {
        return gtid + 1;
    }

    /** Writes the next transaction to every subscriber, one after the other. */
    void publish() throws IOException {
        long seq = ++gtid;
        ByteBuffer b = ByteBuffer.allocateDirect(3 * 5 + 36 + 19 + rowsBytes + 4 + 31).order(ByteOrder.LITTLE_ENDIAN);
        event(b, 162, 36, body -> body.putLong(seq).putInt(0).put((byte) 0));
        event(b, 23, 19 + rowsBytes + 4, body -> body.put(new byte[rowsBytes]));
        event(b, 16, 31, body -> body.putLong(seq));
        b.flip();
        for (SocketChannel ch : dumping) {
            ByteBuffer d = b.duplicate();
            while (d.hasRemaining()) {
                ch.write(d);
            }
        }
    }

    /** Appends one packet {@code 0x00 + event} of {@code length} bytes (header, body, a zero checksum). */
    private void event(ByteBuffer b, int type, int length, java.util.function.Consumer<ByteBuffer> body) {
        int payload = 1 + length;
        b.put((byte) payload).put((byte) (payload >> 8)).put((byte) (payload >> 16)).put((byte) sequenceId);
        sequenceId = (sequenceId + 1) & 0xff;
        b.put((byte) 0);
        int start = b.position();
        b.putInt(0).put((byte) type).putInt(1).putInt(length).putInt(0).putShort((short) 0);
        body.accept(b);
        b.position(start + length - 4);
        b.putInt(0);
    }

    private void accept() {
        try {
            while (server.isOpen()) {
                SocketChannel ch = server.accept();
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                answer(ch);
                dumping.add(ch);
            }
        } catch (IOException e) {
            // closed
        }
    }

    /** Greeting, OK to the login, OK to each query, then nothing to the dump request (the stream follows). */
    private static void answer(SocketChannel ch) throws IOException {
        ByteBuffer g = ByteBuffer.allocate(128).order(ByteOrder.LITTLE_ENDIAN);
        g.put((byte) 10).put("5.5.5-10.11.5-floor".getBytes(StandardCharsets.US_ASCII)).put((byte) 0).putInt(1);
        g.put(new byte[8]).put((byte) 0).putShort((short) 0xf7ff).put((byte) 33).putShort((short) 2)
                .putShort((short) 0x0008).put((byte) 21).put(new byte[10]).put(new byte[12]).put((byte) 0)
                .put("mysql_native_password".getBytes(StandardCharsets.US_ASCII)).put((byte) 0);
        write(ch, 0, g.flip());
        read(ch); // login
        write(ch, 2, ok());
        while (true) {
            ByteBuffer p = read(ch);
            if (p.get(0) == 0x12) { // COM_BINLOG_DUMP
                return;
            }
            write(ch, 1, ok());
        }
    }

    private static ByteBuffer ok() {
        return ByteBuffer.wrap(new byte[] {0, 0, 0, 2, 0, 0, 0});
    }

    private static ByteBuffer read(SocketChannel ch) throws IOException {
        ByteBuffer h = ByteBuffer.allocate(4);
        fill(ch, h);
        ByteBuffer p = ByteBuffer.allocate((h.get(0) & 0xff) | (h.get(1) & 0xff) << 8 | (h.get(2) & 0xff) << 16);
        fill(ch, p);
        return p.flip();
    }

    private static void fill(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                throw new EOFException();
            }
        }
    }

    private static void write(SocketChannel ch, int sequenceId, ByteBuffer payload) throws IOException {
        int n = payload.remaining();
        ByteBuffer h = ByteBuffer.wrap(new byte[] {(byte) n, (byte) (n >> 8), (byte) (n >> 16), (byte) sequenceId});
        ch.write(new ByteBuffer[] {h, payload});
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (SocketChannel ch : dumping) {
            ch.close();
        }
    }
}
