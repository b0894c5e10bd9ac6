package io.tributary.storage.buffer;

import io.tributary.core.config.ByteSize;
import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.FormatDescription;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Where shard transactions wait, event by event, until the sorter may emit them; in bounded memory
 * (ARCHITECTURE.md, invariant 7, and "Spilling").
 *
 * <p><b>Accounting.</b> Memory use is the buffer's own byte count against {@code storage.memoryLimit}:
 * each event held in memory counts its raw length plus {@value #EVENT_OVERHEAD} bytes, and each open
 * spill chunk its capacity. Callers hand in events whose buffers hold only that event (the reader path
 * copies each event), so the count is what the heap really holds.
 *
 * <p><b>Where an event goes</b>, decided per event with the settings current at that moment:
 * <ul>
 * <li>{@code isPersistOn=false}: memory; an event that would take use past the memory limit fails its
 * transaction with a {@link TransactionBufferFullException} (naming shard, transaction and limit) and
 * frees what it held.</li>
 * <li>FORCE: disk.</li>
 * <li>AUTO: disk once the transaction's size passes {@code txnPersistThreshold} (its events already in
 * memory move to disk at that moment), or while use is at or above {@code persistNewThreshold}; memory
 * otherwise.</li>
 * <li>With persisting on, whenever use passes {@code persistAllThreshold} (also because an edit lowered
 * it) every event in memory moves to disk and open spill chunks are written out, except for
 * transactions being read back.</li>
 * </ul>
 * A settings edit thus applies to data buffered after it, and to everything at once when the all-data
 * threshold drops below the current use.
 *
 * <p><b>Disk layout.</b> Events on disk are {@link io.tributary.core.event.BinlogEventRecord}s gathered in
 * chunks of at most {@value #CHUNK_BYTES} bytes (1/64 of the budget); a chunk's key is the index of its first event in the
 * transaction, so one iterator reads a transaction's chunks in event order and memory segments fill the
 * gaps between them. {@link BufferedTransaction#release()} removes a transaction with one range delete.
 *
 * <p><b>Threading.</b> Thread-safe: appends from many shard reader threads, read-back and release from
 * the sorter, and settings edits from the admin thread share one lock for accounting and placement. A
 * given transaction is appended to by one thread and read back by one thread. Spilled data is read back
 * outside the lock.
 */
public final class TransactionBuffer implements AutoCloseable {

    /** Bytes counted for an event's object headers and references, on top of its raw length. */
    public static final int EVENT_OVERHEAD = 96;
    /** Largest target size of a spill chunk; smaller budgets get 1/64 of the budget, at least 16 KB. */
    public static final int CHUNK_BYTES = 512 * 1024;

    private final LivePersistSettings settings;
    private final SpillStore store;
    private final Consumer<PersistSettings> onEdit = this::settingsChanged;
    /**
     * The transactions begun and not yet released, oldest first, linked through their own {@code previous/next}
     * fields: a begin and a release cost two pointer writes, with no hashing and no node per transaction (a
     * hash set of them was a tenth of the merge thread's time). Guarded by this buffer's lock.
     */
    private BufferedTransaction oldest;
    private BufferedTransaction newest;
    private int openCount;
    private final AtomicLong nextId = new AtomicLong();
    private long memoryUsed;
    private long memoryPeak;
    private long spilledBytes;
    private long spilledBytesTotal;
    private boolean closed;

    /** A buffer spilling to {@code store}; it follows edits of {@code settings} until closed. */
    public TransactionBuffer(LivePersistSettings settings, SpillStore store) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.store = Objects.requireNonNull(store, "store");
        settings.addListener(onEdit);
    }

    /**
     * Starts buffering a shard transaction.
     *
     * @param shard the shard's configured name
     * @param key   the transaction's name for errors and logs: its GTID or {@code file:position}
     * @param fde   the shard's format description, to decode events read back from disk
     */
    public synchronized BufferedTransaction begin(String shard, String key, FormatDescription fde) {
        if (closed) {
            throw new IllegalStateException("transaction buffer closed");
        }
        BufferedTransaction t = new BufferedTransaction(this, nextId.getAndIncrement(), shard, key, fde);
        t.previous = newest;
        if (newest == null) {
            oldest = t;
        } else {
            newest.next = t;
        }
        newest = t;
        openCount++;
        return t;
    }

    /** Bytes the buffer holds in memory, by its own accounting. */
    public synchronized long memoryUsed() {
        return memoryUsed;
    }

    /** The most bytes the buffer has held in memory at once since it was made, by its own accounting. */
    public synchronized long memoryPeak() {
        return memoryPeak;
    }

    /** Bytes of event records currently spilled (live, not yet released). */
    public synchronized long spilledBytes() {
        return spilledBytes;
    }

    /** Bytes of event records ever spilled (cumulative, never decreases): how much went to disk. */
    public synchronized long spilledBytesTotal() {
        return spilledBytesTotal;
    }

    /** Bytes the spill store uses on disk and in its memtables. */
    public long spillStoreBytes() {
        return store.sizeBytes();
    }

    /** Transactions begun and not yet released. */
    public synchronized int openTransactions() {
        return openCount;
    }

    /** Of the open transactions, those with events on disk (for metrics: walks the open set). */
    public synchronized int spilledTransactions() {
        int n = 0;
        for (BufferedTransaction t = oldest; t != null; t = t.next) {
            if (t.diskEventsLocked() > 0) {
                n++;
            }
        }
        return n;
    }

    public PersistSettings settings() {
        return settings.current();
    }

    /**
     * The memory chunks of released transactions, by size (4, 8, 16, 32 and 64 KB: the sizes of a transaction's
     * in-memory chunks), kept for the next transactions. A catch-up buffers thousands of transactions for a second or
     * more each: left to the garbage collector, their chunks were a fifth of what the daemon allocated and, alive
     * across several young collections, were copied at each (GC was a third of a 4-shard catch-up's CPU). Reused,
     * they stay where they are. At most {@link #spareLimit} bytes are kept, outside {@code storage.memoryLimit}'s
     * accounting. Guarded by this buffer's lock.
     */
    private final List<java.util.ArrayDeque<byte[]>> spareChunks = java.util.stream.Stream
            .generate(java.util.ArrayDeque<byte[]>::new).limit(5).toList();
    private long spareBytes;

    /** An array for a transaction's in-memory chunk of {@code size} bytes: a spare one of that size, else new. */
    byte[] memoryChunk(int size) {
        int sizeClass = sizeClass(size);
        if (sizeClass >= 0 && !spareChunks.get(sizeClass).isEmpty()) {
            spareBytes -= size;
            return spareChunks.get(sizeClass).pop();
        }
        return new byte[size];
    }

    /**
     * A released transaction's in-memory chunk, no longer read: kept for {@link #memoryChunk} while the spares stay
     * within {@link #spareLimit}.
     */
    void spare(byte[] chunk) {
        int sizeClass = sizeClass(chunk.length);
        if (sizeClass < 0 || spareBytes + chunk.length > spareLimit()) {
            return;
        }
        spareChunks.get(sizeClass).push(chunk);
        spareBytes += chunk.length;
    }

    /** Bytes of spare chunks kept ({@link #spare}). */
    synchronized long spareBytes() {
        return spareBytes;
    }

    /** At most an eighth of {@code storage.memoryLimit}, and 32 MB. */
    private long spareLimit() {
        return Math.min(32L << 20, settings.current().memoryLimitBytes() / 8);
    }

    private static int sizeClass(int size) {
        if (size < 4096 || size > 65536 || Integer.bitCount(size) != 1) {
            return -1;
        }
        return Integer.numberOfTrailingZeros(size) - 12;
    }

    /** Capacity of a new spill chunk: 1/64 of the budget, between 16 KB and {@link #CHUNK_BYTES}. */
    int chunkBytes() {
        return (int) Math.max(16 * 1024, Math.min(CHUNK_BYTES, settings.current().memoryLimitBytes() / 64));
    }

    SpillStore store() {
        return store;
    }

    /** Where the next event of {@code t} goes; called with the lock held. */
    boolean placeOnDisk(BufferedTransaction t, long cost, long transactionBytesAfter) {
        PersistSettings s = settings.current();
        if (!s.persistOn()) {
            if (memoryUsed + cost > s.memoryLimitBytes()) {
                TransactionBufferFullException e = new TransactionBufferFullException(t.shard(), t.key(),
                        s.memoryLimitBytes(), "shard " + t.shard() + ": transaction " + t.key() + " does not fit the"
                        + " buffer: storage.memoryLimit=" + ByteSize.format(s.memoryLimitBytes()) + " ("
                        + s.memoryLimitBytes() + " bytes), the transaction holds " + t.bytes() + " bytes in "
                        + t.eventCount() + " events, the buffer uses " + memoryUsed + " bytes, the next event needs "
                        + cost + ", and storage.isPersistOn=false forbids spilling to disk. Turn storage.isPersistOn"
                        + " on or raise storage.memoryLimit.");
                t.fail(e);
                throw e;
            }
            return false;
        }
        if (s.mode() == PersistMode.FORCE) {
            return true;
        }
        if (transactionBytesAfter > s.txnThresholdBytes()) {
            if (t.hasMemorySegments()) {
                t.moveToDisk();
            }
            return true;
        }
        return memoryUsed >= s.newThresholdBytes();
    }

    /** After an append: move everything to disk when use passed the all-data threshold. Lock held. */
    void afterAppend() {
        PersistSettings s = settings.current();
        if (s.persistOn() && memoryUsed > s.allThresholdBytes()) {
            moveAllToDisk();
        }
    }

    private synchronized void settingsChanged(PersistSettings s) {
        if (s.persistOn() && memoryUsed > s.allThresholdBytes()) {
            moveAllToDisk();
        }
    }

    private void moveAllToDisk() {
        for (BufferedTransaction t = oldest; t != null; t = t.next) { // moving to disk releases none of them
            if (!t.isReading()) {
                t.moveToDisk();
                t.flushChunkToDisk();
            }
        }
    }

    void addMemory(long bytes) {
        memoryUsed += bytes;
        if (memoryUsed > memoryPeak) {
            memoryPeak = memoryUsed;
        }
    }

    void addSpilled(long bytes) {
        spilledBytes += bytes;
        if (bytes > 0) {
            spilledBytesTotal += bytes;
        }
    }

    /** Unlinks a transaction that was freed; called once per transaction, lock held. */
    void forget(BufferedTransaction t) {
        if (t.previous == null && oldest != t) {
            return; // not linked (any more)
        }
        if (t.previous == null) {
            oldest = t.next;
        } else {
            t.previous.next = t.next;
        }
        if (t.next == null) {
            newest = t.previous;
        } else {
            t.next.previous = t.previous;
        }
        t.previous = null;
        t.next = null;
        openCount--;
    }

    /** Releases every open transaction, stops following the settings. Does not close the store. */
    @Override
    public void close() {
        List<BufferedTransaction> all;
        synchronized (this) {
            closed = true;
            all = new ArrayList<>(openCount);
            for (BufferedTransaction t = oldest; t != null; t = t.next) {
                all.add(t); // release unlinks: walk first, release after
            }
        }
        all.forEach(BufferedTransaction::release);
        settings.removeListener(onEdit);
    }

    @Override
    public synchronized String toString() {
        return "TransactionBuffer[open=" + openCount + ", memory=" + memoryUsed + " bytes, spilled=" + spilledBytes
                + " bytes, " + settings.current() + "]";
    }
}
