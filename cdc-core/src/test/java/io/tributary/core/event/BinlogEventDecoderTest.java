package io.tributary.core.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import org.junit.jupiter.api.Test;

/**
 * Codec tests in the Netty style: take a real event from the corpus, damage it in one place and assert the
 * exact error (what, where, expected against found), or build the variant a server would write and
 * assert the decoder gives back the original.
 */
class BinlogEventDecoderTest {

    private static final String QUERY_FILE = "mysql-5.7/boxercrab__02_query.log.bin";
    private static final String PAYLOAD_FILE = "mysql-8.0/rmc__transaction_compression.000001";
    private static final String AURORA_FILE = "vendor/mbcj__mysql-bin.aurora-padding";
    private static final String MARIA_QUERY_FILE = "mariadb-11.x/mariadbpoc__domain_id_0_mariadb-repl-bin.000009";
    private static final String MARIA_ROWS_FILE = "mariadb-10.x/rmc__mariadb-bin.000001";

    @Test
    void flippedByteGivesChecksumMismatchWithBothChecksums() {
        byte[] bytes = BinlogCorpus.read(QUERY_FILE);
        BinlogEvent query = first(QUERY_FILE, bytes, EventType.QUERY);
        int at = (int) query.offset() + 40;
        bytes[at] ^= 0x01;
        long stored = Bytes.u32(bytes, (int) query.offset() + query.length() - 4);
        CRC32 crc = new CRC32();
        crc.update(bytes, (int) query.offset(), query.length() - 4);

        assertThatThrownBy(() -> decodeAll(QUERY_FILE, bytes, DecoderOptions.FULL))
                .isInstanceOf(BinlogFormatException.class)
                .hasMessage(String.format("%s at offset %d [QUERY(2) event]: checksum mismatch: stored 0x%08x, "
                        + "computed 0x%08x over %d bytes", QUERY_FILE, query.offset(), stored, crc.getValue(),
                        query.length() - 4));
    }

    @Test
    void flippedByteIsNotNoticedWhenChecksumsAreNotVerifiedButBoundsStillHold() {
        byte[] bytes = BinlogCorpus.read(QUERY_FILE);
        BinlogEvent query = first(QUERY_FILE, bytes, EventType.QUERY);
        bytes[(int) query.offset() + EventHeader.LENGTH + 8] = (byte) 200; // db_length now runs past the event
        assertThatThrownBy(() -> decodeAll(QUERY_FILE, bytes, DecoderOptions.FULL.withVerifyChecksums(false)))
                .isInstanceOf(BinlogFormatException.class)
                .hasMessageStartingWith(QUERY_FILE + " at offset " + query.offset() + " [QUERY(2) event]: database name: need 200 bytes");
    }

    @Test
    void truncatedStreamGivesLengthPastTheEnd() {
        byte[] full = BinlogCorpus.read(QUERY_FILE);
        BinlogEvent query = first(QUERY_FILE, full, EventType.QUERY);
        byte[] bytes = Arrays.copyOf(full, (int) query.offset() + 30);

        List<BinlogEvent> before = new ArrayList<>();
        BinlogEventDecoder decoder = new BinlogEventDecoder(QUERY_FILE, bytes);
        assertThatThrownBy(() -> decoder.forEachRemaining(before::add))
                .isInstanceOf(BinlogFormatException.class)
                .hasMessage(QUERY_FILE + " at offset " + query.offset() + " [QUERY(2) event]: length past the end: event declares "
                        + query.length() + " bytes, only 30 remain");
        assertThat(before).hasSizeGreaterThan(0).allMatch(e -> e.offset() < query.offset());
        assertThat(decoder.state()).isEqualTo(BinlogEventDecoder.State.FAILED);
    }

