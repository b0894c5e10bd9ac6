package io.tributary.storage.tail;

import io.tributary.core.event.EventHeader;
import io.tributary.core.event.EventType;
import io.tributary.core.event.FormatDescription;
import io.tributary.storage.binlog.BinlogFeed;
import io.tributary.storage.binlog.BinlogPosition;
import io.tributary.storage.binlog.DurabilityTracker;
import io.tributary.storage.binlog.DurableMark;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The newest part of the global binlog in memory, shared by every subscriber near the tail (ARCHITECTURE.md,
 * "Shared tail cache"): one writer, many readers.
 *
 * <p><b>Fed by the writer.</b> The cache is a {@link BinlogFeed} of the {@link GlobalBinlogWriter}: each write the
 * writer hands to the file is copied once, on the writing thread, into a chunk of the cache's own (one array per
 * write, whole events; the writer's buffer is reused at once, so it cannot be kept), and nothing reads back the file
 * just written. Those bytes are <em>staged</em>: no subscriber sees them. When the syncer publishes a durable mark
 * ({@link DurabilityTracker}), the cache's own thread indexes the staged events up to the mark into entries, each a
 * range of its chunk, so only durable events are ever served (invariant 6). A GTID patched after its transaction and
 * a transaction undone after a failed write are applied to the staged bytes, which are never durable before that.
 *
 * <p><b>Bounded.</b> Entries and staged bytes together are kept to {@code maxBytes}: the oldest entries are evicted
 * first (the writer evicts too, but only when it gets the lock at once, so it never waits on subscribers); staged
 * bytes beyond {@code maxBytes} (durability stalled) are dropped oldest first, and the entries then restart after
 * the gap. A chunk stays in memory while an entry holds part of it, so the heap holds at most one write more
 * ({@code GlobalBinlogWriter}'s flush size, about 1 MiB).
 *
 * <p><b>Only while wanted.</b> The cache copies writes only while a subscriber has asked it for something ({@link
 * #find}, {@link #get}, or waits in {@link #get}) within the last {@value #DEMAND_SECONDS} seconds, and it starts
 * without copying: a daemon catching up with nobody subscribed, or whose subscribers all read far behind in the
 * files, does not copy every byte it writes into the heap for no one (a third of what a 1 GB catch-up allocated). The
 * first subscriber to reach the end of the files asks, misses, reads the next writes from the files too and joins at
 * the end of them. A run of writes not copied is staged as one marker, a gap like dropped staged bytes: every cursor
 * handed out goes back to the files, the cached end is unknown ({@link #find} misses there) and the entries restart
 * with the next copied write. Without it, a subscriber asking at the cached end while the files already went on past
 * it was told "the next event to come" and waited for an entry that would not come until the next write.
 *
 * <p><b>Subscribers.</b> A subscriber holds a cursor (a running event index). It joins with {@link #find} when its
 * own file reader reaches a position the cache holds, and goes back to the files when its cursor was evicted (it
 * was too slow, or the entries restarted after a gap): a miss costs no more than having no cache, and a slow
 * subscriber never holds up the writer. Waiting at the end parks the subscriber's thread, outside the lock; a publish
 * unparks every waiter at once, so N woken subscribers run side by side instead of taking a lock one after the other.
 *
 * <p>Thread-safe: the writing thread (feed), the syncer (wakes the cache's thread), the cache's thread (indexes) and
 * any number of subscriber threads.
 */
public final class TailCache implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(TailCache.class);
    private static final Duration IDLE_WAIT = Duration.ofMillis(500);
    /** Events indexed per hold of the staging lock. */
    private static final int EVENTS_PER_STEP = 256;
    /** How long the cache goes on copying writes after the last subscriber asked it for something. */
    public static final int DEMAND_SECONDS = 30;

    /**
     * One cached event: where it starts, where the event after it starts (a ROTATE's target), its type, and its
     * bytes, {@code length} bytes of {@code chunk} from {@code offset} (shared with its neighbours: never written to).
     */
    public record Entry(BinlogPosition start, BinlogPosition next, EventType type, byte[] chunk, int offset, int length) {
        @Override
        public String toString() {
            return "Entry[" + type + " at " + start + ", " + length + " bytes]";
        }
    }

    /** The cursor points at an event that was evicted. */
    public static final class Evicted extends Exception {
        Evicted(long cursor, long first) {
            super("cursor " + cursor + " fell out of the tail cache (oldest kept " + first + ")", null, false, false);
        }
    }

    /** The bytes of one write, staged until durable; the entries made of it point into {@code bytes}. */
    private static final class Chunk {
        final BinlogPosition start;
        final long fileNumber;
        final byte[] bytes;
        int length;
        /** Bytes from the start already made entries. */
        int indexed;
        /**
         * A write at {@code start} was not copied (nobody wanted it): no bytes, but the files go on past what the
         * entries hold, so the entries restart after it and the end they give is unknown until then.
         */
        final boolean skipped;

        Chunk(BinlogPosition start, byte[] bytes) {
            this(start, bytes, false);
        }

        private Chunk(BinlogPosition start, byte[] bytes, boolean skipped) {
            this.start = start;
            this.fileNumber = start.fileNumber();
            this.bytes = bytes;
            this.length = bytes.length;
            this.skipped = skipped;
        }

        static Chunk skippedAt(BinlogPosition start) {
            return new Chunk(start, new byte[0], true);
        }
    }

    private final GlobalBinlogWriter writer;
    private final DurabilityTracker tracker;
    private final long maxBytes;
    private final Feed feed = new Feed();
    private final Consumer<DurableMark> markListener = this::durable;

    /** Guards the staged chunks: the writing thread and the cache's thread. */
    private final Object staging = new Object();
    private final ArrayDeque<Chunk> staged = new ArrayDeque<>();
    private volatile long stagedBytes;
    /**
     * Where the next entry starts (the cache's thread; set once by {@link Feed#attached}); null after a skipped write,
     * until the next copied one.
     */
    private BinlogPosition indexEnd;
    /** A skip marker was staged since the last copied write (under {@link #staging}): one marker per run of skips. */
    private boolean skipMarked;

    /** Guards the entries: the cache's thread, subscribers, and the writer when it gets it at once. */
    private final ReentrantLock lock = new ReentrantLock();
    /**
     * The cursor of the next entry to come ({@code base + entries.size()}), written under {@link #lock} and read without
     * it by waiting subscribers; with {@link #waiters}, a Dekker pair: a publish moves it, then wakes the waiters; a
     * subscriber registers, then reads it, so one of the two sees the other.
     */
    private volatile long published;
    /** Subscriber threads parked in {@link #get} until an entry is added. */
    private final java.util.Set<Thread> waiters = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final List<Entry> entries = new ArrayList<>();
    private long base;
    private int head;
    private volatile long bytes;
    private BinlogPosition end;
    private volatile boolean closed;
    private Thread indexer;
    /** How long after the last request the cache goes on copying writes. */
    private final long demandNanos;
    /** {@link System#nanoTime} when a subscriber last asked the cache for something (starts long enough ago). */
    private volatile long lastDemand;
    /** Writes not copied because no subscriber wanted the cache, and their bytes (the writing thread's). */
    private volatile long skippedWrites;
    private volatile long skippedBytes;

    private TailCache(GlobalBinlogWriter writer, long maxBytes, Duration demandTimeout) {
        this.writer = writer;
        this.tracker = writer.durability();
        this.maxBytes = maxBytes;
        this.demandNanos = demandTimeout.toNanos();
        this.lastDemand = System.nanoTime() - demandNanos - 1;
    }

    /**
     * A cache of at most {@code maxBytes} fed by {@code writer} from the end of what its files hold now; events
     * already written are read from the files.
     */
    public static TailCache attach(GlobalBinlogWriter writer, long maxBytes) {
        return attach(writer, maxBytes, Duration.ofSeconds(DEMAND_SECONDS));
    }

    /**
     * As {@link #attach(GlobalBinlogWriter, long)}, copying writes for {@code demandTimeout} after a subscriber last
     * asked for something instead of {@value #DEMAND_SECONDS} seconds (tests).
     */
    public static TailCache attach(GlobalBinlogWriter writer, long maxBytes, Duration demandTimeout) {
        TailCache c = new TailCache(writer, maxBytes, demandTimeout);
        writer.addFeed(c.feed);
        c.tracker.addListener(c.markListener);
        c.indexer = new Thread(c::run, "binlog-tail-cache");
        c.indexer.setDaemon(true);
        c.indexer.start();
        return c;
    }

    /** The feed the writer calls; a separate object so that its methods are not part of the cache's API. */
    private final class Feed implements BinlogFeed {
        @Override
        public void attached(BinlogPosition at) {
            synchronized (staging) {
                indexEnd = at;
            }
            lock.lock();
            try {
                end = at;
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void appended(String file, long offset, ByteBuffer src) {
            if (closed || !src.hasRemaining()) {
                return;
            }
            if (!wanted()) {
                skippedWrites++;
                skippedBytes += src.remaining();
                synchronized (staging) {
                    // the files now go on past the cached end: a subscriber must not be told the end is the next
                    // event to come (it would wait there for an entry that never comes while the files hold it)
                    if (!skipMarked) {
                        staged.addLast(Chunk.skippedAt(new BinlogPosition(file, offset)));
                        skipMarked = true;
                    }
                }
                return;
            }
            byte[] copy = new byte[src.remaining()];
            src.get(copy);
            Chunk c = new Chunk(new BinlogPosition(file, offset), copy);
            synchronized (staging) {
                skipMarked = false;
                staged.addLast(c);
                long s = stagedBytes + copy.length;
                // durability stalled: drop the oldest staged bytes (the entries restart after the gap), keep the newest
                while (s > maxBytes && staged.size() > 1) {
                    Chunk old = staged.pollFirst();
                    s -= old.length - old.indexed;
                }
                stagedBytes = s;
            }
            if (bytes + stagedBytes > maxBytes && lock.tryLock()) {
                try {
                    evict();
                } finally {
                    lock.unlock();
                }
            }
        }

        @Override
        public void overwritten(String file, long offset, ByteBuffer src) {
            synchronized (staging) {
                for (Chunk c : staged) {
                    long at = offset - c.start.position();
                    if (c.start.file().equals(file) && at >= c.indexed && at + src.remaining() <= c.length) {
                        src.get(c.bytes, (int) at, src.remaining());
                        return;
                    }
                }
            }
        }

        @Override
        public void truncated(String file, long offset) {
            synchronized (staging) {
                long s = stagedBytes;
                while (!staged.isEmpty()) {
                    Chunk c = staged.peekLast();
                    if (!c.start.file().equals(file) || c.start.position() + c.length <= offset) {
                        break;
                    }
                    if (c.skipped) { // the write not copied is undone: the cached end is the files' end again
                        staged.pollLast();
                        skipMarked = false;
                        continue;
                    }
                    int keep = (int) Math.max(c.indexed, offset - c.start.position());
                    s -= c.length - keep;
                    c.length = keep;
                    if (keep > 0) {
                        break;
                    }
                    staged.pollLast();
                }
                stagedBytes = s;
            }
        }
    }

    /** Whether a subscriber asked for something lately, or waits for an entry now. */
    private boolean wanted() {
        return !waiters.isEmpty() || System.nanoTime() - lastDemand <= demandNanos;
    }

    /** Notes that a subscriber asked the cache for something. */
    private void demand() {
        long now = System.nanoTime();
        if (now - lastDemand > 1_000_000L) { // a volatile write at most once a millisecond
            lastDemand = now;
        }
    }

    /** Writes not copied because no subscriber wanted the cache then (the writes went to the files only). */
    public long skippedWrites() {
        return skippedWrites;
    }

    /** The bytes of {@link #skippedWrites}. */
    public long skippedBytes() {
        return skippedBytes;
    }

    /** On the syncer's thread: wakes the cache's thread, which does the work. */
    private void durable(DurableMark mark) {
        Thread t = indexer;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    private void run() {
        try {
            while (!closed) {
                if (!index(tracker.current().position())) {
                    LockSupport.parkNanos(this, IDLE_WAIT.toNanos());
                }
            }
        } catch (RuntimeException | Error e) {
            LOG.warn("tail cache stopped; subscribers read the files: {}", e.toString());
            close();
        }
    }

    /** Makes entries of the staged events that end at or before {@code durable}; false when there were none. */
    private boolean index(BinlogPosition durable) {
        List<Entry> fresh = new ArrayList<>(EVENTS_PER_STEP);
        boolean any = false;
        boolean more = true;
        while (more && !closed) {
            // a few events at a time, so that a write waits for the staging lock no longer than that
            boolean gap = false;
            BinlogPosition at;
            fresh.clear();
            synchronized (staging) {
                at = indexEnd;
                long durableFile = durable.fileNumber();
                long s = stagedBytes;
                int budget = EVENTS_PER_STEP;
                Chunk c;
                chunks:
                while ((c = staged.peekFirst()) != null) {
                    if (c.skipped) {
                        // a write not copied (it needs no durable mark): every cursor handed out goes back to the
                        // files, which hold it, and the end is unknown until the next copied write restarts the entries
                        gap = true;
                        fresh.clear();
                        at = null;
                        staged.pollFirst();
                        continue;
                    }
                    if (c.indexed == 0 && !c.start.equals(at)) {
                        // staged bytes were dropped before this chunk: the entries restart with it
                        gap = true;
                        fresh.clear();
                        at = c.start;
                    }
                    while (c.indexed < c.length) {
                        int off = c.indexed;
                        int length = (int) readUInt32(c.bytes, off + 9);
                        long fileOffset = c.start.position() + off;
                        if (c.fileNumber > durableFile
                                || c.fileNumber == durableFile && fileOffset + length > durable.position()) {
                            more = false;
                            break chunks;
                        }
                        if (budget-- == 0) {
                            break chunks;
                        }
                        if (length < EventHeader.LENGTH || off + length > c.length) {
                            throw new IllegalStateException("staged bytes of " + c.start + " hold no whole event at "
                                    + fileOffset);
                        }
                        EventType type = EventType.ofCode(c.bytes[off + 4] & 0xff);
                        BinlogPosition next = type == EventType.ROTATE
                                ? BinlogPosition.afterRotate(c.bytes, off, length, FormatDescription.CHECKSUM_LENGTH)
                                : new BinlogPosition(c.start.file(), fileOffset + length);
                        fresh.add(new Entry(at, next, type, c.bytes, off, length));
                        at = next;
                        c.indexed += length;
                        s -= length;
                    }
                    staged.pollFirst();
                }
                if (c == null) {
                    more = false;
                }
                stagedBytes = s;
                indexEnd = at;
            }
            if (!fresh.isEmpty() || gap) {
                publish(fresh, gap, at);
                any = true;
            }
        }
        return any;
    }

    /** Appends {@code fresh} (after dropping every entry when {@code gap}), evicts, wakes the subscribers. */
    private void publish(List<Entry> fresh, boolean gap, BinlogPosition at) {
        lock.lock();
        try {
            if (gap) { // every cursor handed out so far is now below base: those subscribers go back to the files
                base += entries.size() + 1;
                entries.clear();
                head = 0;
                bytes = 0;
            }
            long b = bytes;
            for (Entry e : fresh) {
                entries.add(e);
                b += e.length();
            }
            bytes = b;
            end = at;
            evict();
            published = base + entries.size();
        } finally {
            lock.unlock();
        }
        wakeWaiters();
    }

    /** Evicts the oldest entries beyond the limit (keeping the newest one); with {@link #lock} held. */
    private void evict() {
        long b = bytes;
        long limit = maxBytes - stagedBytes;
        while (b > limit && head < entries.size() - 1) {
            b -= entries.get(head).length();
            entries.set(head, null);
            head++;
        }
        bytes = b;
        if (head > 4096 && head > entries.size() / 2) {
            entries.subList(0, head).clear();
            base += head;
            head = 0;
        }
    }

    private static long readUInt32(byte[] b, int i) {
        return (b[i] & 0xffL) | (b[i + 1] & 0xffL) << 8 | (b[i + 2] & 0xffL) << 16 | (b[i + 3] & 0xffL) << 24;
    }

    /**
     * The cursor of the event that starts at {@code position}, or of the next event to come when
     * {@code position} is the cached end; -1 when the cache does not cover it (or is stopped).
     */
    public long find(BinlogPosition position) {
        demand();
        lock.lock();
        try {
            if (closed || end == null) {
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
        } finally {
            lock.unlock();
        }
    }

    /** The event at {@code cursor}, waiting up to {@code timeout} for it; null when none came in time. */
    public Entry get(long cursor, Duration timeout) throws InterruptedException, Evicted {
        List<Entry> one = new ArrayList<>(1);
        return get(cursor, 1, timeout, one) == 0 ? null : one.get(0);
    }

    /**
     * The events from {@code cursor} on, added to {@code out} under one acquisition of the lock, as many as there are
     * until their bytes reach {@code maxBytes}, waiting up to {@code timeout} for the first.
     *
     * @return how many were added; 0 when none came in time
     */
    public int get(long cursor, long maxBytes, Duration timeout, List<Entry> out) throws InterruptedException, Evicted {
        demand();
        long deadline = System.nanoTime() + timeout.toNanos();
        Thread me = Thread.currentThread();
        while (true) {
            if (published > cursor || closed) { // else nothing to take (and not evicted: base + head <= published)
                int n = take(cursor, maxBytes, out);
                if (n > 0) {
                    return n;
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return 0;
            }
            // wait outside the lock: a publish unparks every waiter at once, and none has to get the lock back
            // before it runs (with a condition, N woken subscribers took the lock one after the other)
            waiters.add(me);
            try {
                if (published <= cursor && !closed) {
                    LockSupport.parkNanos(this, left);
                }
            } finally {
                waiters.remove(me);
            }
            if (Thread.interrupted()) {
                throw new InterruptedException("waiting for tail cache entry " + cursor);
            }
        }
    }

    /** The entries from {@code cursor} on, as {@link #get} but without waiting: 0 when there is none yet. */
    private int take(long cursor, long maxBytes, List<Entry> out) throws Evicted {
        lock.lock();
        try {
            if (cursor < base + head) {
                throw new Evicted(cursor, base + head);
            }
            long i = cursor - base;
            int n = 0;
            long bytes = 0;
            for (int k = (int) i; k < entries.size() && bytes < maxBytes; k++, n++) {
                Entry e = entries.get(k);
                out.add(e);
                bytes += e.length();
            }
            if (n == 0 && closed) {
                throw new Evicted(cursor, base + head);
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    /** Wakes every subscriber waiting in {@link #get}; after {@link #published} moved (or on close). */
    private void wakeWaiters() {
        for (Thread t : waiters) {
            LockSupport.unpark(t);
        }
    }

    /** Whether it was closed (the server is stopping): subscribers leaving it are not falling behind. */
    public boolean isClosed() {
        return closed;
    }

    /** Bytes held by entries (staged bytes not counted). */
    public long bytes() {
        return bytes;
    }

    /** Stops the feed and the cache's thread; subscribers waiting in {@link #get} leave for the files. */
    @Override
    public void close() {
        closed = true;
        writer.removeFeed(feed);
        tracker.removeListener(markListener);
        Thread t = indexer;
        if (t != null) {
            LockSupport.unpark(t);
        }
        wakeWaiters();
        synchronized (staging) {
            staged.clear();
            stagedBytes = 0;
        }
    }
}
