package io.tributary.core.event;

import com.github.luben.zstd.Zstd;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * Bounded decompression of MySQL zstd transaction payloads and MariaDB zlib event bodies. A declared
 * size is checked against the cap before anything is allocated, and the data must decompress to exactly
 * the declared size: a lying size field gives an error, never an out-of-memory.
 */
final class Decompression {

    private Decompression() {
    }

    /** Decompresses a zstd frame that must hold exactly {@code declared} bytes (or, if -1, its frame size). */
    static byte[] zstd(byte[] src, int offset, int length, long declared, int max) {
        long size = declared;
        if (size < 0) {
            size = Zstd.getFrameContentSize(src, offset, length);
            if (size < 0) {
                throw new MalformedEventException("zstd payload: no uncompressed size in the event or the frame");
            }
        }
        checkCap(size, max, "uncompressed size");
        byte[] out = new byte[(int) size];
        long n;
        try {
            n = Zstd.decompressByteArray(out, 0, out.length, src, offset, length);
        } catch (RuntimeException e) {
            throw new MalformedEventException("zstd payload: decompression failed (" + e.getMessage()
                    + "); declared uncompressed size " + size, e);
        }
        if (Zstd.isError(n)) {
            throw new MalformedEventException("zstd payload: decompression failed (" + Zstd.getErrorName(n)
                    + "); declared uncompressed size " + size);
        }
        if (n != size) {
            throw new MalformedEventException("zstd payload: declared uncompressed size " + size + ", decompressed " + n);
        }
        return out;
    }

    /**
     * Reads MariaDB's compressed-record header at {@code offset}: one byte {@code 1 alg(3 bits, 0 = zlib)
     * 0 lenlen(3 bits)}, then {@code lenlen} (1-4) bytes of uncompressed length, most significant first.
     *
     * @return the uncompressed length; {@code headerLength[0]} receives the header size
     */
    static int mariaHeader(byte[] src, int offset, int available, int[] headerLength, int max) {
        if (available < 1) {
            throw new MalformedEventException("compressed record: missing header byte");
        }
        int first = src[offset] & 0xFF;
        if ((first & 0x80) == 0) {
            throw new MalformedEventException("compressed record: header byte 0x" + Integer.toHexString(first)
                    + " lacks the compressed bit 0x80");
        }
        int alg = (first >> 4) & 0x07;
        if (alg != 0) {
            throw new MalformedEventException("compressed record: algorithm " + alg + " unknown, expected 0 (zlib)");
        }
        int lenlen = first & 0x07;
        if (lenlen < 1 || lenlen > 4 || available < 1 + lenlen) {
            throw new MalformedEventException("compressed record: length field of " + lenlen + " bytes, expected 1-4 within "
                    + (available - 1) + " bytes");
        }
        long len = 0;
        for (int i = 1; i <= lenlen; i++) {
            len = len << 8 | (src[offset + i] & 0xFF);
        }
        checkCap(len, max, "uncompressed length");
        headerLength[0] = 1 + lenlen;
        return (int) len;
    }

    /** Inflates zlib data into exactly {@code size} bytes of {@code out} starting at {@code outOffset}. */
    static void zlib(byte[] src, int offset, int length, byte[] out, int outOffset, int size) {
        Inflater inflater = new Inflater();
        try {
            inflater.setInput(src, offset, length);
            int total = 0;
            while (total < size) {
                int n = inflater.inflate(out, outOffset + total, size - total);
                if (n == 0 && (inflater.finished() || inflater.needsInput() || inflater.needsDictionary())) {
                    break;
                }
                total += n;
            }
            if (total != size) {
                throw new MalformedEventException("compressed record: declared uncompressed length " + size
                        + ", inflated " + total);
            }
            if (!inflater.finished()) {
                byte[] probe = new byte[1];
                if (inflater.inflate(probe) > 0) {
                    throw new MalformedEventException("compressed record: data inflates past the declared length "
                            + size);
                }
            }
        } catch (DataFormatException e) {
            throw new MalformedEventException("compressed record: bad zlib data (" + e.getMessage() + ")", e);
        } finally {
            inflater.end();
        }
    }

    private static void checkCap(long size, int max, String what) {
        if (size < 0 || size > max) {
            throw new MalformedEventException(what + " " + size + " exceeds the limit of " + max + " bytes");
        }
    }
}