    @Test
    void eventSizeBelowTheHeaderIsRefused() {
        byte[] bytes = BinlogCorpus.read(QUERY_FILE);
        BinlogEvent query = first(QUERY_FILE, bytes, EventType.QUERY);
        Bytes.putU32(bytes, (int) query.offset() + EventHeader.SIZE_OFFSET, 3);
        assertThatThrownBy(() -> decodeAll(QUERY_FILE, bytes, DecoderOptions.FULL))
                .hasMessage(QUERY_FILE + " at offset " + query.offset()
                        + " [QUERY(2) event]: event size 3 is smaller than the 19-byte header");
    }

    @Test
    void formatDescriptionChecksumIgnoresTheInUseFlagButNotOtherFlags() {
        byte[] bytes = BinlogCorpus.read(QUERY_FILE);
        int flags = 4 + EventHeader.FLAGS_OFFSET;
        assertThat(bytes[flags] & EventHeader.LOG_EVENT_BINLOG_IN_USE_F).isZero();

        bytes[flags] |= EventHeader.LOG_EVENT_BINLOG_IN_USE_F;
        List<BinlogEvent> events = decodeAll(QUERY_FILE, bytes, DecoderOptions.FULL);
        assertThat(events.get(0).header().flags() & EventHeader.LOG_EVENT_BINLOG_IN_USE_F).isEqualTo(1);

        bytes[flags] |= 0x02;
        assertThatThrownBy(() -> decodeAll(QUERY_FILE, bytes, DecoderOptions.FULL))
                .hasMessageStartingWith(QUERY_FILE + " at offset 4 [FORMAT_DESCRIPTION(15) event]: checksum mismatch: stored 0x");
    }

    @Test
    void unknownIgnorableEventPassesThroughUntouchedAndUnflaggedOneStopsTheReader() {
        byte[] bytes = BinlogCorpus.read(AURORA_FILE);
        BinlogEvent padding = decodeAll(AURORA_FILE, bytes, DecoderOptions.FULL).stream()
                .filter(e -> e.header().typeCode() == 100).findFirst().orElseThrow();
        assertThat(padding.type()).isNull();
        assertThat(padding.body()).isInstanceOf(OpaqueEvent.class);
        assertThat(padding.rawBytes()).isEqualTo(Arrays.copyOfRange(bytes, (int) padding.offset(),
                (int) padding.offset() + padding.length()));

        int off = (int) padding.offset();
        bytes[off + EventHeader.FLAGS_OFFSET] &= ~EventHeader.LOG_EVENT_IGNORABLE_F;
        fixCrc(bytes, off);
        assertThatThrownBy(() -> decodeAll(AURORA_FILE, bytes, DecoderOptions.FULL))
                .hasMessage(AURORA_FILE + " at offset " + off + " [UNKNOWN(100) event]: unknown event type 100 without the"
                        + " LOG_EVENT_IGNORABLE_F flag (flags 0x0): cannot be skipped safely");
    }

    @Test
    void payloadWithALyingUncompressedSizeIsRefused() {
        byte[] bytes = BinlogCorpus.read(PAYLOAD_FILE);
        int off = payloadOffset(bytes);
        int sizeAt = payloadHeaderValue(bytes, off, 3);
        int real = bytes[sizeAt] & 0xFF;

        byte[] larger = bytes.clone();
        larger[sizeAt] = (byte) 250;
        fixCrc(larger, off);
        assertThatThrownBy(() -> decodeAll(PAYLOAD_FILE, larger, DecoderOptions.FULL))
                .hasMessage(PAYLOAD_FILE + " at offset " + off + " [TRANSACTION_PAYLOAD(40) event]: zstd payload: declared"
                        + " uncompressed size 250, decompressed " + real);

        byte[] smaller = bytes.clone();
        smaller[sizeAt] = (byte) 100;
        fixCrc(smaller, off);
        assertThatThrownBy(() -> decodeAll(PAYLOAD_FILE, smaller, DecoderOptions.FULL))
                .hasMessageStartingWith(PAYLOAD_FILE + " at offset " + off + " [TRANSACTION_PAYLOAD(40) event]: zstd payload:"
                        + " decompression failed");

        assertThatThrownBy(() -> decodeAll(PAYLOAD_FILE, bytes, DecoderOptions.FULL.withMaxDecompressedBytes(real - 1)))
                .hasMessage(PAYLOAD_FILE + " at offset " + off + " [TRANSACTION_PAYLOAD(40) event]: uncompressed size " + real
                        + " exceeds the limit of " + (real - 1) + " bytes");
    }

