package io.tributary.test.dump;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;

/**
 * Tailing subscribers that cost next to nothing, for the tail benchmark: N sockets that each log in
 * ({@code mysql_native_password}), set {@code @master_binlog_checksum='CRC32'} and {@code @mariadb_slave_capability=4}
 * and send COM_BINLOG_DUMP, then are read by ONE selector thread that only scans packet headers and the first bytes of
 * each event: a MariaDB GTID event's sequence number (a MySQL GTID's too) and the XID that ends its transaction, whose
 * arrival it timestamps ({@link System#nanoTime()} after the read that brought it), and checks that the packets'
 * sequence ids follow each other (the first error ends the run). Nothing is decoded, copied or
 * allocated per event, so the subscribers' cost hardly grows with N and the figures are the server's.
 *
 * <p>A {@linkplain #connectStalled stalled} subscriber logs in and asks for the dump like the others but is never
 * read, with a small receive buffer: its socket fills and stays full.
 *
 * <p>Threading: connections are opened on the caller's thread, before {@link #start}; after it, the selector thread owns
 * every subscriber's parse state; {@link #window}, {@link #transactions} and {@link #firstError} may be called from any
 * thread.
 */
final class RawTailSubscribers implements Closeable {
    private static final int MARIA_GTID = 162;
    private static final int GTID = 33;
    private static final int XID = 16;
    /** The bytes of a packet's payload kept: status byte, 19-byte event header, a MySQL GTID's body up to its GNO. */
    private static final int HEAD = 1 + 19 + 1 + 16 + 8;

    /** The transactions whose arrival is recorded: sequence numbers {@code first} to {@code first + count - 1}. */
    record Window(long first, long[][] receivedAt) {
    }

    private final Selector selector;
    private final List<Subscriber> subscribers = new ArrayList<>();
    private final List<SocketChannel> stalled = new ArrayList<>();
    private volatile Window window = new Window(Long.MAX_VALUE, new long[0][0]);
    private volatile String error;
    private volatile boolean running = true;
    private Thread thread;

    RawTailSubscribers() throws IOException {
        this.selector = Selector.open();
    }

    /** The parse state of one subscriber's stream; owned by the selector thread. */
    private static final class Subscriber {
        final int index;
        final SocketChannel channel;
        final byte[] header = new byte[4];
        int headerGot;
        /** The sequence id the next packet must carry: the server's first answer to COM_BINLOG_DUMP (id 0) is 1. */
        int expectedSequenceId = 1;
        int payloadLeft;
        int payloadLength;
        final byte[] head = new byte[HEAD];
        int headGot;
        boolean continuation;
        long sequence;
        volatile long transactions;

        Subscriber(int index, SocketChannel channel) {
            this.index = index;
            this.channel = channel;
        }
    }

    /** Opens a subscriber that dumps from {@code file}:{@code position}; before {@link #start}. */
    void connect(int port, String user, String password, String file, long position) throws IOException {
        SocketChannel ch = dump(port, user, password, file, position, 0, 10_000 + subscribers.size());
        ch.configureBlocking(false);
        Subscriber s = new Subscriber(subscribers.size(), ch);
        subscribers.add(s);
        ch.register(selector, SelectionKey.OP_READ, s);
    }

    /** Opens a subscriber that asks for the dump and then never reads (its receive buffer is 4 KB). */
    void connectStalled(int port, String user, String password, String file, long position) throws IOException {
        stalled.add(dump(port, user, password, file, position, 4096, 9_000 + stalled.size()));
    }

    int size() {
        return subscribers.size();
    }

    void start() {
        thread = new Thread(this::run, "raw-tail-subscribers");
        thread.setDaemon(true);
        thread.start();
    }

    /** Records the arrival of transactions {@code first} to {@code first + count - 1} from now on. */
    Window window(long first, int count) {
        Window w = new Window(first, new long[subscribers.size()][count]);
        window = w;
        return w;
    }

    /** Transactions (XIDs) the slowest subscriber received so far. */
    long slowest() {
        long min = Long.MAX_VALUE;
        for (Subscriber s : subscribers) {
            min = Math.min(min, s.transactions);
        }
        return min;
    }

    /** The first error a server sent or a read failed with; null when none. */
    String firstError() {
        return error;
    }

