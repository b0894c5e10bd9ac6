package io.tributary.test.dump;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.event.EventType;
import io.tributary.core.event.RowsEvent;
import io.tributary.core.event.TableMapEvent;
import io.tributary.daemon.cli.BinlogBrowser;
import io.tributary.storage.binlog.BinlogIndex;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code tributary binlog DIR} (issue 21, the binlog browser) on a global binlog the project's writer wrote: corpus
 * row transactions over several files, then the browser's report is checked against what was written.
 */
class BinlogBrowserTest {

    private static final int TRANSACTIONS = 400;

    record Result(int exitCode, String out, String err) {
    }

    static Result browse(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = BinlogBrowser.run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @EnumSource(value = BinlogFlavor.class, names = {"MYSQL", "MARIADB"})
    void shouldListFilesGtidsTablesAndTheCheckpointOfAWrittenBinlog(BinlogFlavor flavor, @TempDir Path dir)
            throws Exception {
        CorpusBinlog corpus = CorpusBinlog.forFlavor(flavor);
        List<BinlogIndex.Entry> files;
        String uuid;
        long domain;
        try (GlobalBinlogWriter writer = CorpusBinlog.openWriter(dir, flavor, 16 << 10, "0")) {
            corpus.append(writer, TRANSACTIONS);
            files = writer.index().entries();
            uuid = writer.serverUuid().toString();
            domain = writer.config().domainId();
        }
        assertThat(files).as("the writer rotated").hasSizeGreaterThan(2);

        Result r = browse(dir.toString());

        assertThat(r.exitCode()).as(r.err()).isZero();
        List<String> lines = r.out().lines().toList();
        for (int i = 0; i < files.size(); i++) {
            BinlogIndex.Entry f = files.get(i);
            long first = f.previousSequence() + 1;
            long last = i + 1 < files.size() ? files.get(i + 1).previousSequence() : TRANSACTIONS;
            String line = lines.stream().filter(l -> l.startsWith(f.file() + " ")).findFirst()
                    .orElseThrow(() -> new AssertionError(f.file() + " not listed in\n" + r.out()));
            List<String> cells = List.of(line.strip().split(" +"));
            assertThat(cells.get(1)).as(line).isEqualTo(Long.toString(Files.size(dir.resolve(f.file()))));
            assertThat(cells.get(2)).as(line).isEqualTo(Long.toString(last - first + 1));
            assertThat(cells.get(3)).as(line).isEqualTo(gtid(flavor, uuid, domain, first));
            assertThat(cells.get(4)).as(line).isEqualTo(gtid(flavor, uuid, domain, last));
            assertThat(cells.get(5)).as(line).matches("20\\d\\d-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
        }
        long listed = lines.stream().filter(l -> l.matches("binlog\\.\\d{6} .*")).count();
        assertThat(listed).as("one line per file").isEqualTo(files.size());
        assertThat(r.out()).contains(files.size() + " files, ", TRANSACTIONS + " transactions");

        // transactions and row events per logical table, counted from what was fed
        Map<String, long[]> expected = new TreeMap<>();
        for (long n = 1; n <= TRANSACTIONS; n++) {
            Map<Long, String> ids = new HashMap<>();
            Set<String> touched = new LinkedHashSet<>();
            for (BinlogEvent e : corpus.source(n)) {
                if (e.type() == EventType.TABLE_MAP) {
                    TableMapEvent m = e.body(TableMapEvent.class);
                    ids.put(m.tableId(), "logical_" + m.database() + "." + m.table());
                    touched.add("logical_" + m.database() + "." + m.table());
                } else {
                    expected.computeIfAbsent(ids.get(e.body(RowsEvent.class).tableId()), k -> new long[2])[1]++;
                }
            }
            touched.forEach(t -> expected.computeIfAbsent(t, k -> new long[2])[0]++);
        }
        assertThat(expected).isNotEmpty();
        List<String> tableLines = new ArrayList<>();
        expected.forEach((t, c) -> tableLines.add(t + " " + c[0] + " " + c[1]));
        List<String> printed = lines.stream().filter(l -> l.startsWith("logical_"))
                .map(l -> String.join(" ", l.strip().split(" +"))).toList();
        assertThat(printed).as(r.out()).containsExactlyElementsOf(tableLines);

        // the checkpoint: the last transaction's global position, and shard-0's position after it
        assertThat(r.out()).contains("Checkpoint: global position " + files.get(files.size() - 1).file() + ":",
                "last transaction #" + TRANSACTIONS + " (" + gtid(flavor, uuid, domain, TRANSACTIONS) + ")");
        String shard = lines.stream().filter(l -> l.startsWith("shard-0 ")).findFirst()
                .orElseThrow(() -> new AssertionError("no shard line in\n" + r.out()));
        assertThat(shard.split(" +")).startsWith("shard-0", "shard-0-bin.000001", Long.toString(1000 + TRANSACTIONS));
        System.out.println(r.out());
    }

    /** A file several times the browser's 4 MB read window: events cut by a window's end are read whole in the next. */
    @Test
    void shouldReadAFileLargerThanItsReadWindowEventByEvent(@TempDir Path dir) throws Exception {
        CorpusBinlog corpus = CorpusBinlog.forFlavor(BinlogFlavor.MARIADB);
        long domain;
        int appended = 0;
        try (GlobalBinlogWriter writer = CorpusBinlog.openWriter(dir, BinlogFlavor.MARIADB, 256L << 20, "0")) {
            while (writer.writtenPosition().position() < (13L << 20)) {
                corpus.append(writer, 100);
                appended += 100;
            }
            domain = writer.config().domainId();
            assertThat(writer.index().entries()).as("one file").hasSize(1);
        }
        long size = Files.size(dir.resolve("binlog.000001"));

        Result r = browse(dir.toString());

        assertThat(r.exitCode()).as(r.err()).isZero();
        String line = r.out().lines().filter(l -> l.startsWith("binlog.000001 ")).findFirst().orElseThrow();
        assertThat(line.split(" +")).as(line).startsWith("binlog.000001", Long.toString(size), Integer.toString(appended),
                gtid(BinlogFlavor.MARIADB, null, domain, 1), gtid(BinlogFlavor.MARIADB, null, domain, appended));
        assertThat(r.out()).contains("last transaction #" + appended + " ("
                + gtid(BinlogFlavor.MARIADB, null, domain, appended) + ")");
    }

    @Test
    void shouldRefuseAMissingDirectoryWithExitCode2(@TempDir Path dir) {
        Path missing = dir.resolve("no-such-binlog");

        Result r = browse(missing.toString());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains(missing.toAbsolutePath().toString(), "not a directory");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void shouldRefuseADirectoryWithoutAnIndex(@TempDir Path dir) {
        Result r = browse(dir.toString());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains(dir.toAbsolutePath().toString(), "binlog.index");
    }

    @Test
    void shouldNameTheUrlAndTheFailureWhenNoDaemonListens() throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort(); // closed again: nothing listens there
        }
        String url = "http://127.0.0.1:" + port;

        Result r = browse("--url", url);

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("cannot reach the daemon at " + url + "/binlog.json", "connection refused",
                "server.port");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void shouldRefuseAnAnswerThatIsNotAListing() throws Exception {
        com.sun.net.httpserver.HttpServer other = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
        other.createContext("/", ex -> {
            byte[] body = "<html>some other service</html>".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(ex.getRequestURI().getPath().equals("/binlog.json") ? 200 : 404, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        other.start();
        try {
            String url = "http://127.0.0.1:" + other.getAddress().getPort() + "/";

            Result r = browse(url);

            assertThat(r.exitCode()).isEqualTo(2);
            assertThat(r.err()).contains(url + "binlog.json", "answered something other than a binlog listing",
                    "some other service");
        } finally {
            other.stop(0);
        }
    }

    @Test
    void shouldReadAFileWhoseLastEventIsStillBeingWritten(@TempDir Path dir) throws Exception {
        CorpusBinlog corpus = CorpusBinlog.forFlavor(BinlogFlavor.MYSQL);
        String uuid;
        try (GlobalBinlogWriter writer = CorpusBinlog.openWriter(dir, BinlogFlavor.MYSQL, 1 << 20, "0")) {
            corpus.append(writer, 20);
            uuid = writer.serverUuid().toString();
        }
        Path file = dir.resolve("binlog.000001");
        byte[] bytes = Files.readAllBytes(file);
        // cut into the event after the last GTID: as a reader may see a file while the writer appends to it
        int cut = afterLastGtid(bytes) + 10;
        Files.write(file, java.util.Arrays.copyOf(bytes, cut));

        Result r = browse(dir.toString());

        assertThat(r.exitCode()).as(r.err()).isZero();
        String line = r.out().lines().filter(l -> l.startsWith("binlog.000001 ")).findFirst().orElseThrow();
        assertThat(line.split(" +")).as(line).startsWith("binlog.000001", Integer.toString(cut), "20", uuid + ":1",
                uuid + ":20");
    }

    @Test
    void shouldNameADamagedCheckpoint(@TempDir Path dir) throws Exception {
        CorpusBinlog corpus = CorpusBinlog.forFlavor(BinlogFlavor.MYSQL);
        try (GlobalBinlogWriter writer = CorpusBinlog.openWriter(dir, BinlogFlavor.MYSQL, 1 << 20, "0")) {
            corpus.append(writer, 3);
        }
        Path checkpoint = dir.resolve("binlog.checkpoint");
        Files.writeString(checkpoint, Files.readString(checkpoint).replace("sequence 3", "sequence 4"));

        Result r = browse(dir.toString());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains(checkpoint.toString(), "damaged");
    }

    /** Offset of the end of the last GTID event, found with the core decoder. */
    private static int afterLastGtid(byte[] bytes) {
        long at = -1;
        for (io.tributary.core.event.BinlogEventDecoder d = new io.tributary.core.event.BinlogEventDecoder("t", bytes);
                d.hasNext(); ) {
            BinlogEvent e = d.next();
            if (e.type() == EventType.GTID) {
                at = e.offset() + e.header().eventSize();
            }
        }
        assertThat(at).isPositive();
        return (int) at;
    }

    private static String gtid(BinlogFlavor flavor, String uuid, long domain, long sequence) {
        return flavor.isMariaDb() ? domain + "-7-" + sequence : uuid + ":" + sequence;
    }
}
