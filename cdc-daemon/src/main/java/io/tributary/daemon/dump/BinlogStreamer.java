package io.tributary.daemon.dump;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventEncoder;
import io.tributary.core.event.EventHeader;
import io.tributary.core.event.EventType;
import io.tributary.core.event.FormatDescription;
import io.tributary.core.packet.EofPacket;
import io.tributary.core.packet.EventPacketGather;
import io.tributary.core.packet.FramedPackets;
import io.tributary.core.packet.MySqlError;
import io.tributary.core.packet.MySqlMessage;
import io.tributary.core.packet.MySqlPacket;
import io.tributary.core.packet.MySqlProtocol;
import io.tributary.core.position.MySqlGtidSet;
import io.tributary.storage.binlog.BinlogFileReader;
import io.tributary.storage.binlog.BinlogIndex;
import io.tributary.storage.binlog.BinlogPosition;
import io.tributary.storage.binlog.DurableMark;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.storage.binlog.ChecksumPolicy;
import io.tributary.storage.tail.TailCache;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.zip.CRC32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the global binlog to one subscriber, on its own thread: a fake ROTATE naming
 * the start file and position, the file's FORMAT_DESCRIPTION, then every durable event from the
 * {@link BinlogFileReader}, each as a packet {@code 0x00 + event bytes}. At the end it blocks on the writer's
 * durability notification (no polling), sends a HEARTBEAT when idle for the negotiated period, or, in
 * non-blocking mode, an EOF packet and stops.
 *
 * <p>Where the events come from: the subscriber's own file reader until it reaches what the shared
 * {@link TailCache} holds (for a GTID subscriber: once past the last transaction of its set), then the cache,
 * with no file read; if it falls out of the cache (too slow) it continues from the files at its position. Once at
 * the cache's end with nothing pending, it lends the subscriber to the server's {@link TailFanOut}, which sends what
 * the cache publishes next to every such subscriber from one thread, and sleeps until the fan-out hands it back, a
 * heartbeat is due or the connection closes.
 *
 * <p>Back-pressure: it writes only while the channel's outbound buffer plus the batches handed to the event loop
 * are below the high water mark and otherwise waits, so a slow subscriber holds at most the water mark plus one
 * batch (64 KB and one event) in memory and
 * never slows the writer or another subscriber. A position or GTID set that was purged gets error 1236 with a
 * message saying what exists; one this daemon has not written yet waits up to {@code dump.aheadWait} for it (a
 * subscriber that moved to a twin a little behind), then gets 1236 saying how far behind the daemon is.
 *
 * <p>Reading the files while durable events are there, the work moves to the channel's event loop ({@link
 * #pumpFiles}): it reads a batch, writes it and reads the next while the channel is writable, as a server's binlog
 * sender thread does, instead of handing every batch from this thread to the loop and waiting to be woken (on 2
 * cores the subscriber, this thread and the loop were three busy threads, and the hand-offs cost more CPU than the
 * reading). Reads come from the page cache, a batch at a time, and the loop moves on to its other channels every
 * {@value #PUMP_BATCHES} batches; 256 KB whose reads take over 2 ms (from the disk) hand the reading back to this
 * thread for a while, so the loop's other subscribers never wait on the disk. This thread waits meanwhile, and
 * takes over again at the durable end (waits, heartbeats, the cache).
 *
 * <p>Thread-safety: {@link #run()} on one thread, which hands its state to the event loop while a pump runs and
 * waits for it to end (the task queue and the pump's future order the accesses), and whose position fields belong
 * to the fan-out's thread while the subscriber is lent (handed over and back through {@code lendState});
 * {@link #writabilityChanged()} from the event loop;
 * {@link #sentPosition()} and {@link #sentSequence()} from any thread (volatile, written once per batch handed to the
 * event loop, not per event).
 */
final class BinlogStreamer implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(BinlogStreamer.class);
    private static final Duration MAX_WAIT = Duration.ofMillis(500);
    /**
     * How long a lent subscriber's thread sleeps at most when no heartbeat is due: a safety net only (a closed
     * connection interrupts it, the fan-out hands it back when it needs it). Not {@link #MAX_WAIT}: N lent threads
     * waking together twice a second took publishes back from the fan-out in bursts.
     */
    private static final Duration LENT_WAIT = Duration.ofSeconds(10);
    private static final int FLUSH_BYTES = 64 * 1024;
    private static final int JOIN_CHECK_EVENTS = 16;
    /**
     * A write the channel refused (the encoder's sequence check, a closed socket) ends the connection with the reason
     * logged: the subscriber must not wait forever for bytes that were dropped.
     */
    static final io.netty.channel.ChannelFutureListener WRITE_FAILED = f -> {
        if (!f.isSuccess() && f.channel().isActive()) {
            f.channel().pipeline().fireExceptionCaught(f.cause());
        }
    };
    /** Batches one pump step sends (2 MB) before the event loop serves its other channels. */
    private static final int PUMP_BATCHES = 64;
    /**
     * {@value #SLOW_CHECK_BATCHES} pump batches (256 KB) whose file reads took longer than this (read from the disk,
     * not the page cache) hand the reading back to the thread. The reads' time, not the batches': on 2 cores shared
     * with 32 busy clients an event loop is often kept off the CPU for milliseconds, and counting that as a slow disk
     * sent every subscriber to its own thread, whose hand-offs cost a quarter more CPU per GB served
     * (docs/benchmarks.md, serving, sixth part).
     */
    private static final long PUMP_SLOW_NANOS = 2_000_000;
    private static final int SLOW_CHECK_BATCHES = 8;
    /**
     * Slow windows in a row that mean the disk: every read from the disk is slow, while a read from the page cache is
     * slow only when the thread happened to lose the CPU in it (one read in a hundred with 32 busy clients on 2
     * cores, each then sending 16 MB through the thread).
     */
    private static final int SLOW_WINDOWS = 2;
    /** Batches the thread then sends itself (16 MB) before the event loop tries again. */
    private static final int THREAD_BATCHES_AFTER_SLOW = 512;
    /**
     * Bytes of events read from the files and framed into one buffer, one write, at a time. 32 KB, not more: a client
     * reading one stream takes it faster in writes of tens of KB than in large ones (on 2 cores the server's copy and
     * the client's read then overlap; MariaDB's dump thread writes its 16 KB net buffer at a time). Measured with
     * {@code DumpServingBenchmark}: one {@code mariadb-binlog} got 2020 MB/s in 32 KB batches against 1861 in 256 KB
     * ones, a replay server 2045 in 16 KB writes against 1555 in writes as large as the kernel takes; 8 and 32
     * readers did not lose by it (docs/benchmarks.md, serving, third part).
     */
    private static final int FILE_BATCH = 32 * 1024;
    /** Where an event starts in its packet: after the 4-byte header and the 0x00 status byte. */
    private static final int EVENT_IN_PACKET = MySqlProtocol.PACKET_HEADER_BYTES + 1;

    private final Channel channel;
    private final GlobalBinlogWriter writer;
    private final DumpRequest request;
    private final BinlogEventEncoder artificial;
    private final Object writable = new Object();
    private final java.util.concurrent.atomic.AtomicLong inFlightBytes = new java.util.concurrent.atomic.AtomicLong();
    private final TailCache cache;
    /**
     * Set when the dump ended for a reason of its own (the EOF of a non-blocking dump, a refusal, an error sent to
     * the subscriber) rather than the connection closing: the connection's end is then not the subscriber leaving
     * mid-stream. A flag, not the run's future: the run also ends, on this thread, as soon as it sees the channel
     * closed, which can come before the event loop tells the handler.
     */
    private volatile boolean endedOnItsOwn;
    /** Serves this subscriber while it is lent (see {@link #lend}); null when there is none. */
    private final TailFanOut fanOut;
    /** Who owns the position fields: this thread ({@code OWN}) or, while lent, the fan-out. */
    private final java.util.concurrent.atomic.AtomicInteger lendState = new java.util.concurrent.atomic.AtomicInteger();
    private static final int OWN = 0;
    private static final int LENT = 1;
    private static final int CLAIMED = 2;
    private static final int HANDED_BACK = 3;
    /** The cursor while lent (the fan-out groups subscribers by it before claiming one). */
    private volatile long lentAt;
    private volatile Thread runner;
    /** When something was last handed to the connection (by this thread or, while lent, the fan-out). */
    private long lastSent;
    private final LongAdder fromFiles;
    private final LongAdder fromCache;
    private int sequenceId;
    private long unflushed;
    /** Packets ({@link MySqlPacket}, {@link FramedPackets}) queued for the next hand-off to the event loop. */
    private List<Object> pending = new ArrayList<>();
    /** Set while the event loop reads the files for this subscriber ({@link #pumpFiles}). */
    private volatile java.util.concurrent.CompletableFuture<Void> pump;
    /** Whether a {@link #pumpStep} is running (event loop only): a writability change inside it does not start another. */
    private boolean inPumpStep;
    /** Batches this thread sends itself before the next pump (after a slow pump batch). */
    private int threadBatchesLeft;
    /** Batches sent from the files, by this subscriber: what a pump moved. */
    private long fromFilesHere;
    /** Batches sent by the pump since the last look for the cache. */
    private int pumpSinceJoinCheck;
    /** Windows of {@value #SLOW_CHECK_BATCHES} pump batches in a row whose reads were slow (the event loop's). */
    private int slowWindows;
    /** The batch {@link #frame} adds to while the files are read. */
    private EventPacketGather gather;
    private final List<TailCache.Entry> cached = new ArrayList<>();
    private BinlogFileReader reader;
    private long cursor = -1;
    private BinlogPosition position;
    private boolean afterRotate;
    private long mustPassSequence;
    private long lastSequence;
    /** {@code dump.aheadWait}: how long a start this daemon has not written yet waits for it. */
    private final Duration aheadWait;
    /** {@code dump.checksums}: when the events read from the files have their CRC32 checked. */
    private final ChecksumPolicy checksums;
    /** What was handed to the connection, published once per batch for the status page (never read here). */
    private volatile BinlogPosition sentPosition;
    private volatile long sentSequence;

    BinlogStreamer(Channel channel, GlobalBinlogWriter writer, DumpRequest request, int firstSequenceId, TailCache cache,
                   TailFanOut fanOut, LongAdder fromFiles, LongAdder fromCache, Duration aheadWait,
                   ChecksumPolicy checksums) {
        this.fanOut = fanOut;
        this.checksums = checksums;
        this.aheadWait = aheadWait;
        this.channel = channel;
        this.writer = writer;
        this.request = request;
        this.sequenceId = firstSequenceId;
        this.cache = cache;
        this.fromFiles = fromFiles;
        this.fromCache = fromCache;
        this.artificial = new BinlogEventEncoder(writer.flavor(), writer.config().serverId());
    }

    DumpRequest request() {
        return request;
    }

    /** The position up to which events were handed to the connection; null until the start was found. */
    BinlogPosition sentPosition() {
        return sentPosition;
    }

    /** The GTID sequence of the last transaction started in what was handed over; 0 before the first. */
    long sentSequence() {
        return sentSequence;
    }

    /** Wakes the streamer when the channel's outbound buffer drained. */
    void writabilityChanged() {
        java.util.concurrent.CompletableFuture<Void> p = pump;
        if (p != null && !p.isDone() && channel.eventLoop().inEventLoop()) {
            if (!channel.isActive()) {
                p.complete(null);
            } else if (channel.isWritable()) {
                pumpStep();
            }
        }
        synchronized (writable) {
            writable.notifyAll();
        }
    }

    @Override
    public void run() {
        runner = Thread.currentThread();
        String opened = null;
        try {
            reader = open();
            opened = reader.position().toString();
            BinlogPosition start = reader.position();
            position = start;
            sentPosition = start;
            sendArtificial(buf -> artificial.fakeRotate(buf, start.file(), start.position()));
            if (start.position() > 4 && reader.formatDescriptionEvent() != null) {
                sendFormatDescriptionAgain(reader.formatDescriptionEvent());
            }
            stream();
        } catch (DumpRefused e) {
            endedOnItsOwn = true;
            LOG.info("dump refused for {} ({}): {}", channel.remoteAddress(), request, e.getMessage());
            sendError(e.getMessage());
        } catch (InterruptedException | java.nio.channels.ClosedByInterruptException e) {
            Thread.currentThread().interrupt(); // the connection ended or the server is closing
        } catch (Exception e) {
            if (channel.isActive()) {
                endedOnItsOwn = true;
                LOG.warn("dump to {} stopped at {}: {}", channel.remoteAddress(), opened, e.toString());
                sendError("Tributary could not read the global binlog: " + e.getMessage());
            }
        } catch (Error e) { // the executor's future would swallow it: the subscriber would wait forever, unanswered
            endedOnItsOwn = true;
            LOG.error("dump to {} failed at {}", channel.remoteAddress(), opened, e);
            channel.close();
            throw e;
        } finally {
            closeReader();
            releasePending();
        }
    }

    /** Releases what was queued but never handed to the event loop (the streamer stops: the connection ended). */
    private void releasePending() {
        for (Object p : pending) {
            if (p instanceof MySqlPacket m) {
                m.release();
            } else if (p instanceof FramedPackets f) {
                f.bytes().release();
            }
        }
        pending.clear();
        unflushed = 0;
    }

    private void closeReader() {
        if (reader != null) {
            try {
                reader.close();
            } catch (IOException e) {
                LOG.debug("closing a subscriber's reader: {}", e.toString());
            }
            reader = null;
        }
    }

    private void stream() throws IOException, InterruptedException {
        long heartbeatNanos = request.heartbeatPeriod().toNanos();
        lastSent = System.nanoTime();
        long sinceJoinCheck = 0;
        while (channel.isActive() && !Thread.currentThread().isInterrupted()) {
            awaitWritable();
            if (cursor < 0 && threadBatchesLeft == 0 && pumpFiles()) {
                lastSent = System.nanoTime();
                continue;
            }
            if (sendNext(Duration.ZERO)) {
                lastSent = System.nanoTime();
                threadBatchesLeft = Math.max(0, threadBatchesLeft - 1);
                // a subscriber reading the files behind a fast writer may never reach the end: look for the cache now and then
                if (cursor < 0 && ++sinceJoinCheck >= JOIN_CHECK_EVENTS) {
                    sinceJoinCheck = 0;
                    tryJoinCache();
                }
                continue;
            }
            if (tryJoinCache()) {
                continue;
            }
            flush();
            if (request.nonBlocking()) {
                endedOnItsOwn = true;
                send(new EofPacket(0, MySqlProtocol.SERVER_STATUS_AUTOCOMMIT));
                flush();
                return;
            }
            long untilHeartbeat = heartbeatNanos > 0 ? heartbeatNanos - (System.nanoTime() - lastSent) : Long.MAX_VALUE;
            if (untilHeartbeat <= 0) {
                BinlogPosition at = currentPosition();
                sendArtificial(buf -> artificial.heartbeat(buf, at.file(), at.position()));
                flush();
                lastSent = System.nanoTime();
                continue;
            }
            long wait = Math.min(untilHeartbeat, MAX_WAIT.toNanos());
            boolean lent = cursor >= 0 && fanOut != null && fanOut.cache() == cache && pending.isEmpty()
                    && lend(System.nanoTime() + Math.min(untilHeartbeat, LENT_WAIT.toNanos()));
            if (!lent && sendNext(Duration.ofNanos(wait))) {
                lastSent = System.nanoTime();
            }
        }
    }

    /**
     * At the end of the cache with nothing pending: lends this subscriber to the {@link TailFanOut}, which sends what
     * the cache publishes next to every waiting subscriber from one thread, and sleeps until {@code deadline} (a
     * heartbeat, or {@link #LENT_WAIT}), until the connection closes (its thread is interrupted) or until the fan-out
     * hands it back (not writable, out of the cache, closing).
     * The position fields belong to the fan-out from the lend until this thread takes them back (a compare-and-set on
     * {@link #lendState}, or the hand-back). False when the fan-out has stopped: this thread waits on the cache itself.
     */
    private boolean lend(long deadline) {
        lentAt = cursor;
        lendState.set(LENT);
        if (!fanOut.lend(this)) {
            lendState.set(OWN);
            return false;
        }
        while (lendState.get() != HANDED_BACK) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !channel.isActive() || Thread.currentThread().isInterrupted()) {
                if (lendState.compareAndSet(LENT, OWN)) {
                    fanOut.returned(this);
                    return true;
                }
                if (lendState.get() == CLAIMED) {
                    LockSupport.parkNanos(this, 20_000); // the fan-out is queueing a write for it: a moment
                }
                continue;
            }
            LockSupport.parkNanos(this, left);
        }
        lendState.set(OWN);
        return true;
    }

    /** The fan-out: the cursor it was lent at (read before claiming, to group subscribers). */
    long lentCursor() {
        return lentAt;
    }

    /** The fan-out: takes a lent subscriber for one delivery; false when its streamer took it back. */
    boolean claim() {
        return lendState.compareAndSet(LENT, CLAIMED);
    }

    /** The fan-out, after a claim: the subscriber stays lent. */
    void release() {
        lendState.set(LENT);
    }

    /** The fan-out, after a claim: gives the subscriber back to its streamer and wakes it. */
    void handBack() {
        lendState.set(HANDED_BACK);
        Thread t = runner;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** The fan-out, after a claim: its packet sequence id. */
    int lentSequenceId() {
        return sequenceId;
    }

    /** The fan-out, after a claim: whether the connection is open and below its high water mark. */
    boolean canTakeMore() {
        return channel.isActive() && canWrite();
    }

    Channel channel() {
        return channel;
    }

    io.netty.channel.EventLoop eventLoop() {
        return channel.eventLoop();
    }

    /**
     * The fan-out, after a claim: it queued {@code events} cache entries ({@code bytes} framed) for this subscriber,
     * ending at {@code next}, with packet sequence ids up to {@code nextSequenceId}; {@code lastGtid} is the last GTID
     * sequence among them, or -1.
     */
    void sentByFanOut(int events, BinlogPosition next, int nextSequenceId, long lastGtid, int bytes, long now) {
        cursor += events;
        lentAt = cursor;
        position = next;
        afterRotate = false;
        sequenceId = nextSequenceId;
        if (lastGtid >= 0) {
            lastSequence = lastGtid;
        }
        fromCache.add(events);
        inFlightBytes.addAndGet(bytes);
        lastSent = now;
        sentPosition = next;
        sentSequence = lastSequence;
    }

    /** On the event loop: {@code bytes} the fan-out queued were written into the channel. */
    void written(int bytes) {
        inFlightBytes.addAndGet(-bytes);
        writabilityChanged();
    }

    /**
     * Where a GTID event's sequence number (8 bytes, little-endian) starts, counted from the event's start: after the
     * header and, in MySQL's, the flags byte and the source UUID; -1 for any other event.
     */
    static int sequenceOffset(int typeCode) {
        if (typeCode == EventType.GTID.code()) {
            return EventHeader.LENGTH + 1 + 16;
        }
        return typeCode == EventType.MARIA_GTID.code() ? EventHeader.LENGTH : -1;
    }

    /** The GTID sequence number of an event starting at {@code offset} in {@code raw}; -1 if it is no GTID event. */
    static long sequenceOf(EventType type, byte[] raw, int offset) {
        int at = sequenceOffset(type.code());
        return at < 0 ? -1 : readLong(raw, offset + at);
    }

    /** Sends the next events, from the tail cache or the files, waiting up to {@code timeout}; false if none. */
    private boolean sendNext(Duration timeout) throws IOException, InterruptedException {
        if (cursor >= 0) {
            try {
                return sendFromCache(timeout);
            } catch (TailCache.Evicted ev) {
                if (!cache.isClosed()) { // closed: the server is stopping, nothing to report
                    LOG.info("subscriber {} fell behind the tail cache at {}; continuing from the files",
                            channel.remoteAddress(), position);
                }
                cursor = -1;
                reader = BinlogFileReader.at(writer, position, checksums);
                afterRotate = false;
            }
        }
        return sendFromFiles(timeout);
    }

    /**
     * Sends the events the shared tail cache holds from the cursor on, up to {@value #FILE_BATCH} bytes of them taken
     * under one lock, waiting up to {@code timeout} for the first, framed into one buffer; false if none.
     */
    private boolean sendFromCache(Duration timeout) throws InterruptedException, TailCache.Evicted {
        cached.clear();
        int n = cache.get(cursor, FILE_BATCH, timeout, cached);
        if (n == 0) {
            return false;
        }
        int bytes = 0;
        for (TailCache.Entry en : cached) {
            bytes += en.length() + EVENT_IN_PACKET;
        }
        ByteBuf out = channel.alloc().ioBuffer(bytes);
        int first = sequenceId;
        for (TailCache.Entry en : cached) {
            sequenceId = FramedPackets.append(out, sequenceId, (byte) 0, en.chunk(), en.offset(), en.length());
            noteSequence(en.type(), en.chunk(), en.offset());
        }
        cursor += n;
        position = cached.get(n - 1).next();
        afterRotate = false;
        fromCache.add(n);
        cached.clear();
        queue(new FramedPackets(out, first, sequenceId), out.readableBytes());
        return true;
    }

    /**
     * Sends the next durable events from the files, up to {@value #FILE_BATCH} bytes of them, waiting up to
     * {@code timeout} for the first: gathered as packets around slices of the direct buffers the file was read into
     * ({@link EventPacketGather}: no copy of an event's bytes in this process, no object per event); false if none.
     */
    private boolean sendFromFiles(Duration timeout) throws IOException, InterruptedException {
        EventPacketGather g = new EventPacketGather(channel.alloc(), sequenceId);
        gather = g;
        try {
            reader.nextEvents(this::frame, FILE_BATCH, timeout);
        } catch (IOException | RuntimeException e) {
            if (channel.isActive() && !(e instanceof java.nio.channels.ClosedByInterruptException)) {
                send(g); // the events before a damaged one are good: the subscriber gets them, then the error
            } else {
                g.discard(); // the connection ended
            }
            throw e;
        } catch (InterruptedException e) {
            g.discard();
            throw e;
        } finally {
            gather = null;
        }
        return send(g);
    }

    /** Queues what {@code g} gathered; false if it holds nothing. */
    private boolean send(EventPacketGather g) {
        int events = g.events();
        FramedPackets packets = g.finish();
        if (packets == null) {
            return false;
        }
        sequenceId = packets.nextSequenceId();
        fromFiles.add(events);
        fromFilesHere++;
        queue(packets, packets.bytes().readableBytes());
        return true;
    }

    /** Adds one event read from the files, as the packet {@code 0x00 + event}, to {@link #gather}. */
    private void frame(int type, ByteBuf b, int at, int size) {
        afterRotate = type == EventType.ROTATE.code();
        if (afterRotate) {
            byte[] rotate = new byte[size];
            b.getBytes(at, rotate);
            position = BinlogPosition.afterRotate(rotate, 0, size, reader.formatDescriptionEvent().checksumLength());
        } else {
            int sequenceAt = sequenceOffset(type);
            if (sequenceAt >= 0) {
                lastSequence = b.getLongLE(at + sequenceAt);
            }
        }
        if (type == EventType.FORMAT_DESCRIPTION.code()) {
            // as a server's binlog sender does: the subscriber is not reading a file in use by it. The writer
            // computes the format description's CRC with the flag clear, so clearing it keeps the CRC valid.
            int start = gather.addCopy(b, at, size);
            ByteBuf copy = gather.scratch();
            int flags = copy.getUnsignedShortLE(start + 17);
            copy.setShortLE(start + 17, flags & ~EventHeader.LOG_EVENT_BINLOG_IN_USE_F);
        } else {
            gather.add(b, at, size);
        }
    }

    /**
     * Has the channel's event loop read and send the files' durable events for as long as there are any now and the
     * subscriber is there ({@link #pumpStep}), and waits until it stops: at the durable end, on joining the cache, or
     * on an error, which is thrown here.
     *
     * @return whether anything was sent
     */
    private boolean pumpFiles() throws IOException, InterruptedException {
        flush(); // what this thread queued goes first: the loop runs its tasks in order
        long before = fromFilesHere;
        java.util.concurrent.CompletableFuture<Void> done = new java.util.concurrent.CompletableFuture<>();
        try {
            channel.eventLoop().execute(() -> {
                // set here, after the batches this thread handed over earlier were written: a writability change
                // while they are being written must not start a step that overtakes them
                pump = done;
                pumpStep();
            });
            done.get();
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return false; // the server is shutting down
        } catch (InterruptedException e) {
            stopPump(done);
            throw e;
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            throw new IOException(cause);
        } finally {
            pump = null;
        }
        return fromFilesHere != before;
    }

    /**
     * Stops a pump this thread no longer waits for (the connection ended), and waits until the event loop has taken
     * notice, so the reader is not closed under a running step.
     */
    private void stopPump(java.util.concurrent.CompletableFuture<Void> done) {
        java.util.concurrent.CompletableFuture<Void> stopped = new java.util.concurrent.CompletableFuture<>();
        try {
            channel.eventLoop().execute(() -> {
                done.complete(null);
                stopped.complete(null);
            });
            stopped.get(10, java.util.concurrent.TimeUnit.SECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // the loop is gone: nothing runs a step any more
        } catch (InterruptedException | java.util.concurrent.ExecutionException
                 | java.util.concurrent.TimeoutException e) {
            LOG.debug("stopping a subscriber's file pump: {}", e.toString());
        }
    }

    /**
     * On the event loop: sends batches from the files while the channel is writable, up to {@value #PUMP_BATCHES}
     * before letting the loop's other channels run; ends the pump when no durable event is left or the cache can
     * take over. A step that stops because the channel is full is resumed by {@link #writabilityChanged()}.
     */
    private void pumpStep() {
        java.util.concurrent.CompletableFuture<Void> done = pump;
        if (done == null || done.isDone() || inPumpStep) {
            return;
        }
        inPumpStep = true;
        try {
            long started = 0;
            for (int i = 0; i < PUMP_BATCHES; i++) {
                if (!channel.isActive()) {
                    done.complete(null);
                    return;
                }
                if (!channel.isWritable()) {
                    return; // writabilityChanged() resumes
                }
                if (i % SLOW_CHECK_BATCHES == 0) {
                    started = reader == null ? 0 : reader.readNanos();
                }
                if (!sendFromFiles(Duration.ZERO)) {
                    flush();
                    done.complete(null);
                    return;
                }
                flush();
                if (i % SLOW_CHECK_BATCHES == SLOW_CHECK_BATCHES - 1 && reader != null) {
                    slowWindows = reader.readNanos() - started > PUMP_SLOW_NANOS ? slowWindows + 1 : 0;
                    if (slowWindows >= SLOW_WINDOWS) {
                        // not from the page cache: the loop's other channels must not wait on the disk, so this
                        // subscriber's thread reads the next batches itself
                        slowWindows = 0;
                        threadBatchesLeft = THREAD_BATCHES_AFTER_SLOW;
                        done.complete(null);
                        return;
                    }
                }
                if (++pumpSinceJoinCheck >= JOIN_CHECK_EVENTS) {
                    pumpSinceJoinCheck = 0;
                    if (tryJoinCache()) {
                        done.complete(null);
                        return;
                    }
                }
            }
            channel.eventLoop().execute(this::pumpStep);
        } catch (Throwable e) {
            done.completeExceptionally(e);
        } finally {
            inPumpStep = false;
        }
    }

    /** At the end of what the files gave: switch to the shared cache when it holds the next event. */
    private boolean tryJoinCache() throws IOException {
        if (cursor >= 0 || cache == null || lastSequence < mustPassSequence) {
            return false;
        }
        BinlogPosition at = afterRotate ? position : reader.position();
        long c = cache.find(at);
        if (c < 0) {
            return false;
        }
        closeReader();
        position = at;
        cursor = c;
        return true;
    }

    private BinlogPosition currentPosition() {
        return cursor >= 0 || afterRotate || reader == null ? position : reader.position();
    }

    /**
     * Tracks the GTID sequence streamed, so a GTID subscriber joins the cache only past its own set; the event starts
     * at {@code offset} in {@code raw}.
     */
    private void noteSequence(EventType type, byte[] raw, int offset) {
        long sequence = sequenceOf(type, raw, offset);
        if (sequence >= 0) {
            lastSequence = sequence;
        }
    }

    private static long readLong(byte[] b, int i) {
        long v = 0;
        for (int k = 7; k >= 0; k--) {
            v = v << 8 | (b[i + k] & 0xffL);
        }
        return v;
    }

    private BinlogFileReader open() throws IOException, InterruptedException {
        DurableMark mark = writer.durability().current();
        if (request.start() != null) {
            BinlogPosition start = request.start();
            if (start.compareTo(mark.position()) > 0
                    && (isAfterLastFile(start) || writer.index().find(start.file()).isPresent())) {
                mark = awaitWritten("position " + start, m -> m.position().compareTo(start) >= 0);
            }
            if (writer.index().find(start.file()).isEmpty()) {
                throw new DumpRefused("Could not find first log file name in binary log index file: '" + start.file()
                        + "' was purged or never written; the binlog has " + filesText() + " up to " + mark.position());
            }
            if (start.compareTo(mark.position()) > 0) {
                throw new DumpRefused("Client requested master to start replication from position > file size: "
                        + start + " is beyond the end of the binlog (" + mark.position() + "; files " + filesText() + ")"
                        + waited());
            }
            BinlogFileReader.fourBytePositionProblem(writer, start).ifPresent(problem -> {
                throw new DumpRefused(problem);
            });
            return BinlogFileReader.at(writer, pastTheEndOfAFinishedFile(start), checksums);
        }
        String gtids = request.gtids();
        long wanted = highestOwnSequence(gtids);
        mustPassSequence = wanted;
        if (wanted > mark.lastSequence()) {
            mark = awaitWritten("GTID set [" + gtids + "] (" + (wanted - mark.lastSequence()) + " transactions ahead)",
                    m -> m.lastSequence() >= wanted);
        }
        if (wanted > mark.lastSequence()) {
            throw new DumpRefused("the replica's GTID set [" + gtids + "] has transactions the binlog does not have: "
                    + "it asks to continue after sequence " + wanted + " but the binlog's last is "
                    + "[" + gtidsText(mark.lastSequence()) + "]: this daemon is " + (wanted - mark.lastSequence())
                    + " transactions behind" + waited());
        }
        try {
            return BinlogFileReader.fromGtids(writer, gtids, checksums);
        } catch (NoSuchFileException e) {
            long purged = writer.index().entries().get(0).previousSequence();
            throw new DumpRefused("Cannot replicate because the master purged required binary logs: the replica's"
                    + " GTID set [" + gtids + "] lacks transactions up to " + gtidsText(purged) + " that are no longer"
                    + " in the binlog (files " + filesText() + ")");
        } catch (IllegalArgumentException e) {
            throw new DumpRefused("cannot read the replica's GTID set [" + gtids + "]: " + e.getMessage());
        }
    }

    /**
     * The start of the next file when {@code start} is the very end of a finished file (the position after its
     * ROTATE, which a subscriber that stopped there asks for), as a server goes on with the next log; else
     * {@code start}. The fake ROTATE sent first then names the file the events come from.
     */
    private BinlogPosition pastTheEndOfAFinishedFile(BinlogPosition start) throws IOException {
        List<BinlogIndex.Entry> files = writer.index().entries();
        for (int i = 0; i < files.size() - 1; i++) {
            if (files.get(i).file().equals(start.file())) {
                long size = java.nio.file.Files.size(writer.config().dir().resolve(start.file()));
                return start.position() == size ? new BinlogPosition(files.get(i + 1).file(), 4) : start;
            }
        }
        return start;
    }

    /** Whether {@code start} names a file after the last one this daemon has (not yet written: a twin ahead). */
    private boolean isAfterLastFile(BinlogPosition start) {
        String last = writer.index().last().file();
        return new BinlogPosition(start.file(), 0).compareTo(new BinlogPosition(last, 0)) > 0;
    }

    /**
     * Waits up to {@code dump.aheadWait} until the durable mark satisfies {@code reached} (a subscriber that moved to a
     * twin a little behind); returns the mark then in force.
     */
    private DurableMark awaitWritten(String what, java.util.function.Predicate<DurableMark> reached)
            throws InterruptedException {
        DurableMark m = writer.durability().current();
        if (aheadWait.isZero() || reached.test(m)) {
            return m;
        }
        LOG.info("dump request of {} asks for {}, which this daemon has not written yet (it is at {}); waiting up to {}"
                + " (dump.aheadWait)", channel.remoteAddress(), what, m.position(), aheadWait);
        long started = System.nanoTime();
        long deadline = started + aheadWait.toNanos();
        while (!reached.test(m) && channel.isActive()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            m = writer.durability().awaitBeyond(m.position(), Duration.ofNanos(Math.min(left, MAX_WAIT.toNanos())));
        }
        if (reached.test(m)) {
            LOG.info("dump request of {}: {} written after {} ms; streaming", channel.remoteAddress(), what,
                    (System.nanoTime() - started) / 1_000_000);
        }
        return m;
    }

    /** What a refusal of a start ahead of the binlog adds: how long it waited. */
    private String waited() {
        return aheadWait.isZero() ? "" : " (still so after waiting " + aheadWait.toSeconds() + " s, dump.aheadWait)";
    }

    private long highestOwnSequence(String gtids) {
        long max = 0;
        if (writer.flavor().isMariaDb()) {
            for (String part : gtids.isBlank() ? new String[0] : gtids.split(",")) {
                String[] f = part.strip().split("-");
                if (f.length == 3 && Long.parseLong(f[0]) == writer.config().domainId()) {
                    max = Math.max(max, Long.parseLong(f[2]));
                }
            }
            return max;
        }
        return MySqlGtidSet.parse(gtids).highest(writer.serverUuid());
    }

    private String gtidsText(long sequence) {
        return writer.flavor().isMariaDb() ? writer.config().domainId() + "-" + writer.config().serverId() + "-" + sequence
                : sequence == 0 ? "(none)" : writer.serverUuid() + ":1-" + sequence;
    }

    private String filesText() {
        var entries = writer.index().entries();
        return entries.isEmpty() ? "no files" : entries.get(0).file() + " to " + entries.get(entries.size() - 1).file()
                + " (" + entries.stream().map(BinlogIndex.Entry::file).count() + " files)";
    }

    private void awaitWritable() throws InterruptedException {
        if (canWrite()) {
            return;
        }
        flush();
        synchronized (writable) {
            while (!canWrite() && channel.isActive()) {
                writable.wait(MAX_WAIT.toMillis());
            }
        }
    }

    /**
     * Whether more may be queued: the channel is below its high water mark counting the batches handed to the
     * event loop but not yet written into the channel (Netty counts a write only once the event loop runs it; on a
     * busy machine this thread could otherwise run megabytes ahead of it).
     */
    private boolean canWrite() {
        return channel.isWritable() && inFlightBytes.get() < channel.bytesBeforeUnwritable();
    }

    /** Whether the dump ended for a reason of its own, not because the connection closed under it. */
    boolean endedOnItsOwn() {
        return endedOnItsOwn;
    }

    /** The format description re-sent when starting inside a file: log_pos 0, so the replica keeps its position. */
    private void sendFormatDescriptionAgain(BinlogEvent fde) {
        byte[] raw = fde.rawBytes();
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(raw).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.putInt(13, 0);
        b.putShort(17, (short) (b.getShort(17) & ~EventHeader.LOG_EVENT_BINLOG_IN_USE_F));
        if (fde.checksumLength() == FormatDescription.CHECKSUM_LENGTH) {
            CRC32 crc = new CRC32();
            crc.update(raw, 0, raw.length - 4);
            b.putInt(raw.length - 4, (int) crc.getValue());
        }
        write(Unpooled.wrappedBuffer(Unpooled.wrappedBuffer(new byte[] {0}), Unpooled.wrappedBuffer(raw)));
    }

    private interface EventWriter {
        int write(ByteBuf out);
    }

    /** A made-up event (fake rotate, heartbeat), with a CRC32 only when the client negotiated one. */
    private void sendArtificial(EventWriter w) {
        ByteBuf buf = Unpooled.buffer(64);
        buf.writeByte(0);
        int length = w.write(buf);
        if (!request.checksumAware()) {
            buf.writerIndex(buf.writerIndex() - FormatDescription.CHECKSUM_LENGTH);
            buf.setIntLE(1 + 9, length - FormatDescription.CHECKSUM_LENGTH);
        }
        write(buf);
    }

    private void send(MySqlMessage m) {
        ByteBuf buf = Unpooled.buffer(16);
        m.encode(buf);
        write(buf);
    }

    private void sendError(String message) {
        if (channel.isActive()) {
            send(MySqlError.ER_MASTER_FATAL_ERROR_READING_BINLOG.toPacket(message));
            flush();
        }
    }

    private void write(ByteBuf payload) {
        int length = payload.readableBytes();
        int first = sequenceId;
        sequenceId = (sequenceId + length / MySqlProtocol.MAX_PACKET_PAYLOAD + 1) & 0xFF;
        queue(new MySqlPacket(first, payload), length);
    }

    private void queue(Object packets, long bytes) {
        pending.add(packets);
        unflushed += bytes;
        if (unflushed >= FLUSH_BYTES) {
            flush();
        }
    }

    /** Hands the pending packets to the event loop as one task (one wake-up per batch, not per event). */
    private void flush() {
        if (pending.isEmpty()) {
            return;
        }
        sentPosition = currentPosition(); // once per batch: the status page's view, off the per-event path
        sentSequence = lastSequence;
        List<Object> batch = pending;
        long bytes = unflushed;
        pending = new ArrayList<>();
        unflushed = 0;
        if (channel.eventLoop().inEventLoop()) { // a pump step: write now, in order with what the loop has queued
            for (Object p : batch) {
                channel.write(p).addListener(WRITE_FAILED);
            }
            channel.flush();
            return;
        }
        inFlightBytes.addAndGet(bytes);
        try {
            channel.eventLoop().execute(() -> {
                for (Object p : batch) {
                    channel.write(p).addListener(WRITE_FAILED);
                }
                inFlightBytes.addAndGet(-bytes);
                channel.flush();
                writabilityChanged();
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            inFlightBytes.addAndGet(-bytes);
            pending = batch; // the server is shutting down
            releasePending();
        }
    }

    /** A dump request that cannot be served: answered with error 1236. */
    static final class DumpRefused extends RuntimeException {
        DumpRefused(String message) {
            super(message, null, false, false);
        }
    }
}
