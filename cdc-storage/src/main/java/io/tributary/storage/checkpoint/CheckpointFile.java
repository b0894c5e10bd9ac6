package io.tributary.storage.checkpoint;

import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.transaction.DdlHistory;
import java.io.IOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.zip.CRC32;

/**
 * Stores a {@link BinlogCheckpoint} so that a reader finds either the previous one or the new one, never
 * a mix: write {@code name.tmp}, fsync it, rename it over {@code name} atomically, fsync the directory
 * (the rename itself is durable only then). A CRC32 line over the text catches a file damaged by other
 * means.
 *
 * <p>Text, one record per line, values separated by single spaces, strings URL-encoded (UTF-8) and
 * {@code !} for an absent value, {@code ~} for an empty one; see {@link BinlogCheckpoint} for an example. Lines:
 * {@code tributary-checkpoint 1}, {@code binlog <file> <position>}, {@code sequence <n>}, one
 * {@code shard <name> <file> <position> <gtid set> <n> <key>... <heartbeat> <window> <time>} per shard (the
 * last three: the sorter's {@link ShardCheckpoint.Clock}, without which a restarted sorter would order the
 * re-read units differently and could fix an XA transaction's branches too early), one
 * {@code ddl <key> <written> <n> <source> <copies>...} per statement the DDL deduplication remembers (version 3,
 * oldest first; see {@link io.tributary.core.transaction.DdlHistory}), one {@code shape <token>} per rollout open
 * (version 4: the shapes of the physical tables while a DDL rolls out, oldest first), {@code crc <crc32>}.
 *
 * <p>Not thread-safe: one thread writes (the binlog syncer); reading happens at startup.
 */
public final class CheckpointFile {
    private static final String MAGIC = "tributary-checkpoint";
    /**
     * Version 2 adds each shard's sorter clock, version 3 the {@code ddl} lines, version 4 the {@code shape} lines;
     * older files are still read (no clock, nothing remembered, no rollout open).
     */
    private static final int VERSION = 4;
    private static final String ABSENT = "!";
    /** URL encoding never yields a bare {@code ~} (it writes {@code %7E}), so it can stand for "". */
    private static final String EMPTY = "~";

    private final Path file;
    private final boolean sync;

    /**
     * @param file the checkpoint file
     * @param sync whether to fsync (off only for {@code binlog.sync=none}: then a crash of the machine may
     *             lose the rename, but a crash of the process cannot)
     */
    public CheckpointFile(Path file, boolean sync) {
        this.file = file;
        this.sync = sync;
    }

    public Path path() {
        return file;
    }

