package io.tributary.core.event.rows;

import com.github.luben.zstd.Zstd;
import io.tributary.core.event.ColumnType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;

/**
 * A minimal binlog walker for tests: just enough framing (19-byte header, event_size, the format
 * description's checksum algorithm, TRANSACTION_PAYLOAD expansion) and TABLE_MAP parsing (column types,
 * metadata, optional signedness/charset/names/enum/set metadata) to feed rows events to
 * {@link RowImageDecoder}. The real codec lives in {@code io.tributary.core.event}.
 */
final class CorpusWalker {
    static final int TABLE_MAP = 19;
    static final int FORMAT_DESCRIPTION = 15;
    static final int TRANSACTION_PAYLOAD = 40;

    /** One rows event ready for the decoder. */
    record RowsEvent(String file, long offset, int type, TableColumns table, RowsImageLayout layout, BitSet columns,
                     BitSet afterColumns, byte[] body, int rowsOffset, int rowsLength) {
    }

    /** Events the walker skipped because their table used a column type it does not know. */
    final List<String> skipped = new ArrayList<>();
    final List<RowsEvent> rowsEvents = new ArrayList<>();
    private final Map<Long, TableColumns> tables = new HashMap<>();
    private final String fileName;
    private int tableIdBytes = 6;

    private CorpusWalker(String fileName) {
        this.fileName = fileName;
    }

