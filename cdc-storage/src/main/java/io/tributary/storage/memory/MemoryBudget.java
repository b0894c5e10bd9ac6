package io.tributary.storage.memory;

import io.tributary.core.config.ByteSize;

/**
 * Every memory limit of the data path, handed out in one place from the JVM's max heap and the two limits a
 * user may configure ({@code storage.memoryLimit}, {@code dump.cache.size}). The other shares are derived:
 * they bound what a stage holds in flight, not what it keeps.
 *
 * <table>
 * <caption>The shares</caption>
 * <tr><th>limit</th><th>held by</th><th>default</th></tr>
 * <tr><td>transaction buffer</td><td>buffered transactions (spill beyond); besides, up to an eighth of it (at most
 * 32 MB) of released transactions' chunks kept for the next ones</td><td>25% of the max heap</td></tr>
 * <tr><td>tail cache</td><td>the newest durable global binlog bytes</td><td>256 MB or 1/8 of the heap,
 * whichever is smaller</td></tr>
 * <tr><td>merge ring</td><td>shard events between readers and the merge thread</td><td>1/16 of the heap, 4 to
 * 64 MB</td></tr>
 * <tr><td>reader read-ahead</td><td>each shard reader's socket buffer (direct memory)</td><td>1/32 of the heap,
 * 4 to 64 MB, per reader</td></tr>
 * </table>
 *
 * <p>With every default, the shares take at most 25% + 12.5% + 6.25% of the heap plus the readers' direct
 * memory, leaving the rest to the events in flight on the append thread, Netty's subscriber queues and the JVM.
 *
 * @param maxHeap           the JVM's max heap the shares come from
 * @param transactionBuffer bytes the transaction buffer may hold before it spills
 * @param tailCache         bytes of the global binlog's tail kept for subscribers (0: no cache)
 * @param mergeRing         bytes of shard events the readers' ring may hold
 * @param readerReadAhead   bytes each shard reader may read ahead of the merge
 * @param readers           how many shard readers there are
 */
public record MemoryBudget(long maxHeap, long transactionBuffer, long tailCache, long mergeRing, long readerReadAhead,
        int readers) {

    private static final long MIN_IN_FLIGHT = 4L << 20;
    private static final long MAX_IN_FLIGHT = 64L << 20;
    /** The most an unset {@code dump.cache.size} gives the tail cache, whatever the heap. */
    public static final long TAIL_CACHE_CAP = 256L << 20;

    public MemoryBudget {
        if (maxHeap <= 0) {
            throw new IllegalArgumentException("max heap must be positive, got " + maxHeap);
        }
        if (transactionBuffer <= 0 || tailCache < 0 || mergeRing <= 0 || readerReadAhead <= 0 || readers < 0) {
            throw new IllegalArgumentException("memory shares must be positive: " + describe(transactionBuffer,
                    tailCache, mergeRing, readerReadAhead, readers));
        }
    }

    /** {@code storage.memoryLimit} when it is not set: a quarter of the heap. */
    public static long defaultTransactionBuffer(long maxHeap) {
        return maxHeap / 4;
    }

    /** {@code dump.cache.size} when it is not set: an eighth of the heap, at most 256 MB. */
    public static long defaultTailCache(long maxHeap) {
        return Math.min(TAIL_CACHE_CAP, maxHeap / 8);
    }

    /**
     * The budget of a JVM with {@code maxHeap}, with the configured (or defaulted) buffer and tail cache limits.
     *
     * @param readers shard readers, each with its own read-ahead
     */
    public static MemoryBudget of(long maxHeap, long transactionBuffer, long tailCache, int readers) {
        // The ring bounds events by count; with 512 KB rows a full ring would be gigabytes, so it is bounded by
        // bytes too. The read-ahead is Netty direct memory: 64 MB each would fill a 512 MB JVM's direct memory
        // with 8 shards before the transaction buffer got any of it.
        long ring = clamp(maxHeap / 16);
        long readAhead = clamp(maxHeap / 32);
        return new MemoryBudget(maxHeap, transactionBuffer, tailCache, ring, readAhead, readers);
    }

    /** {@link #of} with every default: for components started without a configuration (tests, tools). */
    public static MemoryBudget defaults(long maxHeap, int readers) {
        return of(maxHeap, defaultTransactionBuffer(maxHeap), defaultTailCache(maxHeap), readers);
    }

    /** This JVM's budget with every default. */
    public static MemoryBudget forThisJvm(int readers) {
        return defaults(Runtime.getRuntime().maxMemory(), readers);
    }

    /** Heap the shares may take at once (the read-ahead is direct memory and counted apart). */
    public long heapTotal() {
        return transactionBuffer + tailCache + mergeRing;
    }

    /** The startup line: every share, what sets it and the total. */
    public String describe() {
        return "memory budget of a " + ByteSize.format(maxHeap) + " heap: " + describe(transactionBuffer, tailCache,
                mergeRing, readerReadAhead, readers) + "; heap shares " + ByteSize.format(heapTotal()) + " ("
                + Math.round(100.0 * heapTotal() / maxHeap) + "%)";
    }

    private static String describe(long buffer, long cache, long ring, long readAhead, int readers) {
        return "transaction buffer " + ByteSize.format(buffer) + " (storage.memoryLimit), tail cache "
                + ByteSize.format(cache) + " (dump.cache.size), merge ring " + ByteSize.format(ring)
                + ", reader read-ahead " + readers + " x " + ByteSize.format(readAhead) + " (direct)";
    }

    private static long clamp(long share) {
        return Math.max(MIN_IN_FLIGHT, Math.min(MAX_IN_FLIGHT, share));
    }
}
