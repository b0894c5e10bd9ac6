package io.tributary.storage.buffer;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.DecoderOptions;
import io.tributary.core.event.EventType;
import io.tributary.core.event.FormatDescription;
import io.tributary.core.event.RowsEvent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32;

/**
 * Synthetic transactions of any size made from a REAL table map and write-rows event of the binlog corpus:
 * event {@code i} is the template's rows event with its row images repeated to the wanted size, and its
 * {@code log_pos} and timestamp set from {@code i}, so events differ from each other and can be
 * regenerated to compare byte for byte. The checksum trailer is recomputed; each event decodes. Public for
 * the global binlog's large-file test.
 */
public final class RowsEventTemplate {

    /** Corpus files tried in order; the first with a TABLE_MAP followed by WRITE_ROWS is used. */
    private static final List<String> CANDIDATES = List.of("mariadb-11.x/mariadbpoc__domain_id_0_mariadb-repl-bin.000001",
            "mariadb-10.x/tiflow__mariadb-mysql-bin.000001", "mysql-5.7/boxercrab__30_write_rows_v2.log.bin");

    final String file;
    final FormatDescription fde;
    public final BinlogEvent tableMap;
    final BinlogEvent rows;
    private final byte[] prefix;
    private final byte[] rowImages;
    private final int checksumLength;

    private RowsEventTemplate(String file, FormatDescription fde, BinlogEvent tableMap, BinlogEvent rows) {
        this.file = file;
        this.fde = fde;
        this.tableMap = tableMap;
        this.rows = rows;
        RowsEvent body = rows.body(RowsEvent.class);
        this.prefix = Arrays.copyOfRange(rows.buffer(), rows.bufferOffset(), body.rowsOffset());
        this.rowImages = Arrays.copyOfRange(rows.buffer(), body.rowsOffset(), body.rowsOffset() + body.rowsLength());
        this.checksumLength = rows.checksumLength();
    }

    /** The template from the corpus; the calling test is skipped with the reason when the corpus is absent. */
    public static RowsEventTemplate load() {
        String shared = System.getProperty("tributary.shared.dir");
        Path dir = shared == null ? null : Path.of(shared, "testdata", "binlog");
        assumeTrue(dir != null && Files.isDirectory(dir), "binlog corpus not found: system property tributary.shared.dir is "
                + shared + ", expected <shared>/testdata/binlog; tests using real event templates skipped");
        for (String name : CANDIDATES) {
            Path p = dir.resolve(name);
            if (!Files.isRegularFile(p)) {
                continue;
            }
            byte[] bytes;
            try {
                bytes = Files.readAllBytes(p);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            BinlogEventDecoder d = new BinlogEventDecoder(name, bytes, DecoderOptions.FULL);
            BinlogEvent lastMap = null;
            while (d.hasNext()) {
                BinlogEvent e = d.next();
                if (e.type() == EventType.TABLE_MAP) {
                    lastMap = e;
                } else if (lastMap != null && (e.type() == EventType.WRITE_ROWS_V1 || e.type() == EventType.WRITE_ROWS_V2)) {
                    return new RowsEventTemplate(name, d.formatDescription(), lastMap, e);
                }
            }
        }
        throw new IllegalStateException("no corpus file among " + CANDIDATES + " has a TABLE_MAP followed by WRITE_ROWS");
    }

    /** Bytes of event {@code i} of about {@code targetBytes} (at least one row image). */
    byte[] eventBytes(long i, int targetBytes) {
        int copies = Math.max(1, (targetBytes - prefix.length - checksumLength) / rowImages.length);
        int size = prefix.length + copies * rowImages.length + checksumLength;
        byte[] b = new byte[size];
        System.arraycopy(prefix, 0, b, 0, prefix.length);
        for (int c = 0; c < copies; c++) {
            System.arraycopy(rowImages, 0, b, prefix.length + c * rowImages.length, rowImages.length);
        }
        putU32(b, 0, 1_700_000_000L + (i % 100_000));
        putU32(b, 9, size);
        putU32(b, 13, i & 0xFFFFFFFFL);
        if (checksumLength > 0) {
            CRC32 crc = new CRC32();
            crc.update(b, 0, size - 4);
            putU32(b, size - 4, crc.getValue());
        }
        return b;
    }

    /** Event {@code i} decoded as the reader path would hand it over (its own buffer). */
    public BinlogEvent event(long i, int targetBytes, DecoderOptions options) {
        byte[] b = eventBytes(i, targetBytes);
        BinlogEventDecoder d = BinlogEventDecoder.continuing(file, fde, 1_000_000L + i, b, 0, b.length, options);
        return d.next();
    }

    private static void putU32(byte[] b, int at, long v) {
        for (int k = 0; k < 4; k++) {
            b[at + k] = (byte) (v >>> (8 * k));
        }
    }
}