    @Test
    void payloadIsKeptWhole_whenExpansionIsOff() {
        byte[] bytes = BinlogCorpus.read(PAYLOAD_FILE);
        List<BinlogEvent> events = decodeAll(PAYLOAD_FILE, bytes, DecoderOptions.FULL.withExpand(false));
        BinlogEvent payload = events.stream().filter(e -> e.type() == EventType.TRANSACTION_PAYLOAD).findFirst().orElseThrow();
        TransactionPayloadEvent p = payload.body(TransactionPayloadEvent.class);
        assertThat(p.compressionType()).isEqualTo(TransactionPayloadEvent.COMPRESSION_ZSTD);
        assertThat(p.payloadSize()).isEqualTo(124);
        assertThat(p.uncompressedSize()).isEqualTo(179);
        assertThat(events).noneMatch(BinlogEvent::isFromPayload);
    }

    @Test
    void mariaDbCompressedQueryExpandsToTheOriginalEventByteForByte() {
        byte[] bytes = BinlogCorpus.read(MARIA_QUERY_FILE);
        BinlogEvent original = decodeAll(MARIA_QUERY_FILE, bytes, DecoderOptions.FULL).stream()
                .filter(e -> e.type() == EventType.QUERY && e.body(QueryEvent.class).sql().length() > 20)
                .findFirst().orElseThrow();
        QueryEvent q = original.body(QueryEvent.class);
        byte[] raw = original.rawBytes();
        int sqlStart = raw.length - 4 - q.sql().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        byte[] stream = streamWith(bytes, compress(raw, sqlStart, EventType.QUERY_COMPRESSED, -1));

        List<BinlogEvent> events = decodeAll("compressed", stream, DecoderOptions.FULL);
        BinlogEvent expanded = events.get(1);
        assertThat(expanded.type()).isEqualTo(EventType.QUERY);
        assertThat(expanded.originalTypeCode()).isEqualTo(EventType.QUERY_COMPRESSED.code());
        assertThat(expanded.body(QueryEvent.class).sql()).isEqualTo(q.sql());
        assertThat(expanded.rawBytes()).isEqualTo(raw);
    }

    @Test
    void mariaDbCompressedRowsExpandToTheOriginalEventByteForByte() {
        byte[] bytes = BinlogCorpus.read(MARIA_ROWS_FILE);
        BinlogEvent original = first(MARIA_ROWS_FILE, bytes, EventType.WRITE_ROWS_V1);
        byte[] raw = original.rawBytes();
        RowsEvent rows = original.body(RowsEvent.class);
        int rowsStart = raw.length - original.checksumLength() - rows.rowsLength();
        byte[] stream = streamWith(bytes, compress(raw, rowsStart, EventType.WRITE_ROWS_COMPRESSED_V1, -1));

        BinlogEvent expanded = decodeAll("compressed", stream, DecoderOptions.FULL).get(1);
        assertThat(expanded.type()).isEqualTo(EventType.WRITE_ROWS_V1);
        assertThat(expanded.body(RowsEvent.class).rows()).isEqualTo(rows.rows());
        assertThat(expanded.rawBytes()).isEqualTo(raw);
    }

