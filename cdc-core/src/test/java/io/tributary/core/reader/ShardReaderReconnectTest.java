package io.tributary.core.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.core.position.ShardPosition;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The reader against a {@link ReplicationSourceFixture} serving a real MariaDB binlog from the
 * corpus that drops the first connection in the middle of a transaction: the sink is told to
 * discard the partial transaction, the reader resumes from the last transaction end, and every
 * transaction arrives exactly once.
 */
class ShardReaderReconnectTest {
    static final String FILE = "tiflow__mariadb-mysql-bin.000001";
    static final String PASSWORD = "fixture-pass";

    private ReplicationSourceFixture source;
    private byte[] binlog;

    @BeforeEach
    void startSource() throws Exception {
        Path file = BinlogStreamTrackerTest.corpus().resolve("mariadb-10.x").resolve(FILE);
        binlog = BinlogStreamTrackerTest.read(file);
        source = new ReplicationSourceFixture(ReplicationSourceFixture.Auth.NATIVE, PASSWORD, binlog);
    }

    @AfterEach
    void stopSource() {
        if (source != null) {
            source.close();
        }
    }

    static ShardReaderConfig config(int port, String password) {
        return new ShardReaderConfig("fixture", "127.0.0.1", port, "cdc", password, 77, ShardPosition.at(FILE, 4),
                Duration.ZERO, false, null, Duration.ofSeconds(5), 1000, 1 << 20,
                new ShardReaderConfig.Backoff(Duration.ofMillis(50), Duration.ofMillis(200), 2.0, 5));
    }

    @Test
    void shouldRewindAPartialTransactionAndDeliverEveryTransactionOnce() throws Exception {
        List<int[]> events = source.events();
        List<String> expected = new ArrayList<>();
        int cut = -1;
        int xids = 0;
        for (int i = 0; i < events.size(); i++) {
            int[] e = events.get(i);
            if (e[2] == 162) {
                expected.add(io.netty.buffer.Unpooled.wrappedBuffer(binlog, e[0] + 19, 8).getLongLE(0) + "");
            }
            if (e[2] == 16 && ++xids == 2) {
                cut = i - 1; // the WRITE_ROWS before the second XID: inside that transaction
            }
        }
        assertThat(cut).isPositive();
        // the fake ROTATE comes first, so the connection carries events 0..cut-1 before it drops
        source.cutFirstConnectionAfter(cut + 1);

        List<String> delivered = new ArrayList<>();
        List<String> pending = new ArrayList<>();
        List<Long> rewinds = new ArrayList<>();
        ShardEventSink sink = new ShardEventSink() {
            @Override
            public synchronized void onEvent(ShardEvent event) {
                if (event.type() == 162) {
                    pending.clear();
                    pending.add(event.bytes().getLongLE(event.bytes().readerIndex() + 19) + "");
                }
                if (event.transactionEnd() && !pending.isEmpty()) {
                    delivered.add(pending.remove(0));
                }
                event.release();
            }

            @Override
            public synchronized void onRewind(ShardPosition restartPosition, long discardedEvents) {
                rewinds.add(discardedEvents);
                pending.clear();
            }
        };
        try (ShardReader reader = new ShardReader(config(source.port(), PASSWORD), sink)) {
            reader.start();
            long deadline = System.currentTimeMillis() + 10_000;
            while (System.currentTimeMillis() < deadline) {
                synchronized (sink) {
                    if (delivered.size() >= expected.size()) {
                        break;
                    }
                }
                Thread.sleep(20);
            }
            int gtidOfCut = cut;
            while (events.get(gtidOfCut)[2] != 162) {
                gtidOfCut--;
            }
            synchronized (sink) {
                assertThat(delivered).as("every transaction exactly once, in order").containsExactlyElementsOf(expected);
                assertThat(rewinds).as("one rewind, dropping the events of the cut transaction delivered before the drop")
                        .containsExactly((long) (cut - gtidOfCut));
            }
            assertThat(reader.connections()).isEqualTo(2);
            // the second dump starts at the GTID event that opened the cut transaction
            assertThat(source.dumpPositions()).containsExactly(4L, (long) events.get(gtidOfCut)[0]);
            assertThat(reader.restartPosition()).isEqualTo(ShardPosition.at(FILE, binlog.length));
        }
    }
}
