package io.tributary.test.bench;

import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDeserializer;
import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.DecoderOptions;
import io.tributary.core.event.EventHeader;
import io.tributary.core.event.EventType;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Reads the same real shard binlog bytes through Tributary's relay path and through
 * mysql-binlog-connector-java's {@link EventDeserializer} (what Debezium, Maxwell and Flink CDC run), in
 * one JVM and one thread, alternating the two, and prints events/s, MB/s and the ratio.
 *
 * <p>Topology: one thread, input already in memory (no disk, no network), so the figures are the
 * decoders' own. Tributary's relay path: the v4 header of every event, its CRC32 checked, TRANSACTION_PAYLOAD
 * expanded, and for table maps and row events the table id read (the field the merger rewrites); row
 * images are not decoded. The peer deserializes every event fully, as its users do.
 *
 * <p>Run: {@code ./mvnw -q -Pbench -pl cdc-test -am process-test-classes -Dbench.args="--size-mb=1024"}.
 * Options: {@code --size-mb=N} shard binlog size (default 1024), {@code --rounds=N} measured rounds per
 * reader (default 3, after one warm-up round each).
 */
public final class RelayReadBenchmark {

    /** One measured pass over the input. */
    record Pass(String reader, long events, long bytes, long nanos) {
        double eventsPerSecond() {
            return events / (nanos / 1e9);
        }

        double megabytesPerSecond() {
            return bytes / 1e6 / (nanos / 1e9);
        }
    }

    private RelayReadBenchmark() {
    }

    public static void main(String[] args) {
        long sizeMb = 1024;
        int rounds = 3;
        for (String arg : args) {
            if (arg.startsWith("--size-mb=")) {
                sizeMb = Long.parseLong(arg.substring("--size-mb=".length()));
            } else if (arg.startsWith("--rounds=")) {
                rounds = Integer.parseInt(arg.substring("--rounds=".length()));
            } else if (!arg.isBlank()) {
                throw new IllegalArgumentException("Unknown option " + arg + ": allowed are --size-mb=N, --rounds=N");
            }
        }
        run(sizeMb << 20, rounds, System.out);
    }

    static void run(long targetBytes, int rounds, PrintStream out) {
        List<Path> files = ShardBinlogGenerator.binlogOfAtLeast(targetBytes, out);
        List<byte[]> inputs = new ArrayList<>();
        long total = 0;
        for (Path f : files) {
            try {
                byte[] b = Files.readAllBytes(f);
                inputs.add(b);
                total += b.length;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        out.printf(Locale.ROOT, "Input: %d real MariaDB 10.11 binlog file(s), %.1f MB, in memory%n", files.size(), total / 1e6);
        List<Pass> ours = new ArrayList<>();
        List<Pass> peer = new ArrayList<>();
        for (int round = 0; round <= rounds; round++) {
            Pass a = relayPath(inputs, total);
            Pass b = peerDeserializer(inputs, total);
            String label = round == 0 ? "warm-up" : "round " + round;
            out.printf(Locale.ROOT, "  %-8s tributary relay %,12.0f events/s %8.1f MB/s | connector-java %,12.0f events/s %8.1f MB/s%n",
                    label, a.eventsPerSecond(), a.megabytesPerSecond(), b.eventsPerSecond(), b.megabytesPerSecond());
            if (a.events() != b.events()) {
                throw new IllegalStateException("the readers disagree on the event count: " + a.events() + " vs " + b.events());
            }
            if (round > 0) {
                ours.add(a);
                peer.add(b);
            }
        }
        Pass o = median(ours);
        Pass p = median(peer);
        out.println();
        out.println("| reader (1 thread) | events | events/s | MB/s |");
        out.println("|---|---:|---:|---:|");
        out.printf(Locale.ROOT, "| Tributary relay path | %,d | %,.0f | %.1f |%n", o.events(), o.eventsPerSecond(), o.megabytesPerSecond());
        out.printf(Locale.ROOT, "| mysql-binlog-connector-java 0.41.0 | %,d | %,.0f | %.1f |%n", p.events(), p.eventsPerSecond(), p.megabytesPerSecond());
        out.printf(Locale.ROOT, "Ratio (median of %d rounds): %.2fx events/s; relay path %.2f GB/s%n", rounds,
                o.eventsPerSecond() / p.eventsPerSecond(), o.megabytesPerSecond() / 1000);
    }

    private static Pass relayPath(List<byte[]> inputs, long total) {
        long events = 0;
        long tableIds = 0;
        long start = System.nanoTime();
        for (int i = 0; i < inputs.size(); i++) {
            byte[] in = inputs.get(i);
            BinlogEventDecoder decoder = new BinlogEventDecoder("bench-" + i, in, DecoderOptions.HEADERS_ONLY);
            while (decoder.hasNext()) {
                BinlogEvent e = decoder.next();
                events++;
                if (carriesTableId(e.type())) {
                    tableIds += tableId(e.buffer(), e.bufferOffset() + EventHeader.LENGTH);
                }
            }
        }
        long nanos = System.nanoTime() - start;
        if (tableIds == 0) {
            throw new IllegalStateException("no table ids read: the relay path did no work");
        }
        return new Pass("tributary", events, total, nanos);
    }

    private static Pass peerDeserializer(List<byte[]> inputs, long total) {
        long events = 0;
        long start = System.nanoTime();
        try {
            for (byte[] in : inputs) {
                EventDeserializer deserializer = new EventDeserializer();
                var stream = new com.github.shyiko.mysql.binlog.io.ByteArrayInputStream(
                        new java.io.ByteArrayInputStream(in, 4, in.length - 4));
                for (Event e = deserializer.nextEvent(stream); e != null; e = deserializer.nextEvent(stream)) {
                    events++;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Pass("connector-java", events, total, System.nanoTime() - start);
    }

    private static boolean carriesTableId(EventType t) {
        return t != null && switch (t) {
            case TABLE_MAP, WRITE_ROWS_V1, UPDATE_ROWS_V1, DELETE_ROWS_V1, WRITE_ROWS_V2, UPDATE_ROWS_V2, DELETE_ROWS_V2 -> true;
            default -> false;
        };
    }

    private static long tableId(byte[] b, int o) {
        return (b[o] & 0xFFL) | (b[o + 1] & 0xFFL) << 8 | (b[o + 2] & 0xFFL) << 16 | (b[o + 3] & 0xFFL) << 24
                | (b[o + 4] & 0xFFL) << 32 | (b[o + 5] & 0xFFL) << 40;
    }

    private static Pass median(List<Pass> passes) {
        Pass[] sorted = passes.toArray(new Pass[0]);
        Arrays.sort(sorted, (x, y) -> Long.compare(x.nanos(), y.nanos()));
        return sorted[sorted.length / 2];
    }
}
