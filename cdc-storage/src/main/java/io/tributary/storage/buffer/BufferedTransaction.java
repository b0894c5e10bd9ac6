package io.tributary.storage.buffer;

import io.netty.buffer.ByteBuf;
import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventRecord;
import io.tributary.core.event.EventBody;
import io.tributary.core.event.FormatDescription;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * One shard transaction in the {@link TransactionBuffer}: its events in arrival order, partly in memory
 * and partly in the spill store as the buffer decided per event.
 *
 * <p>Life cycle: {@link #append} while {@code OPEN}, {@link #seal} when the transaction ended,
 * {@link #events()} once to read it back, {@link #release} once it is durable in the global binlog (or
 * to discard it, e.g. after a reader rewind). One thread appends, one thread reads; placement and
 * accounting run under the buffer's lock.
 */
public final class BufferedTransaction {

    /** Where the transaction stands. */
    public enum State {
        OPEN, SEALED, READING, RELEASED, FAILED
    }

    /**
     * Events held in memory, from event {@code start} on: their {@link BinlogEventRecord}s back to back in chunks
     * (the spill store's format, so a move to disk writes the chunks as they are), with the bodies decoded on the
     * way in kept beside them (a table map's shared body stays the same object). Reading back streams through
     * the chunks instead of following an event, a header and a byte array per event.
     */
    private static final class Segment {
        private static final int FIRST_CHUNK = 4096;
        private static final int LARGEST_CHUNK = 64 * 1024;

        final long start;
        final List<byte[]> chunks = new ArrayList<>(2);
        int[] used = new int[2];
        EventBody[] bodies = new EventBody[8];
        int count;
        long cost;

        Segment(long start) {
            this.start = start;
        }

        long end() {
            return start + count;
        }

        /**
         * Room for the next event's record of {@code size} bytes, in the last chunk or a new one ({@link #lastChunk},
         * from {@code buffer}'s spares where it has one); returns the record's position there. {@code body} is kept
         * beside it.
         */
        int reserve(int size, EventBody body, long eventCost, TransactionBuffer buffer) {
            int last = chunks.size() - 1;
            if (last < 0 || used[last] + size > chunks.get(last).length) {
                int next = last < 0 ? FIRST_CHUNK : Math.min(LARGEST_CHUNK, chunks.get(last).length * 2);
                chunks.add(buffer.memoryChunk(Math.max(next, size)));
                last++;
                if (last == used.length) {
                    used = java.util.Arrays.copyOf(used, used.length * 2);
                }
            }
            int at = used[last];
            used[last] += size;
            if (count == bodies.length) {
                bodies = java.util.Arrays.copyOf(bodies, count * 2);
            }
            bodies[count++] = body;
            cost += eventCost;
            return at;
        }

        byte[] lastChunk() {
            return chunks.get(chunks.size() - 1);
        }
    }

    private final TransactionBuffer buffer;
    private final long id;
    private final String shard;
    private final String key;
    private final FormatDescription fde;
    private final List<Segment> segments = new ArrayList<>();
    private State state = State.OPEN;
    private long bytes;
    private long eventCount;
    private long memoryBytes;
    private long diskBytes;
    private long diskEvents;
    private byte[] chunk;
    private int chunkLength;
    private long chunkStart;
    private RuntimeException failure;
    /** Neighbours in the buffer's list of open transactions ({@link TransactionBuffer}); under the buffer's lock. */
    BufferedTransaction previous;
    BufferedTransaction next;
    /**
     * Set once by {@link #seal}, after the last change of {@link #eventCount}: a reader that sees it (the merger,
     * on another thread) reads the count without the buffer's lock, which the appending thread takes per event.
     */
    private volatile boolean sealed;

    BufferedTransaction(TransactionBuffer buffer, long id, String shard, String key, FormatDescription fde) {
        this.buffer = buffer;
        this.id = id;
        this.shard = shard;
        this.key = key;
        this.fde = fde;
    }

    public String shard() {
        return shard;
    }

    /** The transaction's name: its GTID or {@code file:position}. */
    public String key() {
        return key;
    }

    /** Raw event bytes appended so far. */
    public long bytes() {
        synchronized (buffer) {
            return bytes;
        }
    }

    public long eventCount() {
        if (sealed) {
            return eventCount; // no longer changes
        }
        synchronized (buffer) {
            return eventCount;
        }
    }

    /** Events of this transaction on disk (written or in the open chunk). */
    public long eventsOnDisk() {
        synchronized (buffer) {
            return diskEvents;
        }
    }

    /** {@link #eventsOnDisk} for the buffer, which holds its own lock already. */
    long diskEventsLocked() {
        return diskEvents;
    }

    /** Bytes this transaction holds in memory, by the buffer's accounting. */
    public long memoryBytes() {
        synchronized (buffer) {
            return memoryBytes;
        }
    }

    public State state() {
        synchronized (buffer) {
            return state;
        }
    }

    /**
     * Adds the next event. Its bytes are copied; its decoded body, if any, is kept as it is (a body may share the
     * event's buffer, which the caller must then leave alone).
     *
     * @throws TransactionBufferFullException when spilling is off and the event does not fit; the
     *         transaction is then FAILED and freed
     */
    public void append(BinlogEvent event) {
        synchronized (buffer) {
            byte[] to = place(event.length(), event.body());
            BinlogEventRecord.write(event, to, placedAt);
            placed(event.length());
        }
    }

    /**
     * Adds the next event straight from the bytes the shard sent ({@code raw}'s readable bytes, left unread), with
     * no heap copy of it first: the event found at {@code offset} of its binlog file, of canonical type
     * {@code typeCode}, with {@code body} decoded from it before (or null). Read back, it equals what
     * {@link #append(BinlogEvent)} of the decoded event gives.
     *
     * @throws TransactionBufferFullException as {@link #append(BinlogEvent)}
     */
    public void append(ByteBuf raw, long offset, int typeCode, int checksumLength, EventBody body) {
        int length = raw.readableBytes();
        synchronized (buffer) {
            byte[] to = place(length, body);
            BinlogEventRecord.write(raw, offset, typeCode, checksumLength, body != null, to, placedAt);
            placed(length);
        }
    }

    /** Where the record {@link #place} chose goes in the array it returned. */
    private int placedAt;

    /**
     * Decides where the next event of {@code length} raw bytes goes (memory or the spill chunk, by the buffer's
     * rules) and accounts for it: returns the array its record is to be written to, at {@link #placedAt}.
     * Buffer lock held.
     */
    private byte[] place(int length, EventBody body) {
        requireState(State.OPEN, "append to");
        long cost = (long) length + TransactionBuffer.EVENT_OVERHEAD;
        int size = BinlogEventRecord.OVERHEAD + length;
        if (buffer.placeOnDisk(this, cost, bytes + length)) {
            if (chunk != null && chunkLength + size > chunk.length) {
                flushChunk();
            }
            if (chunk == null || size > chunk.length) {
                dropChunk();
                chunk = new byte[Math.max(buffer.chunkBytes(), size)];
                memoryBytes += chunk.length;
                buffer.addMemory(chunk.length);
            }
            if (chunkLength == 0) {
                chunkStart = eventCount;
            }
            placedAt = chunkLength;
            chunkLength += size;
            diskEvents++;
            return chunk;
        }
        flushChunk();
        dropChunk();
        Segment last = segments.isEmpty() ? null : segments.get(segments.size() - 1);
        if (last == null || last.end() != eventCount) {
            last = new Segment(eventCount);
            segments.add(last);
        }
        placedAt = last.reserve(size, body, cost, buffer);
        memoryBytes += cost;
        buffer.addMemory(cost);
        return last.lastChunk();
    }

    /** After the record of an event of {@code length} raw bytes was written where {@link #place} said. */
    private void placed(int length) {
        bytes += length;
        eventCount++;
        buffer.afterAppend();
    }

    /** The transaction is complete: flushes what waits for the disk. */
    public void seal() {
        synchronized (buffer) {
            requireState(State.OPEN, "seal");
            flushChunk();
            dropChunk();
            state = State.SEALED;
            sealed = true;
        }
    }

    /**
     * The events in the order they were appended, equal to them (header, provenance, raw bytes, body),
     * streaming from the spill store for spilled parts. One pass; the transaction must be sealed.
     */
    public EventIterator events() {
        List<Segment> snapshot;
        synchronized (buffer) {
            requireState(State.SEALED, "read");
            state = State.READING;
            snapshot = List.copyOf(segments);
        }
        return new EventIterator(snapshot);
    }

    /** Frees the transaction's memory and deletes its spilled data. Idempotent. */
    public void release() {
        synchronized (buffer) {
            if (state == State.RELEASED || state == State.FAILED) {
                return;
            }
            freeAll(true);
            state = State.RELEASED;
        }
    }

    boolean hasMemorySegments() {
        return !segments.isEmpty();
    }

    boolean isReading() {
        return state == State.READING;
    }

    void fail(RuntimeException cause) {
        freeAll(false);
        failure = cause;
        state = State.FAILED;
    }

    /** Moves every event held in memory to the spill store: its chunks are written as they are. Buffer lock held. */
    void moveToDisk() {
        for (Segment s : segments) {
            long first = s.start;
            for (int c = 0; c < s.chunks.size(); c++) {
                byte[] chunk = s.chunks.get(c);
                int events = recordsIn(chunk, s.used[c]);
                writeChunk(first, chunk, s.used[c]);
                first += events;
                diskEvents += events;
            }
            memoryBytes -= s.cost;
            buffer.addMemory(-s.cost);
        }
        segments.clear();
    }

    private int recordsIn(byte[] chunk, int length) {
        int n = 0;
        for (int at = 0; at < length; n++) {
            at += BinlogEventRecord.recordLength(chunk, at, length - at, "transaction " + key + " of shard " + shard);
        }
        return n;
    }

    /** Writes the open spill chunk and frees it (the next spilled event opens a new one). Buffer lock held. */
    void flushChunkToDisk() {
        flushChunk();
        dropChunk();
    }

    private void flushChunk() {
        if (chunk != null && chunkLength > 0) {
            writeChunk(chunkStart, chunk, chunkLength);
            chunkLength = 0;
        }
    }

    private void writeChunk(long firstEvent, byte[] data, int length) {
        buffer.store().put(id, firstEvent, data, length);
        diskBytes += length;
        buffer.addSpilled(length);
    }

    private void dropChunk() {
        if (chunk != null) {
            memoryBytes -= chunk.length;
            buffer.addMemory(-chunk.length);
            chunk = null;
            chunkLength = 0;
        }
    }

    /**
     * Frees everything; {@code spare}: the in-memory chunks go to the buffer's spares (only on release: the reader
     * is done with them, as {@link EventIterator} requires; a failed transaction's may still be read).
     */
    private void freeAll(boolean spare) {
        dropChunk();
        for (Segment s : segments) {
            memoryBytes -= s.cost;
            buffer.addMemory(-s.cost);
            if (spare) {
                s.chunks.forEach(buffer::spare);
            }
        }
        segments.clear();
        if (diskBytes > 0) {
            buffer.store().delete(id);
            buffer.addSpilled(-diskBytes);
            diskBytes = 0;
        }
        buffer.forget(this);
    }

    private void requireState(State expected, String action) {
        if (state != expected) {
            throw new IllegalStateException("shard " + shard + ": cannot " + action + " transaction " + key + ": it is "
                    + state + ", expected " + expected + (failure == null ? "" : " (" + failure.getMessage() + ")"));
        }
    }

    @Override
    public String toString() {
        synchronized (buffer) {
            return "BufferedTransaction[shard=" + shard + ", key=" + key + ", " + state + ", " + eventCount + " events, "
                    + bytes + " bytes, memory=" + memoryBytes + ", disk=" + diskBytes + "]";
        }
    }

    /**
     * Reads the events back: memory segments where they start, the spill store's records in between.
     * Not thread-safe. Closing it early frees the RocksDB iterator; {@link #release} is still needed.
     *
     * <p>An event read back from the spill store shares one of the iterator's two read arrays, which are filled in
     * turn: it, and a body decoded from it (a rows body shares its bytes; a table map's or a query's does not), stay
     * valid until {@link #next()} has been called twice more. The merge path encodes each event into the global
     * binlog's buffer before it asks for the next one; whoever keeps events copies them. Events held in memory stay
     * valid until the transaction is released.
     */
    public final class EventIterator implements Iterator<BinlogEvent>, AutoCloseable {
        private final List<Segment> memory;
        private final long total;
        private int segment;
        private int inSegment = -1;
        private int chunk;
        private int chunkPos;
        private long index;
        private SpillStore.ChunkIterator chunks;
        /** The arrays spilled chunks are read into, used in turn (see {@link EventIterator}). */
        private final byte[][] reads = new byte[2][];
        private int reading;
        private byte[] current;
        private int currentLength;
        private int currentPos;

        private EventIterator(List<Segment> memory) {
            this.memory = memory;
            this.total = eventCount;
        }

        @Override
        public boolean hasNext() {
            return index < total;
        }

        @Override
        public BinlogEvent next() {
            if (!hasNext()) {
                throw new NoSuchElementException("shard " + shard + ": transaction " + key + " has " + total + " events");
            }
            BinlogEvent e;
            if (inSegment < 0 && segment < memory.size() && memory.get(segment).start == index) {
                inSegment = 0;
                chunk = 0;
                chunkPos = 0;
            }
            if (inSegment >= 0) {
                Segment s = memory.get(segment);
                if (chunkPos == s.used[chunk]) {
                    chunk++;
                    chunkPos = 0;
                }
                byte[] c = s.chunks.get(chunk);
                e = BinlogEventRecord.read(c, chunkPos, s.used[chunk] - chunkPos, s.bodies[inSegment], shard);
                chunkPos += BinlogEventRecord.OVERHEAD + e.length();
                if (++inSegment == s.count) {
                    segment++;
                    inSegment = -1;
                }
            } else {
                e = nextFromDisk();
            }
            index++;
            if (index == total) {
                close();
            }
            return e;
        }

        private BinlogEvent nextFromDisk() {
            if (current == null || currentPos == currentLength) {
                if (chunks == null) {
                    chunks = buffer.store().chunks(id);
                }
                if (!chunks.hasNext()) {
                    throw new IllegalStateException("shard " + shard + ": transaction " + key + ": spill store ends at"
                            + " event " + index + " of " + total + " (transaction id " + id + ")");
                }
                // two read arrays in turn: the event returned last (its record in the other array) stays valid
                reading ^= 1;
                byte[] into = reads[reading] != null ? reads[reading] : new byte[buffer.chunkBytes() + 1024];
                int length = chunks.next(into);
                if (length > into.length) {
                    into = new byte[length];
                    length = chunks.next(into);
                }
                reads[reading] = into;
                current = into;
                currentLength = length;
                currentPos = 0;
            }
            String source = "spilled transaction " + key + " of shard " + shard + ", event " + index;
            int length = BinlogEventRecord.recordLength(current, currentPos, currentLength - currentPos, source);
            BinlogEvent e = BinlogEventRecord.read(current, currentPos, length, fde, source);
            currentPos += length;
            return e;
        }

        @Override
        public void close() {
            if (chunks != null) {
                chunks.close();
            }
        }
    }
}