    static byte[] readBinlog(Path file) throws IOException {
        if (file.toString().endsWith(".gz")) {
            try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
                return in.readAllBytes();
            }
        }
        return Files.readAllBytes(file);
    }

    static CorpusWalker walk(String fileName, byte[] data) {
        CorpusWalker w = new CorpusWalker(fileName);
        if (data.length < 4 || (data[0] & 0xFF) != 0xFE || data[1] != 'b' || data[2] != 'i' || data[3] != 'n') {
            throw new IllegalStateException(fileName + ": bad magic");
        }
        w.events(data, 4, data.length, false, true);
        return w;
    }

    private boolean crc;
    /** Pre-GA 5.1/5.2 development servers number events differently; such files are not walked. */
    boolean preGa;

    private void events(byte[] data, int pos, int end, boolean inner, boolean allowFde) {
        while (pos + 19 <= end) {
            int type = data[pos + 4] & 0xFF;
            long size = le(data, pos + 9, 4);
            if (size < 19 || pos + size > end) {
                return;   // truncated tail: framing errors are the event codec's business
            }
            int bodyStart = pos + 19;
            int bodyEnd = (int) (pos + size) - (crc && !inner ? 4 : 0);
            if (type == FORMAT_DESCRIPTION && allowFde) {
                formatDescription(data, bodyStart, (int) (pos + size));
                if (preGa) {
                    return;
                }
            } else if (type == TABLE_MAP) {
                tableMap(data, bodyStart, bodyEnd);
            } else if (rowsLayout(type) != null) {
                rows(type, pos, data, bodyStart, bodyEnd);
            } else if (type == TRANSACTION_PAYLOAD) {
                payload(data, bodyStart, bodyEnd);
            }
            pos += (int) size;
        }
    }

    private void formatDescription(byte[] d, int start, int end) {
        String version = new String(d, start + 2, 50, StandardCharsets.ISO_8859_1).trim().replace("\0", "");
        int[] v = versionNumbers(version);
        boolean hasAlg = v[0] * 10000 + v[1] * 100 + v[2] >= 50601 || version.contains("MariaDB");
        crc = hasAlg && d[end - 5] == 1;
        preGa = version.contains("a_drop");
        int headerLength = d[start + 2 + 50 + 4] & 0xFF;
        int postHeaders = start + 2 + 50 + 4 + 1;
        int tableMapPostHeader = d[postHeaders + TABLE_MAP - 1] & 0xFF;
        tableIdBytes = tableMapPostHeader == 6 ? 4 : 6;
        if (headerLength != 19) {
            throw new IllegalStateException(fileName + ": common header length " + headerLength);
        }
    }

    static int[] versionNumbers(String version) {
        int[] v = new int[3];
        String[] parts = version.split("[^0-9]+", 4);
        for (int i = 0; i < 3 && i < parts.length; i++) {
            v[i] = parts[i].isEmpty() ? 0 : Integer.parseInt(parts[i]);
        }
        return v;
    }

    private void payload(byte[] d, int start, int end) {
        int pos = start;
        long uncompressed = -1;
        long compression = -1;
        while (pos < end) {
            long[] t = lenenc(d, pos);
            pos = (int) t[1];
            if (t[0] == 0) {
                break;
            }
            long[] l = lenenc(d, pos);
            pos = (int) l[1];
            long value = lenenc(d, pos)[0];
            if (t[0] == 2) {
                compression = value;
            } else if (t[0] == 3) {
                uncompressed = value;
            }
            pos += (int) l[0];
        }
        byte[] compressed = java.util.Arrays.copyOfRange(d, pos, end);
        byte[] plain = compression == 0
                ? Zstd.decompress(compressed, (int) uncompressed)
                : compressed;
        events(plain, 0, plain.length, true, false);
    }

    private void tableMap(byte[] d, int start, int end) {
        int pos = start;
        long tableId = le(d, pos, tableIdBytes);
        pos += tableIdBytes + 2;
        int dbLen = d[pos] & 0xFF;
        String db = new String(d, pos + 1, dbLen, StandardCharsets.UTF_8);
        pos += 1 + dbLen + 1;
        int tLen = d[pos] & 0xFF;
        String table = new String(d, pos + 1, tLen, StandardCharsets.UTF_8);
        pos += 1 + tLen + 1;
        long[] n = lenenc(d, pos);
        pos = (int) n[1];
        int count = (int) n[0];
        ColumnType[] types = new ColumnType[count];
        boolean known = true;
        for (int i = 0; i < count; i++) {
            types[i] = ColumnType.ofCode(d[pos + i] & 0xFF);
            known &= types[i] != null;
        }
        pos += count;
        String name = db + "." + table;
        if (!known) {
            tables.remove(tableId);
            skipped.add(fileName + ": table " + name + " has a column type code this build does not know");
            return;
        }
        long[] metaLen = lenenc(d, pos);
        pos = (int) metaLen[1];
        int[] meta = TableMapMetadata.parse(types, d, pos, (int) metaLen[0]);
        pos += (int) metaLen[0];
        pos += (count + 7) / 8;
        List<ColumnDefinition> cols = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            cols.add(ColumnDefinition.of(types[i], meta[i]));
        }
        optionalMetadata(d, pos, end, cols);
        tables.put(tableId, new TableColumns(name, cols));
    }

    private static void optionalMetadata(byte[] d, int pos, int end, List<ColumnDefinition> cols) {
        boolean[] unsigned = new boolean[cols.size()];
        int[] charset = new int[cols.size()];
        java.util.Arrays.fill(charset, ColumnDefinition.UNKNOWN_CHARSET);
        String[] names = new String[cols.size()];
        List<List<String>> enums = new ArrayList<>();
        List<List<String>> sets = new ArrayList<>();
        List<Integer> numeric = new ArrayList<>();
        List<Integer> character = new ArrayList<>();
        for (int i = 0; i < cols.size(); i++) {
            ColumnType t = cols.get(i).storedType();
            switch (t) {
                case TINY, SHORT, INT24, LONG, LONGLONG, NEWDECIMAL, FLOAT, DOUBLE -> numeric.add(i);
                case STRING, VARCHAR, VAR_STRING, BLOB -> character.add(i);
                default -> { }
            }
        }
        while (pos < end) {
            int type = d[pos] & 0xFF;
            long[] len = lenenc(d, pos + 1);
            int vpos = (int) len[1];
            int vend = vpos + (int) len[0];
            switch (type) {
                case 1 -> {
                    for (int k = 0; k < numeric.size(); k++) {
                        unsigned[numeric.get(k)] = (d[vpos + k / 8] & (0x80 >> (k % 8))) != 0;
                    }
                }
                case 2 -> {
                    long[] def = lenenc(d, vpos);
                    for (int c : character) {
                        charset[c] = (int) def[0];
                    }
                    int p = (int) def[1];
                    while (p < vend) {
                        long[] idx = lenenc(d, p);
                        long[] coll = lenenc(d, (int) idx[1]);
                        if (idx[0] < character.size()) {
                            charset[character.get((int) idx[0])] = (int) coll[0];
                        }
                        p = (int) coll[1];
                    }
                }
                case 3 -> {
                    int p = vpos;
                    for (int c : character) {
                        long[] coll = lenenc(d, p);
                        charset[c] = (int) coll[0];
                        p = (int) coll[1];
                    }
                }
                case 4 -> {
                    int p = vpos;
                    for (int c = 0; c < cols.size() && p < vend; c++) {
                        long[] l = lenenc(d, p);
                        names[c] = new String(d, (int) l[1], (int) l[0], StandardCharsets.UTF_8);
                        p = (int) (l[1] + l[0]);
                    }
                }
                case 5, 6 -> {
                    int p = vpos;
                    List<List<String>> target = type == 5 ? sets : enums;
                    while (p < vend) {
                        long[] cnt = lenenc(d, p);
                        p = (int) cnt[1];
                        List<String> values = new ArrayList<>();
                        for (int k = 0; k < cnt[0]; k++) {
                            long[] l = lenenc(d, p);
                            values.add(new String(d, (int) l[1], (int) l[0], StandardCharsets.UTF_8));
                            p = (int) (l[1] + l[0]);
                        }
                        target.add(values);
                    }
                }
                default -> { }
            }
            pos = vend;
        }
        int e = 0;
        int s = 0;
        for (int i = 0; i < cols.size(); i++) {
            ColumnDefinition c = cols.get(i).with(unsigned[i], charset[i], names[i]);
            if (c.storedType() == ColumnType.ENUM && e < enums.size()) {
                c = c.withValues(enums.get(e++), null);
            } else if (c.storedType() == ColumnType.SET && s < sets.size()) {
                c = c.withValues(null, sets.get(s++));
            }
            cols.set(i, c);
        }
    }

    static RowsImageLayout rowsLayout(int type) {
        return switch (type) {
            case 23, 30 -> RowsImageLayout.WRITE;
            case 24, 31 -> RowsImageLayout.UPDATE;
            case 25, 32 -> RowsImageLayout.DELETE;
            case 39 -> RowsImageLayout.PARTIAL_UPDATE;
            default -> null;
        };
    }

    private void rows(int type, long offset, byte[] d, int start, int end) {
        int pos = start;
        long tableId = le(d, pos, tableIdBytes);
        pos += tableIdBytes + 2;
        if (type >= 30) {
            int extra = (int) le(d, pos, 2);
            pos += extra;
        }
        long[] w = lenenc(d, pos);
        pos = (int) w[1];
        int width = (int) w[0];
        int bitmapBytes = (width + 7) / 8;
        BitSet cols = BitSet.valueOf(java.util.Arrays.copyOfRange(d, pos, pos + bitmapBytes)).get(0, width);
        pos += bitmapBytes;
        BitSet after = null;
        RowsImageLayout layout = rowsLayout(type);
        if (layout == RowsImageLayout.UPDATE || layout == RowsImageLayout.PARTIAL_UPDATE) {
            after = BitSet.valueOf(java.util.Arrays.copyOfRange(d, pos, pos + bitmapBytes)).get(0, width);
            pos += bitmapBytes;
        }
        TableColumns table = tables.get(tableId);
        if (table == null) {
            skipped.add(fileName + "@" + offset + ": rows event for unmapped table id " + tableId);
            return;
        }
        rowsEvents.add(new RowsEvent(fileName, offset, type, table, layout, cols, after, d, pos, end - pos));
    }

    static long le(byte[] b, int pos, int n) {
        long v = 0;
        for (int i = n - 1; i >= 0; i--) {
            v = v << 8 | (b[pos + i] & 0xFF);
        }
        return v;
    }

    /** {value, position after}. */
    static long[] lenenc(byte[] b, int pos) {
        int first = b[pos] & 0xFF;
        return switch (first) {
            case 252 -> new long[] {le(b, pos + 1, 2), pos + 3};
            case 253 -> new long[] {le(b, pos + 1, 3), pos + 4};
            case 254 -> new long[] {le(b, pos + 1, 8), pos + 9};
            default -> new long[] {first, pos + 1};
        };
    }

    static byte[] concat(List<byte[]> parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        parts.forEach(out::writeBytes);
        return out.toByteArray();
    }
}
