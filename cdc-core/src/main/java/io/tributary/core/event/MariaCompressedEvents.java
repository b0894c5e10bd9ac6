package io.tributary.core.event;

import java.util.zip.CRC32;

/**
 * Expands MariaDB's compressed events ({@code log_bin_compress=ON}) into the plain events they stand for,
 * as MariaDB's {@code query_event_uncompress} / {@code row_log_event_uncompress} do.
 *
 * <p>QUERY_COMPRESSED (165): everything up to and including the database name's NUL stays as is; the SQL
 * is a compressed record. Compressed rows (166-171): post-header, v2 extra data, column count and column
 * bitmaps stay as is; the row images are a compressed record. A compressed record is a header byte
 * {@code 0x80 | alg << 4 | lenlen} (alg 0 = zlib), {@code lenlen} bytes of uncompressed length (most
 * significant first), then zlib data. The rebuilt event gets the plain type code, its new size and, if the
 * binlog has checksums, a fresh CRC32.
 */
final class MariaCompressedEvents {

    private MariaCompressedEvents() {
    }

    static byte[] expand(EventType type, byte[] buf, int eventOffset, int eventSize, FormatDescription fde, int max) {
        int crcLength = fde.checksumLength();
        int bodyStart = eventOffset + fde.headerLength();
        int bodyLength = eventSize - fde.headerLength() - crcLength;
        EventReader r = new EventReader(buf, bodyStart, bodyLength);
        int postHeader = fde.postHeaderLength(type.code());
        if (type == EventType.QUERY_COMPRESSED) {
            int post = postHeader == 0 ? 13 : postHeader;
            r.skip(8, "thread_id and exec_time");
            int dbLength = r.u8("db_length");
            r.skip(2, "error_code");
            int statusLength = r.u16("status_vars_length");
            r.skip(post - 13, "query post-header");
            r.skip(statusLength, "status variables");
            r.skip(dbLength + 1L, "database name");
        } else {
            r.skip(postHeader == 6 ? 6 : 8, "table_id and flags");
            if (type.isRowsV2()) {
                int extra = r.u16("extra data length");
                if (extra < 2) {
                    throw new MalformedEventException("extra data length: expected at least 2, found " + extra);
                }
                r.skip(extra - 2, "extra data");
            }
            int columns = r.columnCount("column count");
            int bitmaps = (type.isUpdateRows() ? 2 : 1) * ((columns + 7) / 8);
            r.skip(bitmaps, "column bitmaps");
        }
        int compressedStart = r.absolutePosition();
        int compressedLength = r.remaining();
        int[] headerLength = new int[1];
        int plainLength = Decompression.mariaHeader(buf, compressedStart, compressedLength, headerLength, max);
        int prefix = compressedStart - eventOffset;
        long newSize = (long) prefix + plainLength + crcLength;
        if (newSize > max) {
            throw new MalformedEventException("expanded event of " + newSize + " bytes exceeds the limit of " + max + " bytes");
        }
        byte[] out = new byte[(int) newSize];
        System.arraycopy(buf, eventOffset, out, 0, prefix);
        Decompression.zlib(buf, compressedStart + headerLength[0], compressedLength - headerLength[0], out, prefix,
                plainLength);
        out[EventHeader.TYPE_OFFSET] = (byte) type.uncompressed().code();
        Bytes.putU32(out, EventHeader.SIZE_OFFSET, newSize);
        if (crcLength > 0) {
            CRC32 crc = new CRC32();
            crc.update(out, 0, out.length - crcLength);
            Bytes.putU32(out, out.length - crcLength, crc.getValue());
        }
        return out;
    }
}
