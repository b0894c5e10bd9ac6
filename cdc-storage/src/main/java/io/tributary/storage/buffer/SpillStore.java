package io.tributary.storage.buffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.stream.Stream;
import org.rocksdb.CompressionType;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.WriteOptions;

/**
 * The spill area of the transaction buffer: ONE RocksDB instance under {@code storage.path}.
 *
 * <p>Keys are 16 bytes, {@code transactionId(8, big-endian) chunkSequence(8, big-endian)}, so RocksDB's
 * bytewise order is transaction order then chunk order: one bounded iterator reads a transaction back in
 * the order it was written, and one range delete {@code [id:0, id+1:0)} removes it. Values are opaque
 * chunks (the buffer writes concatenated event records).
 *
 * <p>RocksDB here is a spill area, not a store of record (ARCHITECTURE.md): its content can be rebuilt
 * from the shards, so it runs without a write-ahead log and {@link #open} wipes what a previous run left.
 * To avoid wiping a directory that is not ours, {@code open} refuses a non-empty directory without the
 * {@value #MARKER} file it writes itself.
 *
 * <p>Thread-safe (RocksDB is); an iterator belongs to the thread that reads it.
 */
public final class SpillStore implements AutoCloseable {

    /** The file that marks a directory as a Tributary spill store, safe to wipe. */
    public static final String MARKER = "TRIBUTARY_SPILL_STORE";

    static {
        RocksDB.loadLibrary();
    }

    private final Path dir;
    private final Options options;
    private final WriteOptions writeOptions;
    private final RocksDB db;

    private SpillStore(Path dir, Options options, WriteOptions writeOptions, RocksDB db) {
        this.dir = dir;
        this.options = options;
        this.writeOptions = writeOptions;
        this.db = db;
    }

    /**
     * Wipes {@code dir} (when it holds a previous spill store or nothing) and opens a fresh store there.
     *
     * @throws UncheckedIOException when the directory cannot be used, naming it and why
     */
    public static SpillStore open(Path dir) {
        wipe(dir);
        Options options = new Options()
                .setCreateIfMissing(true)
                .setCompressionType(CompressionType.LZ4_COMPRESSION)
                .setWriteBufferSize(64L << 20)
                .setMaxWriteBufferNumber(3);
        WriteOptions writeOptions = new WriteOptions().setDisableWAL(true).setSync(false);
        try {
            RocksDB db = RocksDB.open(options, dir.toString());
            return new SpillStore(dir, options, writeOptions, db);
        } catch (RocksDBException e) {
            writeOptions.close();
            options.close();
            throw new UncheckedIOException(new IOException("cannot open the spill store in " + dir + ": " + e.getMessage(), e));
        }
    }

