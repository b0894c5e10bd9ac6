package io.tributary.storage.binlog;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The verified part of a file stays one piece from the first event, whatever order readers report their runs in. */
class VerifiedChecksumsTest {

    private static final long FIRST = 126;

    @Test
    void shouldGrowOnlyByRunsThatJoinIt() {
        VerifiedChecksums.Extent e = new VerifiedChecksums().file(1);
        e.extend(500, 900, FIRST);
        assertThat(e.end()).as("a run past the first event, nothing before it").isZero();
        e.extend(FIRST, 500, FIRST);
        assertThat(e.end()).isEqualTo(500);
        e.extend(700, 1200, FIRST);
        assertThat(e.end()).as("a run starting after the end leaves a gap: not joined").isEqualTo(500);
        e.extend(300, 900, FIRST);
        assertThat(e.end()).as("a run overlapping the end").isEqualTo(900);
        e.extend(FIRST, 600, FIRST);
        assertThat(e.end()).as("never shrinks").isEqualTo(900);
    }

    @Test
    void shouldForgetPurgedFilesOnly() {
        VerifiedChecksums v = new VerifiedChecksums();
        v.file(1).extend(FIRST, 1000, FIRST);
        v.file(2).extend(FIRST, 2000, FIRST);
        v.forget(List.of("binlog.000001"));
        assertThat(v.file(1).end()).isZero();
        assertThat(v.file(2).end()).isEqualTo(2000);
    }

    /** Many readers, each reporting runs of one contiguous pass in a random order: the end reaches the last run's. */
    @Test
    void shouldReachTheEndWhenReadersReportConcurrently() throws Exception {
        VerifiedChecksums.Extent e = new VerifiedChecksums().file(7);
        int runs = 2000;
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                List<Integer> order = new ArrayList<>();
                for (int i = 0; i < runs; i++) {
                    order.add(i);
                }
                Collections.shuffle(order, new java.util.Random(t));
                done.add(pool.submit(() -> {
                    // each reader checks the file from the start; its runs reach the extent in its own order
                    for (int i = 0; i < runs; i++) {
                        e.extend(FIRST + i * 100L, FIRST + (i + 1) * 100L, FIRST);
                    }
                    for (int i : order) {
                        e.extend(FIRST + i * 100L, FIRST + (i + 1) * 100L, FIRST);
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(e.end()).isEqualTo(FIRST + runs * 100L);
    }
}
