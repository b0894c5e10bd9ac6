package io.tributary.daemon.dump;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;

import io.tributary.storage.binlog.BinlogIndex;
import io.tributary.storage.binlog.BinlogPosition;
import io.tributary.storage.binlog.DurableMark;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The dump server's connections: how many are open, against {@code dump.maxConnections}, and which are receiving
 * the binlog, with each one's streamer (read by the status page through {@link #subscribers(GlobalBinlogWriter)}).
 * Thread-safe (event loops and the server's metrics and status readers); the maps are written only when a connection
 * logs in, starts a dump or closes, never per event.
 */
final class DumpConnections {
    private final int max;
    private final AtomicInteger open = new AtomicInteger();
    private final Map<Channel, BinlogStreamer> dumping = new ConcurrentHashMap<>();
    private final Map<Long, Client> clients = new ConcurrentHashMap<>();
    /** Per connection running a streamed statement, how {@code KILL QUERY} stops it. */
    private final Map<Long, Runnable> running = new ConcurrentHashMap<>();

    /** A logged-in connection, as {@code KILL} finds it; {@code since}: when it logged in. */
    record Client(long id, String user, Channel channel, Instant since) {
    }

    DumpConnections(int max) {
        this.max = max;
    }

    /** Counts a new connection; false (not counted) when {@code dump.maxConnections} are open. */
    boolean admit() {
        if (open.incrementAndGet() > max) {
            open.decrementAndGet();
            return false;
        }
        return true;
    }

    /** An admitted connection closed. */
    void release() {
        open.decrementAndGet();
    }

    /** Connection {@code id} of {@code user} logged in. */
    void loggedIn(long id, String user, Channel channel) {
        clients.put(id, new Client(id, user, channel, Instant.now()));
    }

    void closed(long id) {
        clients.remove(id);
        running.remove(id);
    }

    /** Connection {@code id} streams a statement's result, which {@code kill} stops. */
    void statementStarted(long id, Runnable kill) {
        running.put(id, kill);
    }

    void statementEnded(long id) {
        running.remove(id);
    }

    /** How to stop the statement connection {@code id} streams; null when it streams none. */
    Runnable runningStatement(long id) {
        return running.get(id);
    }

    /** The logged-in connection {@code id}; null when there is none. */
    Client client(long id) {
        return clients.get(id);
    }

    boolean isDumping(Channel channel) {
        return dumping.containsKey(channel);
    }

    void subscriberStarted(Channel channel, BinlogStreamer streamer) {
        dumping.put(channel, streamer);
    }

    void subscriberEnded(Channel channel) {
        dumping.remove(channel);
    }

    int count() {
        return open.get();
    }

    int subscriberCount() {
        return dumping.size();
    }

    /** Bytes queued in memory for the subscriber with the most. */
    long largestSubscriberBacklogBytes() {
        long most = 0;
        for (Channel c : dumping.keySet()) {
            most = Math.max(most, queuedBytes(c));
        }
        return most;
    }

    private static long queuedBytes(Channel c) {
        ChannelOutboundBuffer out = c.unsafe().outboundBuffer();
        return out == null ? 0 : out.totalPendingWriteBytes();
    }

    /**
     * The logged-in connections receiving the binlog, oldest connection first, with how far each is behind the
     * writer's durable end ({@code writer} null: unknown).
     */
    List<DumpSubscriber> subscribers(GlobalBinlogWriter writer) {
        DurableMark end = writer == null ? null : writer.durability().current();
        List<DumpSubscriber> list = new ArrayList<>();
        for (Client c : clients.values()) {
            BinlogStreamer s = dumping.get(c.channel());
            if (s != null) {
                BinlogPosition sent = s.sentPosition();
                long sentSequence = s.sentSequence();
                Long behindBytes = end == null || sent == null ? null : bytesBetween(writer, sent, end.position());
                Long behindTransactions = end == null || sentSequence == 0 ? null
                        : Math.max(0, end.lastSequence() - sentSequence);
                list.add(new DumpSubscriber(c.id(), c.user(), address(c.channel().remoteAddress()), c.since(),
                        s.request().toString(), sent, sentSequence, behindBytes, behindTransactions,
                        queuedBytes(c.channel())));
            }
        }
        list.sort(Comparator.comparingLong(DumpSubscriber::connectionId));
        return list;
    }

    /** Bytes of the global binlog from {@code from} to {@code to}, over files; null when a file between is gone. */
    private static Long bytesBetween(GlobalBinlogWriter w, BinlogPosition from, BinlogPosition to) {
        if (from.compareTo(to) >= 0) {
            return 0L;
        }
        if (from.file().equals(to.file())) {
            return to.position() - from.position();
        }
        Path dir = w.config().dir();
        try {
            long bytes = Math.max(0, Files.size(dir.resolve(from.file())) - from.position());
            for (BinlogIndex.Entry e : w.index().entries()) {
                if (e.number() > from.fileNumber() && e.number() < to.fileNumber()) {
                    bytes += Files.size(dir.resolve(e.file()));
                }
            }
            return bytes + to.position();
        } catch (IOException e) {
            return null; // purged while we looked
        }
    }

    private static String address(SocketAddress a) {
        return a instanceof InetSocketAddress i ? i.getHostString() + ":" + i.getPort() : String.valueOf(a);
    }
}
