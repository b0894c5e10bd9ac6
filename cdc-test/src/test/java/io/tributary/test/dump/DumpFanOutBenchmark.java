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
import java.util.concurrent.atomic.AtomicLong;

/**
 * Fan-out benchmark (run by hand, not by CI) with 1, 8 and 64 {@code BinaryLogClient}s, over real corpus
 * transactions ({@code binlog.sync=none}, so the figures are the dump path's, not the disk's). Phase 1: the
 * binlog's tail is in the shared cache and every subscriber reads it from the start: bytes/s delivered to all
 * subscribers together. Phase 2: 1000 transactions appended one per millisecond while all tail: delay from
 * durable to received (p50/p99 over every transaction and subscriber). Also: events subscribers read from files
 * (expected: the file header they start with, then none).
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
        if (System.getProperty("tributary.shared.dir") == null) {
            for (String candidate : List.of("../shared", "../../shared")) { // run from the repository or from cdc-test
                if (Files.isDirectory(Path.of(candidate, "testdata", "binlog"))) {
                    System.setProperty("tributary.shared.dir", Path.of(candidate).toAbsolutePath().normalize().toString());
                    break;
                }
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
        java.util.concurrent.ConcurrentSkipListMap<Long, Long> durableAt = new java.util.concurrent.ConcurrentSkipListMap<>();
        try (GlobalBinlogWriter writer = CorpusBinlog.openWriter(dir, BinlogFlavor.MYSQL, 256L << 20, "0", "none");
             DumpServer server = new DumpServer(DumpServerConfig.defaults(BinlogFlavor.MYSQL, 7,
                     List.of(DumpUser.withPassword("repl", "repl-pass"))).withPort(0), () -> writer).start()) {
            writer.durability().addListener(m -> durableAt.putIfAbsent(m.lastSequence(), System.nanoTime()));
            // phase 1 (throughput): the tail is in the cache; every subscriber reads it all from the start
            corpus.append(writer, transactions);
            Thread.sleep(200);
            List<BinaryLogClient> clients = new ArrayList<>();
            AtomicLong bytes = new AtomicLong();
            AtomicLong xids = new AtomicLong();
            int paced = 1000;
            long[][] delays = new long[subscribers][paced];
            long filesBefore = server.eventsReadFromFiles();
            long t0 = System.nanoTime();
            for (int i = 0; i < subscribers; i++) {
                int me = i;
                long[] gno = {0};
                int[] k = {0};
                BinaryLogClient c = new BinaryLogClient("127.0.0.1", server.port(), "repl", "repl-pass");
                c.setServerId(2000 + i);
                c.setKeepAlive(false);
                c.setBinlogFilename("binlog.000001");
                c.setBinlogPosition(4);
                c.registerEventListener(e -> {
                    bytes.addAndGet(((com.github.shyiko.mysql.binlog.event.EventHeaderV4) e.getHeader()).getEventLength());
                    if (e.getHeader().getEventType() == EventType.GTID) {
                        gno[0] = ((GtidEventData) e.getData()).getMySqlGtid().getTransactionId();
                    } else if (e.getHeader().getEventType() == EventType.XID) {
                        if (gno[0] > transactions && k[0] < paced) {
                            var at = durableAt.ceilingEntry(gno[0]); // the publish that made it durable
                            delays[me][k[0]++] = at == null ? 0 : System.nanoTime() - at.getValue();
                        }
                        xids.incrementAndGet();
                    }
                });
                c.connect(10_000);
                clients.add(c);
            }
            long target = (long) transactions * subscribers;
            while (xids.get() < target) {
                Thread.sleep(1);
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            long phase1Bytes = bytes.get();
            // phase 2 (delay): transactions one per millisecond while everyone tails
            for (int i = 0; i < paced; i++) {
                corpus.append(writer, 1);
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
            while (xids.get() < (long) (transactions + paced) * subscribers) {
                Thread.sleep(1);
            }
            long files = server.eventsReadFromFiles() - filesBefore;
            for (BinaryLogClient c : clients) {
                c.disconnect();
            }
            long[] all = Arrays.stream(delays).flatMapToLong(Arrays::stream).sorted().toArray();
            double mbs = phase1Bytes / seconds / 1e6;
            System.out.printf("%d | %.0f | %.1f | %.2f / %.2f | %d (served from the cache: %d)%n", subscribers, mbs,
                    mbs / subscribers, all[all.length / 2] / 1e6, all[(int) (all.length * 0.99)] / 1e6, files,
                    server.eventsServedFromCache());
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
