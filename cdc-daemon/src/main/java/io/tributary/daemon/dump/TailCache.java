package io.tributary.daemon.dump;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.EventHeader;
import io.tributary.core.event.EventType;
import io.tributary.storage.binlog.BinlogFileReader;
import io.tributary.storage.binlog.BinlogPosition;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The newest part of the global binlog in memory, shared by every subscriber near the tail (ARCHITECTURE.md,
 * "Shared tail cache"). One filler thread follows the writer with a {@link BinlogFileReader} from the durable
 * end at start-up, so the files are read once whatever the number of subscribers, and only durable events
 * enter the cache (invariant 6). Events are kept as copies of their bytes, oldest evicted first once they
 * exceed {@code maxBytes}.
 *
 * <p>A subscriber holds a cursor (a running event index). It joins with {@link #find} when its own file reader
 * reaches a position the cache holds, and goes back to the files when its cursor was evicted (it was too slow).
 * Waiting at the end blocks on this object's monitor, notified when the filler appended a batch.
 *
 * <p>Thread-safe: one filler thread, any number of subscriber threads.
 */
final class TailCache implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(TailCache.class);

    /** One cached event: its bytes, where it starts, and where the event after it starts. */
    record Entry(BinlogPosition start, BinlogPosition next, EventType type, byte[] bytes) {
        @Override
        public String toString() {
            return "Entry[" + type + " at " + start + ", " + bytes.length + " bytes]";
        }
    }

    /** The cursor points at an event that was evicted. */
    static final class Evicted extends Exception {
        Evicted(long cursor, long first) {
            super("cursor " + cursor + " fell out of the tail cache (oldest kept " + first + ")", null, false, false);
        }
    }

    private final GlobalBinlogWriter writer;
    private final long maxBytes;
    private final List<Entry> entries = new ArrayList<>();
    private long base;
    private int head;
    private long bytes;
    private BinlogPosition end;
    private volatile boolean closed;
    private Thread filler;

    TailCache(GlobalBinlogWriter writer, long maxBytes) {
        this.writer = writer;
        this.maxBytes = maxBytes;
    }

    synchronized TailCache start() {
        end = writer.durability().current().position();
        BinlogPosition from = end;
        filler = new Thread(() -> fill(from), "dump-tail-cache");
        filler.setDaemon(true);
        filler.start();
        return this;
    }

    private void fill(BinlogPosition from) {
        try (BinlogFileReader reader = BinlogFileReader.at(writer, from)) {
            List<Entry> batch = new ArrayList<>();
            while (!closed) {
                BinlogEvent e = reader.next(batch.isEmpty() ? Duration.ofMillis(500) : Duration.ZERO);
                if (e != null) {
                    String file = reader.position().file();
                    BinlogPosition start = new BinlogPosition(file, e.offset());
                    BinlogPosition next = e.type() == EventType.ROTATE ? rotateTarget(e)
                            : new BinlogPosition(file, e.offset() + e.length());
                    batch.add(new Entry(start, next, e.type(), e.rawBytes()));
                    if (batch.size() < 256) {
                        continue;
                    }
                }
                if (!batch.isEmpty()) {
                    append(batch);
                    batch.clear();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.warn("tail cache stopped; subscribers read the files: {}", e.toString());
            synchronized (this) {
                closed = true;
                notifyAll();
            }
        }
    }

    /** Where a ROTATE sends the reader: its file name and position (the events carry a CRC32). */
    static BinlogPosition rotateTarget(BinlogEvent e) {
        byte[] raw = e.rawBytes();
        int bodyStart = EventHeader.LENGTH;
        long position = java.nio.ByteBuffer.wrap(raw, bodyStart, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
        int nameEnd = raw.length - e.checksumLength();
        return new BinlogPosition(new String(raw, bodyStart + 8, nameEnd - bodyStart - 8, StandardCharsets.UTF_8), position);
    }

    private synchronized void append(List<Entry> batch) {
        for (Entry en : batch) {
            entries.add(en);
            bytes += en.bytes().length;
            end = en.next();
        }
        while (bytes > maxBytes && head < entries.size() - 1) {
            bytes -= entries.get(head).bytes().length;
            entries.set(head, null);
            head++;
        }
        if (head > 4096 && head > entries.size() / 2) {
            entries.subList(0, head).clear();
            base += head;
            head = 0;
        }
        notifyAll();
    }

    /**
     * The cursor of the event that starts at {@code position}, or of the next event to come when
     * {@code position} is the cached end; -1 when the cache does not cover it (or is stopped).
     */
    synchronized long find(BinlogPosition position) {
        if (closed) {
            return -1;
        }
        if (position.equals(end)) {
            return base + entries.size();
        }
        int lo = head;
        int hi = entries.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = entries.get(mid).start().compareTo(position);
            if (c == 0) {
                return base + mid;
            }
            if (c < 0) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return -1;
    }

    /** The event at {@code cursor}, waiting up to {@code timeout} for it; null when none came in time. */
    synchronized Entry get(long cursor, Duration timeout) throws InterruptedException, Evicted {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (cursor < base + head) {
                throw new Evicted(cursor, base + head);
            }
            int i = (int) (cursor - base);
            if (i < entries.size()) {
                return entries.get(i);
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || closed) {
                if (closed) {
                    throw new Evicted(cursor, base + head);
                }
                return null;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    /** Whether it was closed (the server is stopping): subscribers leaving it are not falling behind. */
    boolean isClosed() {
        return closed;
    }

    /** Bytes held. */
    synchronized long bytes() {
        return bytes;
    }

    @Override
    public void close() {
        closed = true;
        if (filler != null) {
            filler.interrupt();
        }
        synchronized (this) {
            notifyAll();
        }
    }
}
