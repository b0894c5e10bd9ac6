package io.tributary.storage.schema;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.schema.CreateTableText;
import io.tributary.core.schema.LogicalSchema;
import io.tributary.core.schema.SchemaChange;
import io.tributary.core.schema.SchemaDatabase;
import io.tributary.core.schema.SchemaDdl;
import io.tributary.core.schema.SchemaTable;
import io.tributary.core.schema.TableName;
import io.tributary.storage.checkpoint.CheckpointFile;
import java.io.IOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.zip.CRC32;

/**
 * The logical schema at every global position, stored durably beside the checkpoint ({@code schema.history} in
 * {@code binlog.dir}). An append-only text file, one entry per line:
 * <pre>
 * &lt;kind&gt; &lt;sequence&gt; &lt;binlog file&gt; &lt;end position&gt; &lt;default db&gt; &lt;statement&gt; &lt;server charset&gt; &lt;server collation&gt;
 *   &lt;n&gt; (&lt;database&gt; &lt;charset&gt; &lt;collation&gt;)...  &lt;m&gt; (&lt;database&gt; &lt;table&gt; &lt;CREATE TABLE text&gt;)...  crc &lt;crc32&gt;
 * </pre>
 * values URL-encoded, {@code !} for a dropped database or table, {@code ~} for empty. Kind {@code S} is a snapshot
 * (every database and table, from the shards at the first start: statement {@code !}); kind {@code D} a DDL
 * statement written as global transaction {@code sequence} ending at {@code file:position}, with the definitions of
 * what it touched as they are after it. A table is stored as its {@code SHOW CREATE TABLE} text in the writer's
 * flavor and read back with {@link SchemaDdl}, so the file is readable by an operator too.
 *
 * <p><b>Durability.</b> The writer appends (and fsyncs, unless {@code binlog.sync=none}) the entry of a DDL
 * transaction when it writes the transaction, before the syncer stores the checkpoint that covers it. At start,
 * {@link #open} keeps the entries up to the checkpoint's GTID sequence and truncates the rest (written, never
 * durable: the shards deliver those statements again), and a torn last line. A purge of binlog files leaves the
 * history alone: the schema is never lost with the {@code CREATE TABLE} statements.
 *
 * <p>In memory: the schema after each entry from the durable one on (versions share their tables; older ones are
 * dropped once a newer one is durable, and beyond {@value #VERSIONS_KEPT} versions). Thread-safe: the writer
 * appends, subscribers read.
 */
public final class SchemaHistory {

    /** Versions kept in memory for {@link #at}; the file keeps all. */
    static final int VERSIONS_KEPT = 256;
    private static final String ABSENT = "!";
    private static final String EMPTY = "~";

    private final Path file;
    private final boolean sync;
    private final SchemaDdl ddl;
    private final BinlogFlavor flavor;
    private final TreeMap<Long, LogicalSchema> versions = new TreeMap<>();
    private final List<String> actions = new ArrayList<>();
    private long size;

    private SchemaHistory(Path file, boolean sync, BinlogFlavor flavor) {
        this.file = file;
        this.sync = sync;
        this.flavor = flavor;
        this.ddl = new SchemaDdl(flavor);
    }

