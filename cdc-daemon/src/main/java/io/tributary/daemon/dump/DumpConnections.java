package io.tributary.daemon.dump;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The dump server's connections: how many are open, against {@code dump.maxConnections}, and which are receiving
 * the binlog. Thread-safe (event loops and the server's metrics readers).
 */
final class DumpConnections {
    private final int max;
    private final AtomicInteger open = new AtomicInteger();
    private final Set<Channel> dumping = ConcurrentHashMap.newKeySet();
    private final Map<Long, Client> clients = new ConcurrentHashMap<>();

    /** A logged-in connection, as {@code KILL} finds it. */
    record Client(long id, String user, Channel channel) {
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
        clients.put(id, new Client(id, user, channel));
    }

    void closed(long id) {
        clients.remove(id);
    }

    /** The logged-in connection {@code id}; null when there is none. */
    Client client(long id) {
        return clients.get(id);
    }

    boolean isDumping(Channel channel) {
        return dumping.contains(channel);
    }

    void subscriberStarted(Channel channel) {
        dumping.add(channel);
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
        for (Channel c : dumping) {
            ChannelOutboundBuffer out = c.unsafe().outboundBuffer();
            if (out != null) {
                most = Math.max(most, out.totalPendingWriteBytes());
            }
        }
        return most;
    }
}