    private void run() {
        ByteBuffer buf = ByteBuffer.allocateDirect(256 * 1024);
        try {
            while (running) {
                if (selector.select(100) == 0) {
                    continue;
                }
                var keys = selector.selectedKeys();
                for (SelectionKey k : keys) {
                    Subscriber s = (Subscriber) k.attachment();
                    buf.clear();
                    int n;
                    try {
                        n = s.channel.read(buf);
                    } catch (IOException e) {
                        n = -1;
                    }
                    if (n < 0) {
                        k.cancel();
                        if (running && error == null) {
                            error = "subscriber " + s.index + " was disconnected";
                        }
                        continue;
                    }
                    long now = System.nanoTime();
                    buf.flip();
                    scan(s, buf, now);
                }
                keys.clear();
            }
        } catch (IOException | RuntimeException e) {
            error = "selector failed: " + e;
        }
    }

    /** Walks the packets in {@code buf}, keeping only each payload's first {@value #HEAD} bytes. */
    private void scan(Subscriber s, ByteBuffer buf, long now) {
        while (buf.hasRemaining()) {
            if (s.headerGot < 4) {
                s.header[s.headerGot++] = buf.get();
                if (s.headerGot == 4) {
                    int id = s.header[3] & 0xff;
                    if (id != s.expectedSequenceId && error == null) {
                        error = "subscriber " + s.index + " got packet sequence id " + id + ", expected "
                                + s.expectedSequenceId;
                    }
                    s.expectedSequenceId = (id + 1) & 0xff;
                    s.payloadLength = (s.header[0] & 0xff) | (s.header[1] & 0xff) << 8 | (s.header[2] & 0xff) << 16;
                    s.payloadLeft = s.payloadLength;
                    s.headGot = 0;
                    if (s.payloadLeft == 0) {
                        endOfPacket(s, now);
                    }
                }
                continue;
            }
            int take = Math.min(s.payloadLeft, buf.remaining());
            int keep = Math.min(take, HEAD - s.headGot);
            if (keep > 0) {
                buf.get(s.head, s.headGot, keep);
                s.headGot += keep;
            }
            buf.position(buf.position() + take - keep);
            s.payloadLeft -= take;
            if (s.payloadLeft == 0) {
                endOfPacket(s, now);
            }
        }
    }

    private void endOfPacket(Subscriber s, long now) {
        boolean wasContinuation = s.continuation;
        s.continuation = s.payloadLength == 0xFFFFFF; // a 16 MB packet: the next one continues the same event
        s.headerGot = 0;
        if (wasContinuation || s.headGot < 1) {
            return;
        }
        int status = s.head[0] & 0xff;
        if (status == 0xff) {
            if (error == null) {
                error = "subscriber " + s.index + " got an error: "
                        + new String(s.head, 1, s.headGot - 1, StandardCharsets.UTF_8);
            }
            return;
        }
        if (status != 0 || s.headGot < 20) {
            return;
        }
        int type = s.head[5] & 0xff;
        if (type == MARIA_GTID && s.headGot >= 28) {
            s.sequence = readLong(s.head, 20);
        } else if (type == GTID && s.headGot >= HEAD) {
            s.sequence = readLong(s.head, 37);
        } else if (type == XID) {
            Window w = window;
            long i = s.sequence - w.first();
            if (i >= 0 && w.receivedAt().length > s.index && i < w.receivedAt()[s.index].length) {
                w.receivedAt()[s.index][(int) i] = now;
            }
            s.transactions++;
        }
    }

