package io.tributary.storage.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpillStoreTest {

    @TempDir
    Path dir;

    @Test
    void shouldReadATransactionBackInChunkOrderWhateverTheWriteOrder() {
        try (SpillStore store = SpillStore.open(dir.resolve("spill"))) {
            Random random = new Random(42);
            // Interleave three transactions, writing chunk numbers out of order (as moved memory segments are).
            List<Long> order = new ArrayList<>();
            for (long c = 0; c < 300; c++) {
                order.add(c);
            }
            java.util.Collections.shuffle(order, random);
            for (long c : order) {
                for (long t = 0; t < 3; t++) {
                    byte[] v = value(t, c);
                    store.put(t, c * 1000 + (c > 255 ? 1L << 40 : 0), v, v.length);
                }
            }
            for (long t = 0; t < 3; t++) {
                List<byte[]> back = new ArrayList<>();
                try (SpillStore.ChunkIterator it = store.chunks(t)) {
                    it.forEachRemaining(back::add);
                }
                assertThat(back).hasSize(300);
                for (int c = 0; c < 300; c++) {
                    assertThat(back.get(c)).isEqualTo(value(t, c));
                }
            }
            store.delete(1);
            assertThat(store.chunks(1).hasNext()).isFalse();
            assertThat(store.chunks(2).hasNext()).isTrue();
            store.delete(0);
            store.delete(2);
            assertThat(store.isEmpty()).isTrue();
        }
    }

    @Test
    void shouldWipeWhatAPreviousRunLeftAndReportItsSize() {
        Path p = dir.resolve("spill");
        try (SpillStore store = SpillStore.open(p)) {
            byte[] v = new byte[1 << 20];
            new Random(1).nextBytes(v);
            for (int c = 0; c < 8; c++) {
                store.put(7, c, v, v.length);
            }
            assertThat(store.sizeBytes()).isGreaterThanOrEqualTo(8L << 20);
            assertThat(store.isEmpty()).isFalse();
        }
        try (SpillStore store = SpillStore.open(p)) {
            assertThat(store.isEmpty()).isTrue();
            assertThat(store.chunks(7).hasNext()).isFalse();
            assertThat(store.sizeBytes()).isLessThan(1L << 20);
        }
    }

    @Test
    void shouldRefuseToWipeADirectoryItDidNotCreate() throws Exception {
        Path p = dir.resolve("precious");
        Files.createDirectories(p);
        Files.writeString(p.resolve("notes.txt"), "keep me");
        assertThatThrownBy(() -> SpillStore.open(p)).isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("storage.path " + p + " is not empty and holds no TRIBUTARY_SPILL_STORE file");
        assertThat(p.resolve("notes.txt")).hasContent("keep me");
    }

    private static byte[] value(long t, long c) {
        return ("txn " + t + " chunk " + c + " " + "x".repeat((int) (c % 50))).getBytes();
    }
}
