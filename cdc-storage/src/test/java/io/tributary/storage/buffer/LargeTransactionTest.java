package io.tributary.storage.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tributary.core.config.ByteSize;
import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.DecoderOptions;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 2 GB transaction through the buffer in a JVM with a 512 MB heap (invariant 7): in AUTO and FORCE
 * it passes, byte for byte, with the buffer's memory use within its budget; with persisting off it fails
 * with the clear error instead of an out-of-memory error; persist settings edited in the middle of a
 * large transaction take effect without loss. RocksDB is empty after each release.
 *
 * <p>Runs in its own Surefire execution ({@code large-transactions} in this module's pom, {@code -Xmx512m},
 * system property {@code tributary.largeTransactionJvm=true}); elsewhere it reports itself skipped.
 */
class LargeTransactionTest {

    private static final long TWO_GB = 2L << 30;
    private static final int EVENT_BYTES = 256 * 1024;

    @TempDir
    Path dir;

    private RowsEventTemplate template;
    private SpillStore store;
    private LivePersistSettings live;
    private TransactionBuffer buffer;

    @BeforeAll
    static void onlyInTheSmallHeapJvm() {
        assumeTrue(Boolean.getBoolean("tributary.largeTransactionJvm"), "runs only in the large-transactions Surefire"
                + " execution (forked JVM with -Xmx512m)");
        assertThat(Runtime.getRuntime().maxMemory()).as("max heap of the forked JVM").isLessThanOrEqualTo(512L << 20);
    }

    @BeforeEach
    void setUp() {
        template = RowsEventTemplate.load();
        store = SpillStore.open(dir.resolve("spill"));
    }

    @AfterEach
    void tearDown() {
        if (buffer != null) {
            buffer.close();
        }
        store.close();
    }

    private void start(Map<String, String> values) {
        Map<String, String> all = new HashMap<>(values);
        all.put("storage.path", dir.resolve("spill").toString());
        live = new LivePersistSettings(PersistConfig.forThisJvm(), all);
        buffer = new TransactionBuffer(live, store);
    }

    private BinlogEvent event(long i) {
        return template.event(i, EVENT_BYTES, DecoderOptions.HEADERS_ONLY);
    }

    @Test
    void twoGigabyteTransactionPassesInAuto() {
        start(Map.of("storage.persist.mode", "AUTO"));
        passTwoGigabytes("AUTO");
    }

    @Test
    void twoGigabyteTransactionPassesInForce() {
        start(Map.of("storage.persist.mode", "FORCE"));
        passTwoGigabytes("FORCE");
    }

    private void passTwoGigabytes(String mode) {
        long limit = live.current().memoryLimitBytes();
        BufferedTransaction t = buffer.begin("shard-0", "0-101-2147483648", template.fde);
        CRC32 written = new CRC32();
        long maxUse = 0;
        long startNanos = System.nanoTime();
        long n = 0;
        while (t.bytes() < TWO_GB) {
            BinlogEvent e = event(n++);
            written.update(e.buffer(), e.bufferOffset(), e.length());
            t.append(e);
            maxUse = Math.max(maxUse, buffer.memoryUsed());
        }
        t.seal();
        long writeNanos = System.nanoTime() - startNanos;
        long diskBytes = buffer.spillStoreBytes();
        assertThat(maxUse).as("buffer memory use in %s", mode).isLessThanOrEqualTo(limit);
        assertThat(t.eventsOnDisk()).as("events on disk").isGreaterThan(n * 9 / 10);
        CRC32 read = new CRC32();
        long count = 0;
        startNanos = System.nanoTime();
        try (BufferedTransaction.EventIterator it = t.events()) {
            while (it.hasNext()) {
                BinlogEvent e = it.next();
                assertThat(e.header().logPos()).as("event %d in order", count).isEqualTo(count & 0xFFFFFFFFL);
                read.update(e.buffer(), e.bufferOffset(), e.length());
                count++;
            }
        }
        long readNanos = System.nanoTime() - startNanos;
        assertThat(count).isEqualTo(n);
        assertThat(read.getValue()).as("CRC32 of all bytes read back").isEqualTo(written.getValue());
        t.release();
        assertThat(buffer.memoryUsed()).isZero();
        assertThat(buffer.spilledBytes()).isZero();
        assertThat(store.isEmpty()).as("RocksDB empty after release").isTrue();
        System.out.printf("LargeTransactionTest %s: %d events, %d MB, write %.0f MB/s, read %.0f MB/s, max buffer use %d MB"
                        + " of %d MB, RocksDB %d MB on disk before release, heap max %d MB%n", mode, n, TWO_GB >> 20,
                (TWO_GB >> 20) / (writeNanos / 1e9), (TWO_GB >> 20) / (readNanos / 1e9), maxUse >> 20, limit >> 20,
                diskBytes >> 20, Runtime.getRuntime().maxMemory() >> 20);
    }

