package io.tributary.daemon.cli;

import io.tributary.daemon.cli.BinlogListing.CheckpointSummary;
import io.tributary.daemon.cli.BinlogListing.FileSummary;
import io.tributary.daemon.cli.BinlogListing.ShardResume;
import io.tributary.storage.binlog.BinlogFiles;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code binlog <dir>} and {@code binlog --url <management URL>}: what a global binlog holds, for people (see
 * {@link BinlogListing}): each file of {@code binlog.index} with its size, first and last GTID, transaction count and
 * first/last transaction time (UTC); the transactions and row events per logical table over all files; the global
 * position of {@code binlog.checkpoint} and the shard positions it resumes from.
 *
 * <p>The directory form reads the files (the daemon may be running or not; a file still being written is read up to
 * its last complete event). The URL form asks a running daemon's management port ({@code GET /binlog.json},
 * {@link DaemonBinlogClient}), which reads its own {@code binlog.dir} the same way; both print the same table.
 */
public final class BinlogBrowser {

    /** Exit code for a missing, unreadable or damaged directory, an unreachable daemon, and bad arguments. */
    public static final int FAILED = 2;

    private static final String USAGE = """
            usage: binlog <binlog.dir>         the global binlog directory (binlog.index, binlog.NNNNNN, binlog.checkpoint)
                   binlog --url <URL>          a running daemon's management port, e.g. http://127.0.0.1:9400
                   binlog http://HOST:PORT     the same""";

    private BinlogBrowser() {
    }

    /** Runs the subcommand; {@code args} are those after {@code binlog}. Returns the process exit code. */
    public static int run(List<String> args, PrintStream out, PrintStream err) {
        String url = null;
        String dir = null;
        if (args.size() == 2 && args.get(0).equals("--url")) {
            url = args.get(1);
        } else if (args.size() == 1 && args.get(0).startsWith("--url=")) {
            url = args.get(0).substring("--url=".length());
        } else if (args.size() == 1 && DaemonBinlogClient.isUrl(args.get(0))) {
            url = args.get(0);
        } else if (args.size() == 1 && !args.get(0).startsWith("-")) {
            dir = args.get(0);
        } else {
            err.println(USAGE);
            return args.size() == 1 && (args.get(0).equals("--help") || args.get(0).equals("-h")) ? 0 : FAILED;
        }
        try {
            if (url != null) {
                BinlogListing listing = DaemonBinlogClient.fetch(url);
                print("Global binlog " + listing.directory() + " (daemon at " + url + ")", listing, out);
            } else {
                BinlogListing listing = BinlogListing.read(Path.of(dir), new HashMap<>());
                print("Global binlog " + listing.directory(), listing, out);
            }
            return 0;
        } catch (IOException | RuntimeException e) {
            err.println("tributary binlog: " + e.getMessage());
            return FAILED;
        }
    }

    static void print(String title, BinlogListing listing, PrintStream out) {
        out.println(title);
        out.println();
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"FILE", "SIZE", "TRANSACTIONS", "FIRST GTID", "LAST GTID", "FIRST TIME (UTC)",
            "LAST TIME (UTC)"});
        long totalSize = 0;
        long totalTxns = 0;
        for (FileSummary f : listing.files()) {
            rows.add(new String[] {f.name(), Long.toString(f.size()), Integer.toString(f.transactions()),
                dash(f.firstGtid()), dash(f.lastGtid()), time(f.firstGtid(), f.firstTime()),
                time(f.lastGtid(), f.lastTime())});
            totalSize += f.size();
            totalTxns += f.transactions();
        }
        table(rows, out);
        out.println(listing.files().size() + " files, " + totalSize + " bytes, " + totalTxns + " transactions");
        out.println();

        List<String[]> tableRows = new ArrayList<>();
        tableRows.add(new String[] {"TABLE", "TRANSACTIONS", "ROW EVENTS"});
        new TreeMap<>(listing.tables() == null ? Map.<String, BinlogListing.TableCounts>of() : listing.tables())
                .forEach((name, c) -> tableRows.add(new String[] {name, Long.toString(c.transactions()),
                    Long.toString(c.rowEvents())}));
        table(tableRows, out);
        out.println();

        CheckpointSummary c = listing.checkpoint();
        if (c == null) {
            out.println("Checkpoint: none (" + BinlogFiles.CHECKPOINT_FILE + " is absent)");
            return;
        }
        out.println("Checkpoint: global position " + c.file() + ":" + c.position() + ", last transaction "
                + (c.lastSequence() == 0 ? "none"
                        : "#" + c.lastSequence() + (c.lastGtid() == null ? "" : " (" + c.lastGtid() + ")")));
        rows = new ArrayList<>();
        rows.add(new String[] {"SHARD", "FILE", "POSITION", "GTID SET"});
        for (ShardResume s : c.shards()) {
            rows.add(new String[] {s.shard(), dash(s.file()), Long.toString(s.position()), dash(s.gtidSet())});
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
