package io.tributary.daemon.dump;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoop;
import io.tributary.core.packet.FramedPackets;
import io.tributary.core.packet.MySqlProtocol;
import io.tributary.storage.tail.TailCache;
import java.io.Closeable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves, from ONE thread, the tailing subscribers that caught up with the shared {@link TailCache}: when the cache
 * publishes new events, it takes them once, frames them once for every packet sequence id the waiting subscribers are
 * at (usually one: subscribers that joined the same way have sent as many packets), and hands each event loop one
 * task that writes a retained duplicate of that buffer to each of its channels. So a publish costs one wake-up of
 * this thread and one task per event loop, instead of one woken {@link BinlogStreamer} thread, one framing and one
 * event-loop task per subscriber.
 *
 * <p>A subscriber is lent here by its streamer ({@code BinlogStreamer.lend}) only while it is in the cache, has
 * nothing pending and found nothing new; it is handed back, its streamer woken, as soon as anything needs that
 * thread: its channel is not writable or closed (back-pressure: a stalled subscriber never holds up this thread or
 * the others), its cursor left the cache, or the cache closed. The streamer takes it back itself for a heartbeat,
 * when its connection closes, or after {@code LENT_WAIT}. Ownership of the streamer's position fields moves with its
 * lend state (a compare-and-set), so only one thread touches them at a time.
 *
 * <p>Thread-safety: {@link #lend} and {@link #returned} from streamer threads; everything else on this thread.
 */
final class TailFanOut implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(TailFanOut.class);
    private static final Duration MAX_WAIT = Duration.ofMillis(500);
    /** Bytes of events taken from the cache per round, as a streamer takes them. */
    private static final int BATCH_BYTES = 256 * 1024;
    private static final int EVENT_IN_PACKET = MySqlProtocol.PACKET_HEADER_BYTES + 1;

    private final TailCache cache;
    private final ByteBufAllocator alloc;
    private final Set<BinlogStreamer> lent = ConcurrentHashMap.newKeySet();
    private final Thread thread;
    private volatile boolean closed;

    private TailFanOut(TailCache cache, ByteBufAllocator alloc) {
        this.cache = cache;
        this.alloc = alloc;
        this.thread = new Thread(this::run, "binlog-tail-fanout");
        this.thread.setDaemon(true);
    }

    /** A fan-out of {@code cache}, framing into buffers of {@code alloc}, with its thread started. */
    static TailFanOut start(TailCache cache, ByteBufAllocator alloc) {
        TailFanOut f = new TailFanOut(cache, alloc);
        f.thread.start();
        return f;
    }

    /** The cache it serves from: a streamer lends itself only to the fan-out of the cache it reads. */
    TailCache cache() {
        return cache;
    }

    /** Takes {@code s} (already in the lent state) into the set served; false when closed (keep it). */
    boolean lend(BinlogStreamer s) {
        if (closed) {
            return false;
        }
        lent.add(s);
        LockSupport.unpark(thread);
        return true;
    }

    /** {@code s} was taken back by its streamer. */
    void returned(BinlogStreamer s) {
        lent.remove(s);
    }

    private void run() {
        List<TailCache.Entry> entries = new ArrayList<>();
        try {
            while (!closed) {
                if (lent.isEmpty()) {
                    LockSupport.parkNanos(this, MAX_WAIT.toNanos());
                    continue;
                }
                Map<Long, List<BinlogStreamer>> byCursor = new HashMap<>();
                long min = Long.MAX_VALUE;
                for (BinlogStreamer s : lent) {
                    long c = s.lentCursor();
                    byCursor.computeIfAbsent(c, k -> new ArrayList<>()).add(s);
                    min = Math.min(min, c);
                }
                boolean any = false;
                for (Map.Entry<Long, List<BinlogStreamer>> group : byCursor.entrySet()) {
                    entries.clear();
                    // wait only at the lowest cursor: nothing is published past it while it has nothing
                    Duration wait = group.getKey() == min && byCursor.size() == 1 ? MAX_WAIT : Duration.ZERO;
                    try {
                        if (cache.get(group.getKey(), BATCH_BYTES, wait, entries) > 0) {
                            deliver(group.getKey(), entries);
                            any = true;
                        }
                    } catch (TailCache.Evicted e) {
                        handBack(group.getValue()); // they find out themselves and go back to the files
                    }
                }
                if (!any && byCursor.size() > 1) {
                    LockSupport.parkNanos(this, 100_000);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            LOG.warn("tail fan-out stopped; subscribers are served by their own threads: {}", e.toString());
        } finally {
            closed = true;
            handBack(new ArrayList<>(lent));
        }
    }

    private void handBack(List<BinlogStreamer> streamers) {
        for (BinlogStreamer s : streamers) {
            if (s.claim()) {
                lent.remove(s);
                s.handBack();
            }
        }
    }

    /** One write to one subscriber: its framed packets and their size, for its in-flight count. */
    private record Delivery(BinlogStreamer streamer, FramedPackets packets, int bytes) {
    }

    /**
     * Frames {@code entries} (from {@code cursor} on) once per sequence id the subscribers lent at {@code cursor} are
     * at, gives each subscriber a retained duplicate, hands each event loop one task writing them, then releases the
     * subscribers (in that order, so that what a streamer writes after taking its subscriber back is queued after
     * these). A write the channel refuses closes that connection, as on the streamer's own path.
     */
    private void deliver(long cursor, List<TailCache.Entry> entries) {
        int n = entries.size();
        long lastSequence = -1;
        for (TailCache.Entry en : entries) {
            long sequence = BinlogStreamer.sequenceOf(en.type(), en.chunk(), en.offset());
            if (sequence >= 0) {
                lastSequence = sequence;
            }
        }
        TailCache.Entry last = entries.get(n - 1);
        Map<Integer, FramedPackets> framed = new HashMap<>();
        Map<EventLoop, List<Delivery>> byLoop = new IdentityHashMap<>();
        List<BinlogStreamer> claimed = new ArrayList<>();
        List<BinlogStreamer> back = new ArrayList<>();
        long now = System.nanoTime();
        for (BinlogStreamer s : lent) { // all lent at the cursor now, also those lent while this thread waited
            if (s.lentCursor() != cursor || !s.claim()) {
                continue; // elsewhere, or its streamer took it back
            }
            if (s.lentCursor() != cursor) { // taken back and lent again at another cursor since it was grouped
                s.release();
                continue;
            }
            if (!s.canTakeMore()) {
                lent.remove(s);
                back.add(s);
                continue;
            }
            FramedPackets f = framed.computeIfAbsent(s.lentSequenceId(), seq -> frame(entries, seq, bytesFor(entries)));
            FramedPackets mine = new FramedPackets(f.bytes().retainedDuplicate(), f.firstSequenceId(),
                    f.nextSequenceId());
            int size = mine.bytes().readableBytes();
            s.sentByFanOut(n, last.next(), f.nextSequenceId(), lastSequence, size, now);
            byLoop.computeIfAbsent(s.eventLoop(), k -> new ArrayList<>()).add(new Delivery(s, mine, size));
            claimed.add(s);
        }
        for (Map.Entry<EventLoop, List<Delivery>> e : byLoop.entrySet()) {
            List<Delivery> ds = e.getValue();
            try {
                e.getKey().execute(() -> {
                    for (Delivery d : ds) {
                        d.streamer().channel().write(d.packets()).addListener(BinlogStreamer.WRITE_FAILED);
                    }
                    for (Delivery d : ds) {
                        d.streamer().channel().flush();
                        d.streamer().written(d.bytes());
                    }
                });
            } catch (RejectedExecutionException ex) { // the server is shutting down
                for (Delivery d : ds) {
                    d.packets().bytes().release();
                    d.streamer().written(d.bytes());
                }
            }
        }
        for (FramedPackets f : framed.values()) {
            f.bytes().release();
        }
        for (BinlogStreamer s : claimed) {
            s.release();
        }
        for (BinlogStreamer s : back) {
            s.handBack();
        }
    }

    private static int bytesFor(List<TailCache.Entry> entries) {
        int bytes = 0;
        for (TailCache.Entry en : entries) {
            bytes += en.length() + EVENT_IN_PACKET;
        }
        return bytes;
    }

    private FramedPackets frame(List<TailCache.Entry> entries, int firstSequenceId, int bytes) {
        ByteBuf out = alloc.ioBuffer(bytes);
        int seq = firstSequenceId;
        for (TailCache.Entry en : entries) {
            seq = FramedPackets.append(out, seq, (byte) 0, en.chunk(), en.offset(), en.length());
        }
        return new FramedPackets(out, firstSequenceId, seq);
    }

    /** Stops the thread; every subscriber lent is handed back to its streamer. */
    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(thread);
    }
}