    @Test
    void inMemoryBaselineForTheSpillRates() {
        start(Map.of("storage.txnPersistThreshold", "1GB", "storage.persistNewThreshold", "1",
                "storage.persistAllThreshold", "1"));
        long limit = live.current().memoryLimitBytes();
        long size = limit * 3 / 4;
        BufferedTransaction t = buffer.begin("shard-0", "baseline", template.fde);
        long n = 0;
        long startNanos = System.nanoTime();
        while (t.bytes() + EVENT_BYTES < size) {
            t.append(event(n++));
        }
        t.seal();
        long writeNanos = System.nanoTime() - startNanos;
        assertThat(t.eventsOnDisk()).isZero();
        long count = 0;
        startNanos = System.nanoTime();
        try (BufferedTransaction.EventIterator it = t.events()) {
            while (it.hasNext()) {
                assertThat(it.next().header().logPos()).isEqualTo(count++);
            }
        }
        long readNanos = System.nanoTime() - startNanos;
        assertThat(count).isEqualTo(n);
        long mb = t.bytes() >> 20;
        t.release();
        System.out.printf("LargeTransactionTest in memory: %d events, %d MB, write %.0f MB/s, read %.0f MB/s%n", n, mb,
                mb / (writeNanos / 1e9), mb / (readNanos / 1e9));
    }

    @Test
    void withPersistOffATwoGigabyteTransactionFailsClearlyInsteadOfRunningOutOfMemory() {
        start(Map.of("storage.isPersistOn", "false"));
        long limit = live.current().memoryLimitBytes();
        BufferedTransaction t = buffer.begin("shard-3", "0-104-99", template.fde);
        assertThatThrownBy(() -> {
            long n = 0;
            while (t.bytes() < TWO_GB) {
                t.append(event(n++));
            }
        }).isInstanceOf(TransactionBufferFullException.class)
                .hasMessageStartingWith("shard shard-3: transaction 0-104-99 does not fit the buffer: storage.memoryLimit="
                        + ByteSize.format(limit));
        assertThat(buffer.memoryUsed()).isZero();
        assertThat(store.isEmpty()).isTrue();
    }

    @Test
    void settingsEditedInTheMiddleOfALargeTransactionTakeEffectWithoutLoss() {
        start(Map.of("storage.txnPersistThreshold", "1GB"));
        long limit = live.current().memoryLimitBytes();
        BufferedTransaction t = buffer.begin("shard-1", "0-102-7", template.fde);
        long n = 0;
        // 1. AUTO: memory until the new-data threshold, then disk.
        while (t.bytes() < 256L << 20) {
            t.append(event(n++));
        }
        assertThat(t.memoryBytes()).isBetween((long) (0.80 * limit), (long) (0.95 * limit));
        assertThat(t.eventsOnDisk()).isPositive();
        // 2. Lowering the all-data threshold below the use moves everything at once.
        live.apply(Map.of("storage.persistNewThreshold", "0.5", "storage.persistAllThreshold", "0.5"));
        assertThat(t.eventsOnDisk()).isEqualTo(n);
        assertThat(buffer.memoryUsed()).isLessThanOrEqualTo(buffer.chunkBytes());
        // 3. Persisting off: new data stays in memory (well under the limit here).
        live.apply(Map.of("storage.isPersistOn", "false"));
        long onDisk = t.eventsOnDisk();
        for (int i = 0; i < 100; i++) {
            t.append(event(n++));
        }
        assertThat(t.eventsOnDisk()).isEqualTo(onDisk);
        // 4. FORCE: the rest goes to disk.
        live.apply(Map.of("storage.isPersistOn", "true", "storage.persist.mode", "FORCE"));
        while (t.bytes() < 768L << 20) {
            t.append(event(n++));
        }
        assertThat(t.eventsOnDisk()).isEqualTo(n - 100);
        t.seal();
        long count = 0;
        try (BufferedTransaction.EventIterator it = t.events()) {
            while (it.hasNext()) {
                BinlogEvent e = it.next();
                byte[] expected = template.eventBytes(count, EVENT_BYTES);
                assertThat(Arrays.equals(e.buffer(), e.bufferOffset(), e.bufferOffset() + e.length(), expected, 0,
                        expected.length)).as("event %d byte for byte", count).isTrue();
                count++;
            }
        }
        assertThat(count).isEqualTo(n);
        t.release();
        assertThat(store.isEmpty()).isTrue();
        assertThat(buffer.memoryUsed()).isZero();
    }
}
