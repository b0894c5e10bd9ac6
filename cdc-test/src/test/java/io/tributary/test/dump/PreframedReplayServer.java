package io.tributary.test.dump;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The client's own ceiling for the serving benchmark: a server that does no work at all. It is made by recording one
 * whole session of a client with a real dump server (greeting, the answer to each client packet, and the binlog
 * stream that answers COM_BINLOG_DUMP, all as framed bytes) and then replays it to every client that connects: each
 * answer is written when the client's packet arrives, and the stream with {@link FileChannel#transferTo} (zero copy,
 * as large writes as the kernel takes). The client's packets are read but not checked (the same client with the same
 * arguments sends the same packets: the greeting's scramble is the recorded one).
 */
final class PreframedReplayServer implements AutoCloseable {
    private static final int COM_BINLOG_DUMP = 0x12;
    private static final int COM_BINLOG_DUMP_GTID = 0x1e;

    private final List<byte[]> answers;
    private final int dumpPacket;
    private final Path stream;
    private final ServerSocketChannel server;
    private final Thread acceptor;
    private final int writeSize;

    private PreframedReplayServer(List<byte[]> answers, int dumpPacket, Path stream, int writeSize) throws IOException {
        this.writeSize = writeSize;
        this.answers = answers;
        this.dumpPacket = dumpPacket;
        this.stream = stream;
        this.server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0), 256);
        this.acceptor = new Thread(this::accept, "replay-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.socket().getLocalPort();
    }

    long streamBytes() throws IOException {
        return Files.size(stream);
    }

    /**
     * Records the session of {@code client} (a command that connects to the port it is given) with the server at
     * {@code upstreamPort}, keeping the binlog stream in {@code stream}, and returns a server replaying it.
     */
    static PreframedReplayServer record(int upstreamPort, java.util.function.IntFunction<List<String>> client,
                                        Path stream) throws Exception {
        return record(upstreamPort, client, stream, 0);
    }

    /**
     * As {@link #record(int, java.util.function.IntFunction, Path)}, the stream replayed in writes of at most
     * {@code writeSize} bytes (0: as large as the kernel takes), to see what the size of a server's writes does to the
     * client's rate.
     */
    static PreframedReplayServer record(int upstreamPort, java.util.function.IntFunction<List<String>> client,
                                        Path stream, int writeSize) throws Exception {
        List<ByteArrayOutputStream> answers = new ArrayList<>();
        answers.add(new ByteArrayOutputStream()); // 0: the greeting, before any client packet
        int[] dump = {-1};
        try (ServerSocketChannel proxy = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
             OutputStream streamOut = Files.newOutputStream(stream)) {
            Process p = new ProcessBuilder(client.apply(proxy.socket().getLocalPort())).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            try (Socket down = proxy.accept().socket(); Socket up = new Socket("127.0.0.1", upstreamPort)) {
                Thread fromServer = new Thread(() -> {
                    byte[] b = new byte[1 << 16];
                    try {
                        InputStream in = up.getInputStream();
                        OutputStream out = down.getOutputStream();
                        for (int n; (n = in.read(b)) > 0; ) {
                            synchronized (answers) {
                                int at = answers.size() - 1;
                                if (at == dump[0]) {
                                    streamOut.write(b, 0, n);
                                } else {
                                    answers.get(at).write(b, 0, n);
                                }
                            }
                            out.write(b, 0, n);
                        }
                        down.shutdownOutput(); // the server ended the session
                    } catch (IOException e) {
                        // the client closed: the session is over
                    }
                }, "replay-record");
                fromServer.start();
                InputStream in = down.getInputStream();
                OutputStream out = up.getOutputStream();
                byte[] header = new byte[4];
                while (readHeader(in, header)) {
                    int length = (header[0] & 0xff) | (header[1] & 0xff) << 8 | (header[2] & 0xff) << 16;
                    byte[] payload = in.readNBytes(length);
                    synchronized (answers) {
                        answers.add(new ByteArrayOutputStream());
                        if (length > 0 && ((payload[0] & 0xff) == COM_BINLOG_DUMP || (payload[0] & 0xff) == COM_BINLOG_DUMP_GTID)) {
                            dump[0] = answers.size() - 1;
                        }
                    }
                    try {
                        out.write(header);
                        out.write(payload);
                        out.flush();
                    } catch (IOException e) {
                        break; // the server ended the session after the dump (MariaDB does): the last packet is a QUIT
                    }
                }
                if (!up.isOutputShutdown()) {
                    try {
                        up.shutdownOutput();
                    } catch (IOException e) {
                        // already closed by the server
                    }
                }
                fromServer.join(60_000);
            }
            if (p.waitFor() != 0) {
                throw new IllegalStateException("the recorded client exited with " + p.exitValue());
            }
        }
        if (dump[0] < 0) {
            throw new IllegalStateException("the recorded client sent no COM_BINLOG_DUMP");
        }
        List<byte[]> bytes = answers.stream().map(ByteArrayOutputStream::toByteArray).toList();
        return new PreframedReplayServer(bytes, dump[0], stream, writeSize);
    }

    /** Reads a client packet's header; false when the client closed. */
    private static boolean readHeader(InputStream in, byte[] header) {
        try {
            return in.readNBytes(header, 0, 4) == 4;
        } catch (IOException e) {
            return false;
        }
    }

    private void accept() {
        while (server.isOpen()) {
            try {
                SocketChannel c = server.accept();
                Thread t = new Thread(() -> replay(c), "replay-session");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void replay(SocketChannel c) {
        try (c; FileChannel file = FileChannel.open(stream, StandardOpenOption.READ)) {
            writeFully(c, answers.get(0));
            ByteBuffer header = ByteBuffer.allocate(4);
            for (int packet = 1; ; packet++) {
                header.clear();
                while (header.hasRemaining()) {
                    if (c.read(header) < 0) {
                        return;
                    }
                }
                int length = (header.get(0) & 0xff) | (header.get(1) & 0xff) << 8 | (header.get(2) & 0xff) << 16;
                ByteBuffer payload = ByteBuffer.allocate(length);
                while (payload.hasRemaining()) {
                    if (c.read(payload) < 0) {
                        return;
                    }
                }
                if (packet == dumpPacket) {
                    long size = file.size();
                    long most = writeSize > 0 ? writeSize : size;
                    for (long at = 0; at < size; ) {
                        at += file.transferTo(at, Math.min(most, size - at), c);
                    }
                } else if (packet < answers.size()) {
                    writeFully(c, answers.get(packet));
                }
            }
        } catch (IOException e) {
            // the client went away
        }
    }

    private static void writeFully(SocketChannel c, byte[] bytes) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        while (b.hasRemaining()) {
            c.write(b);
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        Files.deleteIfExists(stream);
    }
}