    @Test
    void mariaDbCompressedEventWithALyingLengthIsRefused() {
        byte[] bytes = BinlogCorpus.read(MARIA_ROWS_FILE);
        BinlogEvent original = first(MARIA_ROWS_FILE, bytes, EventType.WRITE_ROWS_V1);
        byte[] raw = original.rawBytes();
        int rowsStart = raw.length - 4 - original.body(RowsEvent.class).rowsLength();
        long fdeEnd = 4 + Bytes.u32(bytes, 4 + EventHeader.SIZE_OFFSET);

        byte[] huge = streamWith(bytes, compress(raw, rowsStart, EventType.WRITE_ROWS_COMPRESSED_V1, 0xFFFFFFFFL));
        assertThatThrownBy(() -> decodeAll("huge", huge, DecoderOptions.FULL))
                .hasMessage("huge at offset " + fdeEnd + " [WRITE_ROWS_COMPRESSED_V1(166) event]: uncompressed length 4294967295"
                        + " exceeds the limit of " + DecoderOptions.DEFAULT_MAX_DECOMPRESSED_BYTES + " bytes");

        byte[] off = streamWith(bytes, compress(raw, rowsStart, EventType.WRITE_ROWS_COMPRESSED_V1, 1000));
        assertThatThrownBy(() -> decodeAll("lying", off, DecoderOptions.FULL))
                .hasMessageStartingWith("lying at offset " + fdeEnd + " [WRITE_ROWS_COMPRESSED_V1(166) event]: compressed record:"
                        + " declared uncompressed length 1000, inflated ");
    }

    @Test
    void headersOnlyModeYieldsTheSameHeadersAndBytesWithoutBodies() {
        byte[] bytes = BinlogCorpus.read(PAYLOAD_FILE);
        List<BinlogEvent> full = decodeAll(PAYLOAD_FILE, bytes, DecoderOptions.FULL);
        List<BinlogEvent> headers = decodeAll(PAYLOAD_FILE, bytes, DecoderOptions.HEADERS_ONLY);
        assertThat(headers).hasSameSizeAs(full);
        for (int i = 0; i < full.size(); i++) {
            assertThat(headers.get(i).header()).isEqualTo(full.get(i).header());
            assertThat(headers.get(i).raw()).isEqualTo(full.get(i).raw());
            assertThat(headers.get(i).body() == null).isEqualTo(full.get(i).type() != EventType.FORMAT_DESCRIPTION);
        }
    }

    @Test
    void badMagicAndEmptyInputAreNamedWithOffsetZero() {
        assertThatThrownBy(() -> decodeAll("x.bin", new byte[] {1, 2}, DecoderOptions.FULL))
                .hasMessage("x.bin at offset 0: bad magic: expected fe62696e, found 0102 (2 bytes)");
        assertThat(decodeAll("magic-only", BinlogEventDecoder.MAGIC.clone(), DecoderOptions.FULL)).isEmpty();
    }

    @Test
    void firstEventMustBeTheFormatDescription() {
        byte[] bytes = BinlogCorpus.read(QUERY_FILE);
        BinlogEvent query = first(QUERY_FILE, bytes, EventType.QUERY);
        byte[] stream = streamWith(new byte[0], query.rawBytes());
        assertThatThrownBy(() -> decodeAll("nofde", stream, DecoderOptions.FULL))
                .hasMessage("nofde at offset 4 [QUERY(2) event]: expected FORMAT_DESCRIPTION(15) as the first event, found QUERY(2)");
    }

    @Test
    void decodingFromAPositionWithAKnownFormatDescriptionYieldsTheSameTail() {
        String file = "mysql-5.7/mbcj__mysql-bin.checksum-crc32";
        byte[] bytes = BinlogCorpus.read(file);
        List<BinlogEvent> all = decodeAll(file, bytes, DecoderOptions.FULL);
        BinlogEvent from = all.get(all.size() / 2);
        FormatDescription fde = all.get(0).body(FormatDescription.class);

        List<BinlogEvent> tail = new ArrayList<>();
        BinlogEventDecoder.continuing(file, fde, from.offset(), bytes, (int) from.offset(),
                bytes.length - (int) from.offset(), DecoderOptions.FULL).forEachRemaining(tail::add);
        assertThat(tail).containsExactlyElementsOf(all.subList(all.size() / 2, all.size()));

        byte[] damaged = bytes.clone();
        damaged[(int) from.offset() + 25] ^= 0x10;
        assertThatThrownBy(() -> BinlogEventDecoder.continuing(file, fde, from.offset(), damaged, (int) from.offset(),
                damaged.length - (int) from.offset(), DecoderOptions.FULL).forEachRemaining(e -> { }))
                .hasMessageStartingWith(file + " at offset " + from.offset() + " [")
                .hasMessageContaining("checksum mismatch");
    }

