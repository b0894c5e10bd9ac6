package io.tributary.core.event;

/**
 * MySQL TRANSACTION_PAYLOAD_EVENT (40), written with {@code binlog_transaction_compression=ON}: a whole
 * transaction's events, compressed. Body: header fields {@code type(packed) length(packed) value(packed)}
 * (1 = payload size, 2 = compression type, 3 = uncompressed size, 0 = end of header), then the payload.
 * The inner events have log_pos 0 and no checksum trailer. {@link BinlogEventDecoder} expands the
 * payload and yields the inner events in its place; this record is what it read from the header.
 *
 * @param compressionType  0 = ZSTD, 255 = NONE
 * @param payloadSize      compressed payload bytes
 * @param uncompressedSize bytes after decompression
 * @param payloadOffset    index of the payload in the event buffer
 */
public record TransactionPayloadEvent(int compressionType, long payloadSize, long uncompressedSize, int payloadOffset)
        implements EventBody {

    public static final int COMPRESSION_ZSTD = 0;
    public static final int COMPRESSION_NONE = 255;

    static TransactionPayloadEvent read(EventReader r) {
        long payloadSize = -1;
        int compression = -1;
        long uncompressed = -1;
        while (r.hasRemaining()) {
            long type = r.packed("payload header field type");
            if (type == 0) {
                break;
            }
            int length = r.packedLength("payload header field length");
            EventReader v = r.slice(length, "payload header field " + type);
            if (type == 1) {
                payloadSize = v.packed("payload size");
            } else if (type == 2) {
                compression = (int) v.packed("compression type");
            } else if (type == 3) {
                uncompressed = v.packed("uncompressed size");
            }
        }
        if (payloadSize < 0) {
            payloadSize = r.remaining();
        }
        if (payloadSize != r.remaining()) {
            throw new MalformedEventException("payload size: header says " + payloadSize + " bytes, event holds "
                    + r.remaining());
        }
        if (compression != COMPRESSION_ZSTD && compression != COMPRESSION_NONE) {
            throw new MalformedEventException("compression type: expected 0 (ZSTD) or 255 (NONE), found " + compression);
        }
        return new TransactionPayloadEvent(compression, payloadSize, uncompressed, r.absolutePosition());
    }
}