    /** Writes all of {@code bytes} at the channel's position, then forces them to disk when {@code sync}. */
    public static void writeFully(FileChannel ch, byte[] bytes, boolean sync) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        while (b.hasRemaining()) {
            ch.write(b);
        }
        if (sync) {
            ch.force(true);
        }
    }

    /** Replaces the stored checkpoint atomically and durably. */
    public void write(BinlogCheckpoint checkpoint) throws IOException {
        byte[] bytes = format(checkpoint).getBytes(StandardCharsets.UTF_8);
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            writeFully(ch, bytes, sync);
        } catch (IOException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        if (sync) {
            syncDirectory(file.toAbsolutePath().getParent());
        }
    }

    /**
     * The stored checkpoint, or empty when there is none.
     *
     * @throws IOException naming the file and line when its content is damaged
     */
    public Optional<BinlogCheckpoint> read() throws IOException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        return Optional.of(parse(text));
    }

    /** fsyncs a directory so that entries created, renamed or deleted in it are durable. */
    public static void syncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    static String format(BinlogCheckpoint c) {
        StringBuilder sb = new StringBuilder();
        sb.append(MAGIC).append(' ').append(VERSION).append('\n');
        sb.append("binlog ").append(enc(c.file())).append(' ').append(c.position()).append('\n');
        sb.append("sequence ").append(c.lastSequence()).append('\n');
        for (ShardCheckpoint s : c.shards().values()) {
            ShardPosition p = s.resumeFrom();
            sb.append("shard ").append(enc(s.shard())).append(' ').append(enc(p.file())).append(' ')
                    .append(p.position()).append(' ').append(enc(p.gtidSet())).append(' ').append(s.writtenAfter().size());
            for (String key : new TreeSet<>(s.writtenAfter())) {
                sb.append(' ').append(enc(key));
            }
            ShardCheckpoint.Clock clock = s.clock();
            sb.append(' ').append(clock.heartbeat()).append(' ').append(clock.window()).append(' ').append(clock.timeMicros());
            sb.append('\n');
        }
        for (DdlHistory.Statement st : c.ddl().statements()) {
            sb.append("ddl ").append(st.key()).append(' ').append(st.written()).append(' ').append(st.copies().size());
            st.copies().forEach((source, n) -> sb.append(' ').append(source).append(' ').append(n));
            sb.append('\n');
        }
        for (String shape : c.ddl().shapes()) {
            sb.append("shape ").append(shape).append('\n');
        }
        long crc = crc(sb.toString());
        sb.append("crc ").append(crc).append('\n');
        return sb.toString();
    }

    BinlogCheckpoint parse(String text) throws IOException {
        String[] lines = text.split("\n");
        if (lines.length < 4 || !lines[lines.length - 1].startsWith("crc ")) {
            throw damaged(lines.length, "expected at least 4 lines ending with 'crc <n>', found " + lines.length
                    + " lines");
        }
        String body = text.substring(0, text.lastIndexOf("crc "));
        long expected = number(lines[lines.length - 1].substring(4), lines.length);
        if (crc(body) != expected) {
            throw damaged(lines.length, "CRC32 mismatch: stored " + expected + ", computed " + crc(body));
        }
        String[] head = fields(lines[0], 2, 1);
        long version = number(head[1], 1);
        if (!head[0].equals(MAGIC) || version < 1 || version > VERSION) {
            throw damaged(1, "expected '" + MAGIC + " 1' to '" + MAGIC + " " + VERSION + "', found '" + lines[0] + "'");
        }
        int clockFields = version >= 2 ? 3 : 0;
        String[] binlog = fields(lines[1], 3, 2);
        String[] sequence = fields(lines[2], 2, 3);
        Map<String, ShardCheckpoint> shards = new LinkedHashMap<>();
        List<DdlHistory.Statement> ddl = new ArrayList<>();
        List<String> shapes = new ArrayList<>();
        for (int i = 3; i < lines.length - 1; i++) {
            String[] f = lines[i].split(" ");
            if (version >= 4 && f[0].equals("shape")) {
                if (f.length != 2) {
                    throw damaged(i + 1, "expected 'shape <token>', found " + f.length + " fields");
                }
                shapes.add(f[1]);
                continue;
            }
            if (!shapes.isEmpty()) {
                throw damaged(i + 1, "expected 'shape' or 'crc' after the 'shape' lines, found '" + lines[i] + "'");
            }
            if (version >= 3 && f[0].equals("ddl")) {
                ddl.add(ddlStatement(f, i + 1));
                continue;
            }
            if (!ddl.isEmpty()) {
                throw damaged(i + 1, "expected 'ddl' or 'crc' after the 'ddl' lines, found '" + lines[i] + "'");
            }
            if (f.length < 6 || !f[0].equals("shard")) {
                throw damaged(i + 1, "expected 'shard <name> <file> <position> <gtids> <n> <keys>', found '" + lines[i] + "'");
            }
            int n = (int) number(f[5], i + 1);
            if (f.length != 6 + n + clockFields) {
                throw damaged(i + 1, "expected " + n + " written-after keys" + (clockFields > 0 ? " and a clock" : "")
                        + ", found " + (f.length - 6) + " fields after the key count");
            }
            Set<String> keys = new TreeSet<>();
            for (int k = 0; k < n; k++) {
                keys.add(dec(f[6 + k]));
            }
            ShardPosition pos = new ShardPosition(dec(f[2]), number(f[3], i + 1), dec(f[4]));
            ShardCheckpoint.Clock clock = clockFields == 0 ? ShardCheckpoint.Clock.START
                    : new ShardCheckpoint.Clock(number(f[6 + n], i + 1), number(f[7 + n], i + 1), number(f[8 + n], i + 1));
            shards.put(dec(f[1]), new ShardCheckpoint(dec(f[1]), pos, keys, clock));
        }
        if (!binlog[0].equals("binlog") || !sequence[0].equals("sequence")) {
            throw damaged(2, "expected 'binlog <file> <position>' and 'sequence <n>'");
        }
        try {
            return new BinlogCheckpoint(dec(binlog[1]), number(binlog[2], 2), number(sequence[1], 3), shards,
                    new DdlHistory(ddl, shapes));
        } catch (IllegalArgumentException e) {
            throw damaged(2, e.getMessage());
        }
    }

    private DdlHistory.Statement ddlStatement(String[] f, int lineNo) throws IOException {
        if (f.length < 4) {
            throw damaged(lineNo, "expected 'ddl <key> <written> <n> <source> <copies>...', found " + f.length + " fields");
        }
        int n = (int) number(f[3], lineNo);
        if (n < 0 || f.length != 4 + 2 * n) {
            throw damaged(lineNo, "expected " + n + " sources with their copy counts, found " + (f.length - 4)
                    + " fields after the source count");
        }
        Map<String, Integer> copies = new LinkedHashMap<>();
        for (int k = 0; k < n; k++) {
            copies.put(f[4 + 2 * k], (int) number(f[5 + 2 * k], lineNo));
        }
        try {
            return new DdlHistory.Statement(f[1], (int) number(f[2], lineNo), copies);
        } catch (IllegalArgumentException e) {
            throw damaged(lineNo, e.getMessage());
        }
    }

    private String[] fields(String line, int count, int lineNo) throws IOException {
        String[] f = line.split(" ");
        if (f.length != count) {
            throw damaged(lineNo, "expected " + count + " fields, found " + f.length + " in '" + line + "'");
        }
        return f;
    }

    private long number(String s, int lineNo) throws IOException {
        try {
            return Long.parseLong(s.strip());
        } catch (NumberFormatException e) {
            throw damaged(lineNo, "expected a number, found '" + s + "'");
        }
    }

    private IOException damaged(int line, String problem) {
        return new IOException("checkpoint " + file + " is damaged at line " + line + ": " + problem);
    }

    private static long crc(String s) {
        CRC32 crc = new CRC32();
        crc.update(s.getBytes(StandardCharsets.UTF_8));
        return crc.getValue();
    }

    private static String enc(String s) {
        return s == null ? ABSENT : s.isEmpty() ? EMPTY : URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String dec(String s) {
        return s.equals(ABSENT) ? null : s.equals(EMPTY) ? "" : URLDecoder.decode(s, StandardCharsets.UTF_8);
    }
}
