package io.tributary.daemon.dump;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The dump server's connections: how many are open, against {@code dump.maxConnections}, and which are receiving
 * the binlog, with each one's streamer (read by the status page through {@link #subscribers()}). Thread-safe (event
 * loops and the server's metrics and status readers); the maps are written only when a connection logs in, starts
 * a dump or closes, never per event.
 */
final class DumpConnections {
    private final int max;
    private final AtomicInteger open = new AtomicInteger();
    private final Map<Channel, BinlogStreamer> dumping = new ConcurrentHashMap<>();
    private final Map<Long, Client> clients = new ConcurrentHashMap<>();

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

    /** The logged-in connections receiving the binlog, oldest connection first. */
    List<DumpSubscriber> subscribers() {
        List<DumpSubscriber> list = new ArrayList<>();
        for (Client c : clients.values()) {
            BinlogStreamer s = dumping.get(c.channel());
            if (s != null) {
                list.add(new DumpSubscriber(c.id(), c.user(), address(c.channel().remoteAddress()), c.since(),
                        s.request().toString(), s.sentPosition(), s.sentSequence(), queuedBytes(c.channel())));
            }
        }
        list.sort(Comparator.comparingLong(DumpSubscriber::connectionId));
        return list;
    }

    private static String address(SocketAddress a) {
        return a instanceof InetSocketAddress i ? i.getHostString() + ":" + i.getPort() : String.valueOf(a);
    }
}
