package io.tributary.core.event;

/**
 * How {@link BinlogEventDecoder} reads a stream.
 *
 * @param decodeBodies         false for the fast headers-only mode (FORMAT_DESCRIPTION is always decoded)
 * @param verifyChecksums      check each event's CRC32 when the format description turns checksums on
 * @param expand               yield the inner events of TRANSACTION_PAYLOAD and plain versions of MariaDB
 *                             compressed events instead of the compressed events; when off, a payload
 *                             decodes to a {@link TransactionPayloadEvent} and a MariaDB compressed event
 *                             to an {@link OpaqueEvent}
 * @param maxDecompressedBytes refuse a payload or compressed event that declares more than this
 */
public record DecoderOptions(boolean decodeBodies, boolean verifyChecksums, boolean expand, int maxDecompressedBytes) {

    /** Default cap on one decompressed payload: 256 MiB. */
    public static final int DEFAULT_MAX_DECOMPRESSED_BYTES = 256 << 20;

    /** Decode everything, verify checksums, expand compressed events. */
    public static final DecoderOptions FULL = new DecoderOptions(true, true, true, DEFAULT_MAX_DECOMPRESSED_BYTES);

    /** Headers and raw bytes only, for the relay path; checksums verified, compressed events expanded. */
    public static final DecoderOptions HEADERS_ONLY = new DecoderOptions(false, true, true, DEFAULT_MAX_DECOMPRESSED_BYTES);

    public DecoderOptions {
        if (maxDecompressedBytes <= 0) {
            throw new IllegalArgumentException("Invalid value " + maxDecompressedBytes
                    + " for maxDecompressedBytes: must be positive");
        }
    }

    public DecoderOptions withMaxDecompressedBytes(int max) {
        return new DecoderOptions(decodeBodies, verifyChecksums, expand, max);
    }

    public DecoderOptions withVerifyChecksums(boolean verify) {
        return new DecoderOptions(decodeBodies, verify, expand, maxDecompressedBytes);
    }

    public DecoderOptions withExpand(boolean expandCompressed) {
        return new DecoderOptions(decodeBodies, verifyChecksums, expandCompressed, maxDecompressedBytes);
    }
}
