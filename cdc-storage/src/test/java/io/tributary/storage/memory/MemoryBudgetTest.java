package io.tributary.storage.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class MemoryBudgetTest {

    private static final long MB = 1L << 20;

    @Test
    void aSmallHeapKeepsEveryShareInsideIt() {
        MemoryBudget b = MemoryBudget.defaults(512 * MB, 8);
        assertThat(b.transactionBuffer()).isEqualTo(128 * MB);
        assertThat(b.tailCache()).isEqualTo(64 * MB);
        assertThat(b.mergeRing()).isEqualTo(32 * MB);
        assertThat(b.readerReadAhead()).isEqualTo(16 * MB);
        assertThat(b.heapTotal()).isLessThan(b.maxHeap() / 2);
    }

    @Test
    void inFlightSharesAreClampedWhileTheConfiguredOnesAreTakenAsGiven() {
        MemoryBudget tiny = MemoryBudget.defaults(32 * MB, 1);
        assertThat(tiny.mergeRing()).isEqualTo(4 * MB);
        assertThat(tiny.readerReadAhead()).isEqualTo(4 * MB);

        MemoryBudget large = MemoryBudget.of(16L << 30, 10L << 30, 0, 4);
        assertThat(large.mergeRing()).isEqualTo(64 * MB);
        assertThat(large.readerReadAhead()).isEqualTo(64 * MB);
        assertThat(large.transactionBuffer()).isEqualTo(10L << 30);
        assertThat(large.tailCache()).isZero();
        assertThat(MemoryBudget.defaultTailCache(16L << 30)).isEqualTo(256 * MB);
    }

    @Test
    void theStartupLineNamesEveryShareAndTheKeyThatSetsIt() {
        String line = MemoryBudget.of(1L << 30, 300 * MB, 100 * MB, 4).describe();
        assertThat(line).startsWith("memory budget of a 1GB heap: ")
                .contains("transaction buffer 300MB (storage.memoryLimit)", "tail cache 100MB (dump.cache.size)",
                        "merge ring 64MB", "reader read-ahead 4 x 32MB (direct)", "heap shares 464MB (45%)");
    }

    @Test
    void aShareThatIsNotPositiveIsRefusedWithTheShares() {
        assertThatThrownBy(() -> MemoryBudget.of(1L << 30, 0, 0, 2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("transaction buffer 0B");
    }
}
