package io.tributary.daemon.cli;

import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.position.ShardPosition;
import io.tributary.storage.binlog.BinlogFiles;
import io.tributary.storage.checkpoint.BinlogCheckpoint;
import io.tributary.storage.checkpoint.CheckpointFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a global binlog directory holds, for people: each file of {@code binlog.index} with its size, GTID range,
 * transaction count and first/last transaction time; the transactions and row events per logical table over all
 * files; the checkpoint's global position and the shard positions it resumes from. The {@code binlog} subcommand
 * prints it ({@link BinlogBrowser}); a running daemon serves the same value as JSON ({@code GET /binlog.json}) for
 * the subcommand's {@code --url} form, e.g.
 * <pre>
 * {"directory":"/var/lib/tributary/binlog",
 *  "files":[{"name":"binlog.000001","size":524288123,"firstGtid":"0-1-1","lastGtid":"0-1-81234","firstSequence":1,
 *            "lastSequence":81234,"transactions":81234,"firstTime":1764144000,"lastTime":1764147600,
 *            "tables":{"shop.orders":{"transactions":81234,"rowEvents":162468}}}],
 *  "tables":{"shop.orders":{"transactions":81234,"rowEvents":162468}},
 *  "checkpoint":{"file":"binlog.000001","position":524288123,"lastSequence":81234,"lastGtid":"0-1-81234",
 *                "shards":[{"shard":"shard-0","file":"mariadb-bin.000007","position":1234,"gtidSet":"0-100-77"}]}}
 * </pre>
 * Times are epoch seconds (UTC); a file with no transaction has null GTIDs. {@code checkpoint} is null when there is
 * none yet. Immutable.
 */
public record BinlogListing(String directory, List<FileSummary> files, Map<String, TableCounts> tables,
        CheckpointSummary checkpoint) {

    /** One file's summary; {@code tables}: the file's own per-table counts (a transaction never spans files). */
    public record FileSummary(String name, long size, String firstGtid, String lastGtid, long firstSequence,
            long lastSequence, int transactions, long firstTime, long lastTime, Map<String, TableCounts> tables) {
    }

    /** A logical table's transactions (those with a row event on it) and row events. */
    public record TableCounts(long transactions, long rowEvents) {
        TableCounts plus(TableCounts o) {
            return new TableCounts(transactions + o.transactions, rowEvents + o.rowEvents);
        }
    }

    /** {@code binlog.checkpoint}: the last durable global position and each shard's resume position. */
    public record CheckpointSummary(String file, long position, long lastSequence, String lastGtid,
            List<ShardResume> shards) {
    }

    /** Where a shard's reader resumes after a restart. */
    public record ShardResume(String shard, String file, long position, String gtidSet) {
    }

    /**
     * Reads {@code dir}. Files named in {@code closedFiles} with the same size are taken from there instead of read
     * again; every file but the last of the index (the one being written) is put there, so a caller that keeps the
     * map (the daemon) reads each rotated file once. Files no longer in the index are removed from the map.
     *
     * @throws IOException naming the directory or file that is missing, unreadable or damaged
     */
    public static BinlogListing read(Path dir, Map<String, FileSummary> closedFiles) throws IOException {
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
        List<String> names = indexedFiles(indexFile);
        Set<String> listed = new HashSet<>(names);
        closedFiles.keySet().removeIf(name -> !listed.contains(name));
        List<FileSummary> files = new ArrayList<>();
        Map<String, TableCounts> tables = new TreeMap<>();
        for (int i = 0; i < names.size(); i++) {
            Path file = dir.resolve(names.get(i));
            FileSummary known = closedFiles.get(names.get(i));
            FileSummary f = known != null && known.size() == Files.size(file) ? known : BinlogFileScan.scan(file);
            if (i < names.size() - 1) {
                closedFiles.put(f.name(), f);
            }
            files.add(f);
            f.tables().forEach((t, c) -> tables.merge(t, c, TableCounts::plus));
        }
        return new BinlogListing(dir.toAbsolutePath().toString(), List.copyOf(files), tables,
                checkpoint.map(c -> summary(c, files)).orElse(null));
    }

    private static CheckpointSummary summary(BinlogCheckpoint c, List<FileSummary> files) {
        List<ShardResume> shards = new ArrayList<>();
        for (ShardCheckpoint s : c.shards().values()) {
            ShardPosition p = s.resumeFrom();
            shards.add(new ShardResume(s.shard(), p.file(), p.position(), p.gtidSet()));
        }
        return new CheckpointSummary(c.file(), c.position(), c.lastSequence(), gtidOf(c.lastSequence(), files), shards);
    }

    /** The GTID of transaction {@code sequence}, in the form of the file holding it; null when no file does. */
    private static String gtidOf(long sequence, List<FileSummary> files) {
        for (FileSummary f : files) {
            if (f.firstGtid() != null && sequence >= f.firstSequence() && sequence <= f.lastSequence()) {
                String first = f.firstGtid();
                int end = first.length();
                while (end > 0 && Character.isDigit(first.charAt(end - 1))) {
                    end--;
                }
                return first.substring(0, end) + sequence; // uuid:N (MySQL) or domain-server-N (MariaDB)
            }
        }
        return null;
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
}
