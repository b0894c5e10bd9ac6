package io.tributary.test.dump;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.event.EventType;
import com.github.shyiko.mysql.binlog.event.GtidEventData;
import io.tributary.core.event.BinlogFlavor;
import io.tributary.daemon.dump.DumpServer;
import io.tributary.daemon.dump.DumpServerConfig;
import io.tributary.daemon.dump.DumpUser;
import io.tributary.storage.binlog.GlobalBinlogWriter;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Fan-out benchmark (run by hand, not by CI): 1, 8 and 64 {@code BinaryLogClient}s tail the dump server while
 * the writer appends real corpus transactions as fast as it can ({@code binlog.sync=none}, so the figure is the
 * dump path's, not the disk's). Reports bytes/s delivered to all subscribers together, the delay from durable
 * to received (p50/p99, per transaction and subscriber), and how many events subscribers read from files
 * (expected: zero, they are served by the shared tail cache).
 *
 * <pre>
 * ./mvnw -q -Pbench -pl cdc-test -am process-test-classes \
 *     -Dbench.main=io.tributary.test.dump.DumpFanOutBenchmark -Dbench.args="--transactions=20000"
 * </pre>
 */
public final class DumpFanOutBenchmark {

    private DumpFanOutBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int transactions = 20_000;
        for (String a : args) {
            if (a.startsWith("--transactions=")) {
                transactions = Integer.parseInt(a.substring("--transactions=".length()));
            }
        }
        System.out.println("subscribers | delivered MB/s (all) | per subscriber MB/s | delay p50 / p99 (ms) | events read from files");
        for (int n : new int[] {1, 8, 64}) {
            run(n, transactions);
        }
    }

    private static void run(int subscribers, int transactions) throws Exception {
        Path dir = Files.createTempDirectory("tributary-fanout");
        CorpusBinlog corpus = CorpusBinlog.forFlavor(BinlogFlavor.MYSQL);
        ConcurrentHashMap<Long, Long> durableAt = new ConcurrentHashMap<>();
        try (GlobalBinlogWriter writer = CorpusBinlog.openWriter(dir, BinlogFlavor.MYSQL, 256L << 20, "0", "none");
             DumpServer server = new DumpServer(DumpServerConfig.defaults(BinlogFlavor.MYSQL, 7,
                     List.of(DumpUser.withPassword("repl", "repl-pass"))).withPort(0), () -> writer).start()) {
            writer.durability().addListener(m -> durableAt.putIfAbsent(m.lastSequence(), System.nanoTime()));
            List<BinaryLogClient> clients = new ArrayList<>();
            AtomicLong bytes = new AtomicLong();
            AtomicLong xids = new AtomicLong();
            long[][] delays = new long[subscribers][transactions];
            for (int i = 0; i < subscribers; i++) {
                int me = i;
                long[] gno = {0};
                int[] k = {0};
                BinaryLogClient c = new BinaryLogClient("127.0.0.1", server.port(), "repl", "repl-pass");
                c.setServerId(2000 + i);
                c.setKeepAlive(false);
                c.registerEventListener(e -> {
                    bytes.addAndGet(e.getHeader().getHeaderLength() + ((com.github.shyiko.mysql.binlog.event.EventHeaderV4)
                            e.getHeader()).getEventLength() - e.getHeader().getHeaderLength());
                    if (e.getHeader().getEventType() == EventType.GTID) {
                        gno[0] = ((GtidEventData) e.getData()).getMySqlGtid().getTransactionId();
                    } else if (e.getHeader().getEventType() == EventType.XID) {
                        Long at = durableAt.get(gno[0]);
                        if (k[0] < delays[me].length) {
                            delays[me][k[0]++] = at == null ? -1 : System.nanoTime() - at;
                        }
                        xids.incrementAndGet();
                    }
                });
                c.connect(10_000);
                clients.add(c);
            }
            long filesBefore = server.eventsReadFromFiles();
            long t0 = System.nanoTime();
            corpus.append(writer, transactions);
            long target = (long) transactions * subscribers;
            while (xids.get() < target) {
                Thread.sleep(1);
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            long files = server.eventsReadFromFiles() - filesBefore;
            for (BinaryLogClient c : clients) {
                c.disconnect();
            }
            long[] all = Arrays.stream(delays).flatMapToLong(Arrays::stream).filter(d -> d >= 0).sorted().toArray();
            double mbs = bytes.get() / seconds / 1e6;
            System.out.printf("%d | %.0f | %.1f | %.2f / %.2f | %d%n", subscribers, mbs, mbs / subscribers,
                    all[all.length / 2] / 1e6, all[(int) (all.length * 0.99)] / 1e6, files);
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
