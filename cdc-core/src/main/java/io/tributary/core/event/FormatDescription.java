package io.tributary.core.event;

import java.util.Arrays;
import java.util.regex.Pattern;

/**
 * FORMAT_DESCRIPTION_EVENT (type 15), the first event of every v4 binlog: it says how to read the rest.
 *
 * <p>Body layout: {@code binlog_version(2) server_version(50, NUL-padded) create_timestamp(4)
 * common_header_length(1) post_header_length[n](1 each)}, then, for servers that know checksums (MySQL
 * &gt;= 5.6.1, MariaDB &gt;= 5.3), {@code checksum_alg(1) crc32(4)}. The FDE's own CRC is computed with
 * {@link EventHeader#LOG_EVENT_BINLOG_IN_USE_F} cleared, since the server sets that flag in place.
 *
 * <p>Pre-GA 5.1/5.2 development trees ({@code 5.1.[1-5]-a_drop5*}, {@code 5.1.4-a_drop6*},
 * {@code 5.2.[0-2]-a_drop6*}) with 22 event types numbered TABLE_MAP and the row events differently;
 * like mysqld, {@link #canonicalTypeCode(int)} maps their raw codes 16-22 to today's and the post-header
 * lengths are stored in today's order.
 *
 * @param binlogVersion      4 for every server since 5.0
 * @param serverVersion      e.g. {@code 8.0.32} or {@code 10.5.15-MariaDB-log}
 * @param createTimestamp    seconds since the epoch; 0 unless this FDE starts a file written from scratch
 * @param headerLength       common header length, 19
 * @param postHeaderLengths  post-header length per event type, index {@code code - 1} (canonical order)
 * @param checksumAlg        {@link #CHECKSUM_NONE_FIELD}, {@link #CHECKSUM_OFF} or {@link #CHECKSUM_CRC32}
 * @param preGaNumbering     whether raw type codes are remapped
 */
