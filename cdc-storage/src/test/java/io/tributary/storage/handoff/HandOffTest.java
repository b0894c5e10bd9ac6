package io.tributary.storage.handoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.lmax.disruptor.dsl.ProducerType;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class HandOffTest {

    @Test
    void aBlockedConsumerHoldsBackTheProducerAndNothingIsLostOrReordered() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        List<Integer> out = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger published = new AtomicInteger();
        try (HandOff<Integer> h = new HandOff<>("bp", 4, ProducerType.SINGLE, (Integer i) -> {
            awaitQuietly(release);
            out.add(i);
        })) {
            Thread producer = new Thread(() -> {
                for (int i = 0; i < 1000; i++) {
                    h.publish(i);
                    published.incrementAndGet();
                }
            }, "test-producer");
            producer.start();
            Thread.sleep(500);
            int stalledAt = published.get();
            Thread.sleep(300);
            // A ring of 4, and one item in the consumer's hands.
            assertThat(published.get()).as("producer blocked").isEqualTo(stalledAt).isLessThanOrEqualTo(4 + 1);
            assertThat(out).isEmpty();
            release.countDown();
            producer.join(30_000);
            assertThat(producer.isAlive()).isFalse();
        }
        assertThat(out).hasSize(1000);
        for (int i = 0; i < 1000; i++) {
            assertThat(out.get(i)).isEqualTo(i);
        }
    }

    @Test
    void manyProducersKeepTheirOwnOrder() throws Exception {
        List<int[]> out = new ArrayList<>();
        try (HandOff<int[]> h = new HandOff<>("mp", 8, ProducerType.MULTI, (int[] x) -> out.add(x))) {
            List<Thread> producers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int id = t;
                Thread th = new Thread(() -> {
                    for (int i = 0; i < 2500; i++) {
                        h.publish(new int[] {id, i});
                    }
                }, "test-producer-" + t);
                producers.add(th);
                th.start();
            }
            for (Thread th : producers) {
                th.join(30_000);
            }
        }
        assertThat(out).hasSize(10_000);
        int[] next = new int[4];
        for (int[] x : out) {
            assertThat(x[1]).as("producer %d order", x[0]).isEqualTo(next[x[0]]++);
        }
    }

    @Test
    void itemsThatWaitedTogetherEndOneBatchSoAStageThatFellBehindCanDoItsScansOncePerBatch() throws Exception {
        CountDownLatch first = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<Integer> items = Collections.synchronizedList(new ArrayList<>());
        List<Integer> batchEnds = Collections.synchronizedList(new ArrayList<>());
        try (HandOff<Integer> h = new HandOff<>("batch", 256, ProducerType.SINGLE, (Integer i, boolean end) -> {
            if (i == 0) {
                first.countDown();
                awaitQuietly(release);
            }
            items.add(i);
            if (end) {
                batchEnds.add(i);
            }
        })) {
            h.publish(0);
            assertThat(first.await(10, TimeUnit.SECONDS)).isTrue();
            for (int i = 1; i <= 100; i++) {
                h.publish(i); // wait while the consumer is busy with item 0
            }
            release.countDown();
            for (int i = 0; i < 500 && items.size() < 101; i++) {
                Thread.sleep(10);
            }
        }
        assertThat(items).hasSize(101);
        // item 0 ended its own batch; items 1..100 were all waiting, so they are one batch ending at 100
        assertThat(batchEnds).containsExactly(0, 100);
    }

    @Test
    void slotsAreClearedSoNoHandedOverItemStaysReachable() throws Exception {
        CountDownLatch consumed = new CountDownLatch(1);
        WeakReference<byte[]> ref;
        try (HandOff<byte[]> h = new HandOff<>("clear", 4, ProducerType.SINGLE, b -> consumed.countDown())) {
            byte[] big = new byte[32 << 20];
            ref = new WeakReference<>(big);
            h.publish(big);
            big = null;
            assertThat(consumed.await(10, TimeUnit.SECONDS)).isTrue();
            for (int i = 0; i < 50 && ref.get() != null; i++) {
                System.gc();
                Thread.sleep(20);
            }
            assertThat(ref.get()).as("item still referenced from the ring").isNull();
        }
    }

    @Test
    void aFailingStageRefusesLaterItemsWithItsFailureAndReleasesBlockedProducers() throws Exception {
        HandOff<Integer> h = new HandOff<>("fail", 2, ProducerType.MULTI, i -> {
            if (i == 5) {
                throw new IllegalArgumentException("bad item 5");
            }
        });
        Thread producer = new Thread(() -> {
            try {
                for (int i = 0; i < 100_000; i++) {
                    h.publish(i);
                }
            } catch (IllegalStateException expected) {
                // Stops here once the failure is seen.
            }
        });
        producer.start();
        producer.join(30_000);
        assertThat(producer.isAlive()).as("producer released").isFalse();
        assertThat(h.failure()).hasMessage("bad item 5");
        assertThatThrownBy(() -> h.publish(1)).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("stage fail failed; it accepts no more items").hasCauseInstanceOf(IllegalArgumentException.class);
        h.close();
    }

    @Test
    void ringSizesMustBePowersOfTwo() {
        assertThatThrownBy(() -> new HandOff<Integer>("odd", 6, ProducerType.SINGLE, i -> { }))
                .hasMessage("Invalid value 6 for ring size of odd: must be a power of two");
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