    /**
     * Reads the history, keeping entries up to GTID sequence {@code durableSequence} (the checkpoint's) and
     * truncating the file after them.
     *
     * @param fresh the global binlog starts fresh: any history left is deleted
     * @throws IOException naming the file and line when an entry other than the last is damaged
     */
    public static SchemaHistory open(Path file, BinlogFlavor flavor, long durableSequence, boolean fresh, boolean sync)
            throws IOException {
        SchemaHistory h = new SchemaHistory(file, sync, flavor);
        if (fresh && Files.deleteIfExists(file)) {
            h.actions.add("deleted " + file.getFileName() + " left by a global binlog that is gone");
        }
        if (!Files.exists(file)) {
            return h;
        }
        byte[] bytes = Files.readAllBytes(file);
        String text = new String(bytes, StandardCharsets.UTF_8);
        long keep = 0;
        int lineNo = 0;
        int at = 0;
        int entries = 0;
        int dropped = 0;
        LogicalSchema current = null;
        while (at < text.length()) {
            int nl = text.indexOf('\n', at);
            lineNo++;
            if (nl < 0) {
                h.actions.add(file.getFileName() + ": dropped a torn last line (" + (text.length() - at) + " characters)");
                break;
            }
            String line = text.substring(at, nl);
            Entry e;
            try {
                e = h.parse(line, current);
            } catch (RuntimeException | IOException ex) {
                if (text.indexOf('\n', nl + 1) < 0 && nl + 1 >= text.length()) {
                    h.actions.add(file.getFileName() + ": dropped a damaged last line " + lineNo + " (" + ex.getMessage() + ")");
                    break;
                }
                throw new IOException("schema history " + file + " is damaged at line " + lineNo + ": " + ex.getMessage(), ex);
            }
            if (e.sequence() > durableSequence) {
                dropped++;
                at = nl + 1;
                continue;
            }
            if (dropped > 0) {
                throw new IOException("schema history " + file + " line " + lineNo + ": GTID sequence " + e.sequence()
                        + " follows entries after the checkpoint's " + durableSequence);
            }
            current = e.schema();
            h.keep(e.sequence(), current);
            entries++;
            at = nl + 1;
            keep = new String(text.substring(0, at)).getBytes(StandardCharsets.UTF_8).length;
        }
        if (dropped > 0) {
            h.actions.add(file.getFileName() + ": dropped " + dropped + " entries after GTID sequence " + durableSequence
                    + " (written, never durable; the shards deliver those statements again)");
        }
        if (keep < bytes.length) {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ch.truncate(keep);
                ch.force(true);
            }
        }
        h.size = keep;
        if (entries > 0) {
            h.actions.add(file.getFileName() + ": " + entries + " entries, schema as of GTID sequence "
                    + h.versions.lastKey() + ": " + current);
        }
        return h;
    }

    /** What {@link #open} did, for the log. */
    public List<String> actions() {
        return List.copyOf(actions);
    }

    /** Whether a snapshot was ever taken (else the schema is unknown beyond the DDL written since). */
    public synchronized boolean seeded() {
        return !versions.isEmpty();
    }

    /** The schema after the last entry (the written end), or an empty one in the flavor's defaults. */
    public synchronized LogicalSchema latest() {
        return versions.isEmpty() ? emptySchema(flavor) : versions.lastEntry().getValue();
    }

    /**
     * The schema as of the durable GTID sequence {@code sequence}; versions older than the one it returns are
     * dropped from memory (the durable sequence only grows, and the file keeps them).
     */
    public synchronized LogicalSchema durableAt(long sequence) {
        LogicalSchema s = at(sequence);
        Long floor = versions.floorKey(sequence);
        if (floor != null) {
            versions.headMap(floor, false).clear();
        }
        return s;
    }

    /** The schema as of global transaction {@code sequence} (its latest entry at or before it). */
    public synchronized LogicalSchema at(long sequence) {
        Map.Entry<Long, LogicalSchema> e = versions.floorEntry(sequence);
        if (e == null) {
            return versions.isEmpty() ? emptySchema(flavor) : versions.firstEntry().getValue();
        }
        return e.getValue();
    }

    /** The empty schema of a server of this flavor with its default character set. */
    public static LogicalSchema emptySchema(BinlogFlavor flavor) {
        return flavor.isMariaDb() ? LogicalSchema.empty("utf8mb4", "utf8mb4_general_ci")
                : LogicalSchema.empty("utf8mb4", "utf8mb4_0900_ai_ci");
    }

    /** Stores a snapshot (every database and table) as of GTID sequence {@code sequence}. */
    public synchronized void snapshot(long sequence, String binlogFile, long position, LogicalSchema schema)
            throws IOException {
        StringBuilder sb = head("S", sequence, binlogFile, position, "", null, schema);
        sb.append(' ').append(schema.databases().size());
        for (SchemaDatabase d : schema.databases().values()) {
            sb.append(' ').append(enc(d.name())).append(' ').append(enc(d.charset())).append(' ').append(enc(d.collation()));
        }
        sb.append(' ').append(schema.tables().size());
        for (SchemaTable t : schema.tables().values()) {
            sb.append(' ').append(enc(t.name().database())).append(' ').append(enc(t.name().table())).append(' ')
                    .append(enc(CreateTableText.render(t, flavor)));
        }
        write(sb, sequence, schema);
    }

    /** Stores what DDL transaction {@code sequence}, ending at {@code binlogFile:position}, did. */
    public synchronized void append(long sequence, String binlogFile, long position, SchemaChange change)
            throws IOException {
        LogicalSchema after = change.after();
        StringBuilder sb = head("D", sequence, binlogFile, position, change.database(), change.sql(), after);
        sb.append(' ').append(change.databases().size());
        for (String d : new TreeSet<>(change.databases())) {
            Optional<SchemaDatabase> db = after.database(d);
            sb.append(' ').append(enc(d)).append(' ').append(db.map(x -> enc(x.charset())).orElse(ABSENT)).append(' ')
                    .append(db.map(x -> enc(x.collation())).orElse(ABSENT));
        }
        sb.append(' ').append(change.tables().size());
        for (TableName t : new TreeSet<>(change.tables())) {
            sb.append(' ').append(enc(t.database())).append(' ').append(enc(t.table())).append(' ')
                    .append(after.table(t).map(x -> enc(CreateTableText.render(x, flavor))).orElse(ABSENT));
        }
        write(sb, sequence, after);
    }

    private static StringBuilder head(String kind, long sequence, String binlogFile, long position, String db, String sql,
            LogicalSchema s) {
        return new StringBuilder(kind).append(' ').append(sequence).append(' ').append(enc(binlogFile)).append(' ')
                .append(position).append(' ').append(enc(db)).append(' ').append(sql == null ? ABSENT : enc(sql))
                .append(' ').append(enc(s.charset())).append(' ').append(enc(s.collation()));
    }

    private void write(StringBuilder sb, long sequence, LogicalSchema schema) throws IOException {
        CRC32 crc = new CRC32();
        crc.update(sb.toString().getBytes(StandardCharsets.UTF_8));
        sb.append(" crc ").append(crc.getValue()).append('\n');
        byte[] bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
        boolean created = !Files.exists(file);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            try {
                ch.position(size);
                CheckpointFile.writeFully(ch, bytes, sync);
            } catch (IOException e) {
                ch.truncate(size); // never leave half an entry for the next one to follow
                throw e;
            }
        }
        if (created && sync) {
            CheckpointFile.syncDirectory(file.toAbsolutePath().getParent());
        }
        size += bytes.length;
        keep(sequence, schema);
    }

    private void keep(long sequence, LogicalSchema schema) {
        versions.put(sequence, schema);
        while (versions.size() > VERSIONS_KEPT) {
            versions.pollFirstEntry();
        }
    }

    /** One entry read back. */
    private record Entry(long sequence, LogicalSchema schema) {
    }

    private Entry parse(String line, LogicalSchema before) throws IOException {
        int c = line.lastIndexOf(" crc ");
        if (c < 0) {
            throw new IOException("no 'crc' at the end");
        }
        CRC32 crc = new CRC32();
        crc.update(line.substring(0, c).getBytes(StandardCharsets.UTF_8));
        long stored = Long.parseLong(line.substring(c + 5).strip());
        if (crc.getValue() != stored) {
            throw new IOException("CRC32 mismatch: stored " + stored + ", computed " + crc.getValue());
        }
        String[] f = line.substring(0, c).split(" ");
        String kind = f[0];
        long sequence = Long.parseLong(f[1]);
        LogicalSchema s = kind.equals("S") || before == null ? LogicalSchema.empty(dec(f[6]), dec(f[7])) : before;
        if (!kind.equals("S") && !kind.equals("D")) {
            throw new IOException("unknown entry kind '" + kind + "'");
        }
        int i = 8;
        int n = Integer.parseInt(f[i++]);
        for (int k = 0; k < n; k++, i += 3) {
            String name = dec(f[i]);
            s = f[i + 1].equals(ABSENT) ? s.withoutDatabase(name) : s.withDatabase(new SchemaDatabase(name, dec(f[i + 1]),
                    dec(f[i + 2])));
        }
        int m = Integer.parseInt(f[i++]);
        for (int k = 0; k < m; k++, i += 3) {
            TableName t = new TableName(dec(f[i]), dec(f[i + 1]));
            if (f[i + 2].equals(ABSENT)) {
                s = s.withoutTable(t);
            } else {
                s = s.withTable(ddl.parseCreateTable(s, t.database(), dec(f[i + 2])).withName(t));
            }
        }
        if (i != f.length) {
            throw new IOException("expected " + i + " fields, found " + f.length);
        }
        return new Entry(sequence, s);
    }

    private static String enc(String s) {
        return s.isEmpty() ? EMPTY : URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String dec(String s) {
        return s.equals(EMPTY) ? "" : URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    public Path path() {
        return file;
    }
}