public record FormatDescription(int binlogVersion, String serverVersion, long createTimestamp, int headerLength,
        byte[] postHeaderLengths, int checksumAlg, boolean preGaNumbering) implements EventBody {

    /** The FDE has no checksum_alg field (server older than MySQL 5.6.1 / MariaDB 5.3). */
    public static final int CHECKSUM_NONE_FIELD = -1;
    public static final int CHECKSUM_OFF = 0;
    public static final int CHECKSUM_CRC32 = 1;
    /** {@code BINLOG_CHECKSUM_ALG_UNDEF}, written by some relay/fake FDEs; treated as off. */
    public static final int CHECKSUM_UNDEF = 255;
    /** Size of the CRC32 trailer. */
    public static final int CHECKSUM_LENGTH = 4;

    private static final int SERVER_VERSION_LENGTH = 50;
    private static final int FIXED_PART = 2 + SERVER_VERSION_LENGTH + 4 + 1;
    private static final Pattern PRE_GA = Pattern.compile("^(5\\.1\\.[1-5]-a_drop5|5\\.1\\.4-a_drop6|5\\.2\\.[0-2]-a_drop6).*");
    /** Raw code to canonical code for the pre-GA trees, index = raw code. */
    private static final int[] PRE_GA_PERMUTATION = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
        19, 20, 21, 22, 16, 17, 18};

    public FormatDescription {
        postHeaderLengths = postHeaderLengths.clone();
    }

    @Override
    public byte[] postHeaderLengths() {
        return postHeaderLengths.clone();
    }

    /** Post-header length for a canonical type code; 0 for types this FDE does not list. */
    public int postHeaderLength(int typeCode) {
        return typeCode >= 1 && typeCode <= postHeaderLengths.length ? postHeaderLengths[typeCode - 1] & 0xFF : 0;
    }

    /** Whether every event after this FDE (and the FDE itself) ends with a CRC32. */
    public boolean checksumEnabled() {
        return checksumAlg == CHECKSUM_CRC32;
    }

    /** Length of the checksum trailer of events described by this FDE: 4 or 0. */
    public int checksumLength() {
        return checksumEnabled() ? CHECKSUM_LENGTH : 0;
    }

    public boolean isMariaDb() {
        return serverVersion.contains("MariaDB");
    }

    /** The canonical type code for a code as stored in an event header. */
    public int canonicalTypeCode(int rawCode) {
        return preGaNumbering && rawCode < PRE_GA_PERMUTATION.length ? PRE_GA_PERMUTATION[rawCode] : rawCode;
    }

    /** Server version as {@code major*10000 + minor*100 + patch}, from the leading digits. */
    public int versionProduct() {
        return versionProduct(serverVersion);
    }

    static int versionProduct(String version) {
        int[] parts = new int[3];
        int part = 0;
        for (int i = 0; i < version.length() && part < 3; i++) {
            char c = version.charAt(i);
            if (c >= '0' && c <= '9') {
                parts[part] = Math.min(parts[part] * 10 + (c - '0'), 99);
            } else if (c == '.') {
                part++;
            } else {
                break;
            }
        }
        return parts[0] * 10000 + parts[1] * 100 + parts[2];
    }

    /**
     * Parses an FDE body (the bytes after the common header, checksum trailer included when present).
     */
    static FormatDescription parse(byte[] buf, int bodyOffset, int bodyLength) {
        EventReader r = new EventReader(buf, bodyOffset, bodyLength);
        int binlogVersion = r.u16("binlog_version");
        if (binlogVersion != 4) {
            throw new MalformedEventException("unsupported binlog version: expected 4, found " + binlogVersion);
        }
        String version = r.nulTerminatedFixed(SERVER_VERSION_LENGTH);
        long created = r.u32("create_timestamp");
        int headerLength = r.u8("common_header_length");
        if (headerLength < EventHeader.LENGTH) {
            throw new MalformedEventException("common header length: expected at least 19, found " + headerLength);
        }
        int product = versionProduct(version);
        boolean hasAlg = product >= (version.contains("MariaDB") ? 50300 : 50601);
        int types = bodyLength - FIXED_PART - (hasAlg ? 1 + CHECKSUM_LENGTH : 0);
        if (types < 0) {
            throw new MalformedEventException("post-header lengths: body of " + bodyLength
                    + " bytes is too short for server version " + version);
        }
        byte[] lengths = r.bytes(types, "post_header_lengths");
        int alg = CHECKSUM_NONE_FIELD;
        if (hasAlg) {
            alg = r.u8("checksum_alg");
            if (alg != CHECKSUM_OFF && alg != CHECKSUM_CRC32 && alg != CHECKSUM_UNDEF) {
                throw new MalformedEventException("checksum_alg: expected 0 (OFF) or 1 (CRC32), found " + alg);
            }
        }
        boolean preGa = PRE_GA.matcher(version).matches() && types == 22;
        if (preGa) {
            byte[] permuted = new byte[types];
            for (int raw = 1; raw <= types; raw++) {
                permuted[PRE_GA_PERMUTATION[raw] - 1] = lengths[raw - 1];
            }
            lengths = permuted;
        }
        return new FormatDescription(binlogVersion, version, created, headerLength, lengths, alg, preGa);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FormatDescription f && binlogVersion == f.binlogVersion && createTimestamp == f.createTimestamp
                && headerLength == f.headerLength && checksumAlg == f.checksumAlg && preGaNumbering == f.preGaNumbering
                && serverVersion.equals(f.serverVersion) && Arrays.equals(postHeaderLengths, f.postHeaderLengths);
    }

    @Override
    public int hashCode() {
        return serverVersion.hashCode() * 31 + Arrays.hashCode(postHeaderLengths);
    }

    @Override
    public String toString() {
        return "FormatDescription[v" + binlogVersion + ", server=" + serverVersion + ", created=" + createTimestamp
                + ", headerLength=" + headerLength + ", types=" + postHeaderLengths.length + ", checksum="
                + (checksumAlg == CHECKSUM_CRC32 ? "CRC32" : checksumAlg == CHECKSUM_NONE_FIELD ? "n/a" : "OFF")
                + (preGaNumbering ? ", pre-GA numbering" : "") + "]";
    }
}
