package io.tributary.daemon.cli;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.EventHeader;
import io.tributary.core.event.EventType;
import io.tributary.core.event.GtidEvent;
import io.tributary.core.event.MariaGtidEvent;
import io.tributary.core.event.RowsEvent;
import io.tributary.core.event.TableMapEvent;
import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.position.ShardPosition;
import io.tributary.storage.binlog.BinlogFiles;
import io.tributary.storage.checkpoint.BinlogCheckpoint;
import io.tributary.storage.checkpoint.CheckpointFile;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code binlog <dir>}: what a global binlog directory holds, for people. For each file of {@code binlog.index}
 * its size, first and last GTID, transaction count and first/last transaction time (UTC); the transactions and
 * row events per logical table over all files; the global position of {@code binlog.checkpoint} and the shard
 * positions it resumes from. Reads the files only (the daemon may be running or not); a file still being written
 * is read up to its last complete event.
 *
 * <p>Each file is read into memory whole and decoded with the core decoder, so a file larger than 2 GiB (one
 * huge transaction) is refused with a message.
 */
public final class BinlogBrowser {

    /** Exit code for a missing, unreadable or damaged directory (and for bad arguments). */
    public static final int FAILED = 2;

    private static final String USAGE = "usage: binlog <binlog.dir>  (the global binlog directory: binlog.index,"
            + " binlog.NNNNNN, binlog.checkpoint)";

    /** One file's summary. */
    record FileSummary(String name, long size, String firstGtid, String lastGtid, int transactions, long firstTime,
            long lastTime) {
    }

    /** One logical table's counts over all files. */
    static final class TableCounts {
        int transactions;
        long rowEvents;
    }

    private final List<FileSummary> files = new ArrayList<>();
    private final Map<String, TableCounts> tables = new TreeMap<>();
    private final Map<Long, String> gtidBySequence = new HashMap<>();

    private BinlogBrowser() {
    }

    /** Runs the subcommand; {@code args} are those after {@code binlog}. Returns the process exit code. */
    public static int run(List<String> args, PrintStream out, PrintStream err) {
        if (args.size() != 1 || args.get(0).startsWith("-")) {
            err.println(USAGE);
            return args.size() == 1 && (args.get(0).equals("--help") || args.get(0).equals("-h")) ? 0 : FAILED;
        }
        Path dir = Path.of(args.get(0));
        try {
            new BinlogBrowser().browse(dir, out);
            return 0;
        } catch (IOException | RuntimeException e) {
            err.println("tributary binlog: " + e.getMessage());
            return FAILED;
        }
    }