    private static void wipe(Path dir) {
        try {
            if (Files.isDirectory(dir)) {
                boolean empty;
                try (Stream<Path> s = Files.list(dir)) {
                    empty = s.findAny().isEmpty();
                }
                if (!empty && !Files.exists(dir.resolve(MARKER))) {
                    throw new IOException("storage.path " + dir + " is not empty and holds no " + MARKER
                            + " file: refusing to wipe a directory the spill store did not create");
                }
                try (Stream<Path> s = Files.walk(dir)) {
                    for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                        if (!p.equals(dir)) {
                            Files.delete(p);
                        }
                    }
                }
            }
            Files.createDirectories(dir);
            Files.writeString(dir.resolve(MARKER), "RocksDB spill area of Tributary; wiped at every start.\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e.getMessage() == null ? "cannot prepare the spill store in " + dir
                    : e.getMessage(), e);
        }
    }

    public Path directory() {
        return dir;
    }

    /** Stores one chunk of a transaction; chunks of a transaction read back in sequence order. */
    public void put(long transactionId, long chunkSequence, byte[] chunk, int length) {
        try {
            byte[] key = key(transactionId, chunkSequence);
            db.put(writeOptions, key, 0, key.length, chunk, 0, length);
        } catch (RocksDBException e) {
            throw failure("write " + length + " bytes of transaction " + transactionId, e);
        }
    }

    /** Deletes every chunk of a transaction with one range delete, dropping whole files it covers. */
    public void delete(long transactionId) {
        byte[] from = key(transactionId, 0);
        byte[] to = key(transactionId + 1, 0);
        try {
            db.deleteFilesInRanges(db.getDefaultColumnFamily(), List.of(from, to), false);
            db.deleteRange(writeOptions, from, to);
        } catch (RocksDBException e) {
            throw failure("delete transaction " + transactionId, e);
        }
    }

    /** The chunks of a transaction in sequence order; close it if not read to the end. */
    public ChunkIterator chunks(long transactionId) {
        return new ChunkIterator(transactionId);
    }

    /** Whether no key at all is live in the store (every spilled transaction was deleted). */
    public boolean isEmpty() {
        try (ReadOptions ro = new ReadOptions(); RocksIterator it = db.newIterator(ro)) {
            it.seekToFirst();
            return !it.isValid();
        }
    }

    /** Bytes the store uses: SST files on disk plus memtables. For the {@code tributary.buffer.spilled} gauge. */
    public long sizeBytes() {
        try {
            return db.getLongProperty("rocksdb.total-sst-files-size") + db.getLongProperty("rocksdb.cur-size-all-mem-tables");
        } catch (RocksDBException e) {
            throw failure("read its size", e);
        }
    }

    /** Compacts the whole key space, so that deleted data leaves the disk (tests, idle moments). */
    public void compact() {
        try {
            db.compactRange();
        } catch (RocksDBException e) {
            throw failure("compact", e);
        }
    }

    @Override
    public void close() {
        db.close();
        writeOptions.close();
        options.close();
    }

    static byte[] key(long transactionId, long chunkSequence) {
        byte[] k = new byte[16];
        for (int i = 0; i < 8; i++) {
            k[i] = (byte) (transactionId >>> (56 - 8 * i));
            k[8 + i] = (byte) (chunkSequence >>> (56 - 8 * i));
        }
        return k;
    }

    private UncheckedIOException failure(String what, RocksDBException e) {
        return new UncheckedIOException(new IOException("spill store " + dir + ": cannot " + what + ": " + e.getMessage(), e));
    }

    /** Reads one transaction's chunks with a bounded RocksDB iterator. Not thread-safe. */
    public final class ChunkIterator implements Iterator<byte[]>, AutoCloseable {
        private final Slice lower;
        private final Slice upper;
        private final ReadOptions readOptions;
        private final RocksIterator it;
        private boolean closed;

        private ChunkIterator(long transactionId) {
            lower = new Slice(key(transactionId, 0));
            upper = new Slice(key(transactionId + 1, 0));
            readOptions = new ReadOptions().setIterateLowerBound(lower).setIterateUpperBound(upper)
                    .setFillCache(false).setReadaheadSize(4L << 20);
            it = db.newIterator(readOptions);
            it.seekToFirst();
        }

        @Override
        public boolean hasNext() {
            if (closed) {
                return false;
            }
            if (!it.isValid()) {
                try {
                    it.status();
                } catch (RocksDBException e) {
                    close();
                    throw failure("read back a transaction", e);
                }
                close();
                return false;
            }
            return true;
        }

        @Override
        public byte[] next() {
            if (!hasNext()) {
                throw new NoSuchElementException("no more spilled chunks");
            }
            byte[] value = it.value();
            it.next();
            return value;
        }

        /**
         * Copies the next chunk into {@code into} and moves past it, returning its length; when it does not fit,
         * returns its length with nothing moved (call again with an array that large). Unlike {@link #next()}, no
         * array is made per chunk: a reader that reuses its arrays streams large transactions back without
         * allocating and clearing half a megabyte per chunk.
         */
        public int next(byte[] into) {
            if (!hasNext()) {
                throw new NoSuchElementException("no more spilled chunks");
            }
            int length = it.value(into);
            if (length <= into.length) {
                it.next();
            }
            return length;
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                it.close();
                readOptions.close();
                lower.close();
                upper.close();
            }
        }
    }
}