    // ---- helpers -------------------------------------------------------------------------------------

    static List<BinlogEvent> decodeAll(String name, byte[] bytes, DecoderOptions options) {
        List<BinlogEvent> events = new ArrayList<>();
        new BinlogEventDecoder(name, bytes, options).forEachRemaining(events::add);
        return events;
    }

    static BinlogEvent first(String name, byte[] bytes, EventType type) {
        return decodeAll(name, bytes, DecoderOptions.FULL).stream().filter(e -> e.type() == type).findFirst().orElseThrow();
    }

    /** Recomputes the CRC32 trailer of the event at {@code off}. */
    static void fixCrc(byte[] bytes, int off) {
        int size = (int) Bytes.u32(bytes, off + EventHeader.SIZE_OFFSET);
        CRC32 crc = new CRC32();
        crc.update(bytes, off, size - 4);
        Bytes.putU32(bytes, off + size - 4, crc.getValue());
    }

    private static int payloadOffset(byte[] bytes) {
        return (int) decodeAll(PAYLOAD_FILE, bytes, DecoderOptions.FULL.withExpand(false)).stream()
                .filter(e -> e.type() == EventType.TRANSACTION_PAYLOAD).findFirst().orElseThrow().offset();
    }

    /** Index of the one-byte value of payload header field {@code field}. */
    private static int payloadHeaderValue(byte[] bytes, int eventOffset, int field) {
        int p = eventOffset + EventHeader.LENGTH;
        while (bytes[p] != 0) {
            int type = bytes[p];
            int length = bytes[p + 1];
            if (type == field) {
                assertThat(length).isEqualTo(1);
                return p + 2;
            }
            p += 2 + length;
        }
        throw new AssertionError("payload header field " + field + " not found");
    }

    /** The stream's magic and FDE (when {@code source} has them) followed by one event. */
    private static byte[] streamWith(byte[] source, byte[] event) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (source.length == 0) {
            out.writeBytes(BinlogEventDecoder.MAGIC);
        } else {
            long fdeSize = Bytes.u32(source, 4 + EventHeader.SIZE_OFFSET);
            out.write(source, 0, 4 + (int) fdeSize);
        }
        out.writeBytes(event);
        return out.toByteArray();
    }

    /**
     * Turns a plain CRC32 event into MariaDB's compressed form: bytes from {@code tailStart} to the checksum
     * become a zlib record with a 4-byte length header (or {@code declaredLength} when not -1).
     */
    private static byte[] compress(byte[] raw, int tailStart, EventType type, long declaredLength) {
        int tailLength = raw.length - 4 - tailStart;
        Deflater deflater = new Deflater();
        deflater.setInput(raw, tailStart, tailLength);
        deflater.finish();
        byte[] buf = new byte[tailLength * 2 + 64];
        int n = deflater.deflate(buf);
        deflater.end();
        long declared = declaredLength < 0 ? tailLength : declaredLength;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(raw, 0, tailStart);
        out.write(0x84);
        out.write((int) (declared >>> 24));
        out.write((int) (declared >>> 16));
        out.write((int) (declared >>> 8));
        out.write((int) declared);
        out.write(buf, 0, n);
        out.writeBytes(new byte[4]);
        byte[] event = out.toByteArray();
        event[EventHeader.TYPE_OFFSET] = (byte) type.code();
        Bytes.putU32(event, EventHeader.SIZE_OFFSET, event.length);
        fixCrc(event, 0);
        return event;
    }
}