    private void browse(Path dir, PrintStream out) throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new IOException(dir.toAbsolutePath() + " is not a directory (expected the global binlog directory,"
                    + " binlog.dir)");
        }
        Path indexFile = dir.resolve(BinlogFiles.INDEX_FILE);
        if (!Files.isReadable(indexFile)) {
            throw new IOException(dir.toAbsolutePath() + " holds no readable " + BinlogFiles.INDEX_FILE
                    + ": not a global binlog directory");
        }
        Optional<BinlogCheckpoint> checkpoint = new CheckpointFile(dir.resolve(BinlogFiles.CHECKPOINT_FILE), false).read();
        for (String name : indexedFiles(indexFile)) {
            files.add(scan(dir.resolve(name)));
        }
        print(dir, checkpoint, out);
    }

    /** The file names {@code binlog.index} lists (MySQL's format: {@code ./binlog.000001} per line). */
    private static List<String> indexedFiles(Path indexFile) throws IOException {
        List<String> names = new ArrayList<>();
        int lineNo = 0;
        for (String line : Files.readAllLines(indexFile, StandardCharsets.UTF_8)) {
            lineNo++;
            String l = line.strip();
            if (l.isEmpty()) {
                continue;
            }
            String name = Path.of(l).getFileName().toString();
            if (BinlogFiles.fileNumber(name).isEmpty()) {
                throw new IOException(indexFile.toAbsolutePath() + " line " + lineNo + ": '" + l
                        + "' is not a global binlog file name (" + BinlogFiles.fileName(1) + ")");
            }
            names.add(name);
        }
        return names;
    }

    private FileSummary scan(Path file) throws IOException {
        long size = Files.size(file);
        if (size > Integer.MAX_VALUE - 16) {
            throw new IOException(file.toAbsolutePath() + " is " + size + " bytes, more than this browser reads (2 GiB)");
        }
        byte[] bytes = Files.readAllBytes(file);
        String first = null;
        String last = null;
        int transactions = 0;
        long firstTime = 0;
        long lastTime = 0;
        Map<Long, String> tableIds = new HashMap<>();
        Set<String> touched = new LinkedHashSet<>();
        BinlogEventDecoder d = new BinlogEventDecoder(file.getFileName().toString(), bytes);
        while (true) {
            BinlogEvent e;
            try {
                if (!d.hasNext()) {
                    break;
                }
                e = d.next();
            } catch (RuntimeException ex) {
                if (d.position() > 4 && isTruncation(bytes, d.position())) {
                    break; // the writer's current file: its last event is still being written
                }
                throw new IOException(file.toAbsolutePath() + ": " + ex.getMessage(), ex);
            }
            EventType type = e.type();
            if (type == EventType.GTID || type == EventType.MARIA_GTID) {
                countTables(touched);
                tableIds.clear();
                String gtid;
                long sequence;
                if (type == EventType.GTID) {
                    GtidEvent g = e.body(GtidEvent.class);
                    gtid = g.gtid();
                    sequence = g.gno();
                } else {
                    MariaGtidEvent g = e.body(MariaGtidEvent.class);
                    gtid = g.gtid();
                    sequence = g.sequence();
                }
                gtidBySequence.put(sequence, gtid);
                if (first == null) {
                    first = gtid;
                    firstTime = e.header().timestamp();
                }
                last = gtid;
                lastTime = e.header().timestamp();
                transactions++;
            } else if (type == EventType.TABLE_MAP) {
                TableMapEvent m = e.body(TableMapEvent.class);
                String name = m.database() + "." + m.table();
                tableIds.put(m.tableId(), name);
                touched.add(name);
            } else if (type != null && type.isRows()) {
                String name = tableIds.get(RowsEvent.tableIdOf(e));
                tables.computeIfAbsent(name == null ? "(unmapped table id)" : name, k -> new TableCounts()).rowEvents++;
            }
        }
        countTables(touched);
        return new FileSummary(file.getFileName().toString(), size, first, last, transactions, firstTime, lastTime);
    }

    /** Whether the bytes from {@code at} are an event header whose event runs past the end of the file. */
    private static boolean isTruncation(byte[] bytes, long at) {
        if (at + EventHeader.LENGTH > bytes.length) {
            return true;
        }
        long size = EventHeader.parse(bytes, (int) at).eventSize();
        return at + size > bytes.length;
    }

    private void countTables(Set<String> touched) {
        for (String t : touched) {
            tables.computeIfAbsent(t, k -> new TableCounts()).transactions++;
        }
        touched.clear();
    }

    private void print(Path dir, Optional<BinlogCheckpoint> checkpoint, PrintStream out) {
        out.println("Global binlog " + dir.toAbsolutePath());
        out.println();
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"FILE", "SIZE", "TRANSACTIONS", "FIRST GTID", "LAST GTID", "FIRST TIME (UTC)",
            "LAST TIME (UTC)"});
        long totalSize = 0;
        long totalTxns = 0;
        for (FileSummary f : files) {
            rows.add(new String[] {f.name(), Long.toString(f.size()), Integer.toString(f.transactions()),
                dash(f.firstGtid()), dash(f.lastGtid()), time(f.firstGtid(), f.firstTime()),
                time(f.lastGtid(), f.lastTime())});
            totalSize += f.size();
            totalTxns += f.transactions();
        }
        table(rows, out);
        out.println(files.size() + " files, " + totalSize + " bytes, " + totalTxns + " transactions");
        out.println();

        List<String[]> tableRows = new ArrayList<>();
        tableRows.add(new String[] {"TABLE", "TRANSACTIONS", "ROW EVENTS"});
        tables.forEach((name, c) -> tableRows.add(new String[] {name, Integer.toString(c.transactions),
            Long.toString(c.rowEvents)}));
        table(tableRows, out);
        out.println();

        if (checkpoint.isEmpty()) {
            out.println("Checkpoint: none (" + BinlogFiles.CHECKPOINT_FILE + " is absent)");
            return;
        }
        BinlogCheckpoint c = checkpoint.get();
        String gtid = gtidBySequence.get(c.lastSequence());
        out.println("Checkpoint: global position " + c.file() + ":" + c.position() + ", last transaction "
                + (c.lastSequence() == 0 ? "none" : "#" + c.lastSequence() + (gtid == null ? "" : " (" + gtid + ")")));
        rows = new ArrayList<>();
        rows.add(new String[] {"SHARD", "FILE", "POSITION", "GTID SET"});
        for (ShardCheckpoint s : c.shards().values()) {
            ShardPosition p = s.resumeFrom();
            rows.add(new String[] {s.shard(), dash(p.file()), Long.toString(p.position()), dash(p.gtidSet())});
        }
        table(rows, out);
    }

    private static String dash(String s) {
        return s == null || s.isEmpty() ? "-" : s;
    }

    private static String time(String gtid, long epochSeconds) {
        return gtid == null ? "-" : Instant.ofEpochSecond(epochSeconds).toString();
    }

    /** Prints rows in columns padded to the widest cell; numbers are right-aligned. */
    private static void table(List<String[]> rows, PrintStream out) {
        int[] width = new int[rows.get(0).length];
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        for (int row = 0; row < rows.size(); row++) {
            String[] r = rows.get(row);
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < r.length; i++) {
                boolean number = row > 0 && r[i].matches("\\d+");
                String cell = number ? " ".repeat(width[i] - r[i].length()) + r[i]
                        : i == r.length - 1 ? r[i] : r[i] + " ".repeat(width[i] - r[i].length());
                sb.append(i == 0 ? "" : "  ").append(cell);
            }
            out.println(sb.toString().stripTrailing());
        }
    }
}