    private static long readLong(byte[] b, int at) {
        return ByteBuffer.wrap(b, at, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    /** Logs in, negotiates checksums and GTID events, sends COM_BINLOG_DUMP; blocking, returns the channel. */
    private static SocketChannel dump(int port, String user, String password, String file, long position,
                                      int receiveBuffer, int serverId) throws IOException {
        SocketChannel ch = SocketChannel.open();
        if (receiveBuffer > 0) {
            ch.setOption(StandardSocketOptions.SO_RCVBUF, receiveBuffer);
        }
        ch.connect(new InetSocketAddress("127.0.0.1", port));
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        ByteBuffer greeting = readPacket(ch);
        greeting.get(); // protocol version 10
        skipString(greeting);
        greeting.getInt(); // connection id
        byte[] seed = new byte[20];
        greeting.get(seed, 0, 8);
        greeting.get(); // filler
        greeting.position(greeting.position() + 2 + 1 + 2 + 2 + 1 + 10);
        greeting.get(seed, 8, 12);
        ByteBuffer login = ByteBuffer.allocate(256).order(ByteOrder.LITTLE_ENDIAN);
        login.putInt(0x1 | 0x200 | 0x2000 | 0x8000 | 0x80000); // LONG_PASSWORD, PROTOCOL_41, TRANSACTIONS, SECURE, PLUGIN_AUTH
        login.putInt(16 * 1024 * 1024);
        login.put((byte) 33);
        login.put(new byte[23]);
        login.put(user.getBytes(StandardCharsets.UTF_8)).put((byte) 0);
        byte[] scramble = scramble(password, seed);
        login.put((byte) scramble.length).put(scramble);
        login.put("mysql_native_password".getBytes(StandardCharsets.US_ASCII)).put((byte) 0);
        writePacket(ch, 1, login.flip());
        ByteBuffer answer = readPacket(ch);
        if ((answer.get(0) & 0xff) == 0xfe) { // auth switch: only to mysql_native_password with a new seed
            answer.get();
            skipString(answer);
            byte[] newSeed = new byte[20];
            answer.get(newSeed);
            writePacket(ch, 3, ByteBuffer.wrap(scramble(password, newSeed)));
            answer = readPacket(ch);
        }
        expectOk(answer, "login");
        for (String sql : List.of("SET @master_binlog_checksum='CRC32'", "SET @mariadb_slave_capability=4")) {
            ByteBuffer q = ByteBuffer.allocate(1 + sql.length());
            q.put((byte) 0x03).put(sql.getBytes(StandardCharsets.US_ASCII));
            writePacket(ch, 0, q.flip());
            expectOk(readPacket(ch), sql);
        }
        byte[] name = file.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer d = ByteBuffer.allocate(11 + name.length).order(ByteOrder.LITTLE_ENDIAN);
        d.put((byte) 0x12).putInt((int) position).putShort((short) 0).putInt(serverId).put(name);
        writePacket(ch, 0, d.flip());
        return ch;
    }

    private static void expectOk(ByteBuffer p, String what) throws IOException {
        if ((p.get(0) & 0xff) != 0) {
            byte[] b = new byte[p.remaining()];
            p.get(b);
            throw new IOException(what + " failed: " + new String(b, StandardCharsets.UTF_8));
        }
    }

    private static byte[] scramble(String password, byte[] seed) {
        try {
            MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
            byte[] h1 = sha1.digest(password.getBytes(StandardCharsets.UTF_8));
            byte[] h2 = sha1.digest(h1);
            sha1.update(seed, 0, 20);
            byte[] h3 = sha1.digest(h2);
            for (int i = 0; i < h1.length; i++) {
                h1[i] ^= h3[i];
            }
            return h1;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void skipString(ByteBuffer b) {
        while (b.get() != 0) {
            // the NUL-terminated string
        }
    }

    private static ByteBuffer readPacket(SocketChannel ch) throws IOException {
        ByteBuffer h = ByteBuffer.allocate(4);
        readFully(ch, h);
        int length = (h.get(0) & 0xff) | (h.get(1) & 0xff) << 8 | (h.get(2) & 0xff) << 16;
        ByteBuffer p = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        readFully(ch, p);
        return p.flip();
    }

    private static void readFully(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                throw new EOFException("the server closed the connection");
            }
        }
    }

    private static void writePacket(SocketChannel ch, int sequenceId, ByteBuffer payload) throws IOException {
        ByteBuffer h = ByteBuffer.allocate(4);
        int n = payload.remaining();
        h.put((byte) n).put((byte) (n >> 8)).put((byte) (n >> 16)).put((byte) sequenceId).flip();
        ch.write(new ByteBuffer[] {h, payload});
    }

    @Override
    public void close() throws IOException {
        running = false;
        selector.wakeup();
        if (thread != null) {
            try {
                thread.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (Subscriber s : subscribers) {
            s.channel.close();
        }
        for (SocketChannel c : stalled) {
            c.close();
        }
        selector.close();
    }
}
