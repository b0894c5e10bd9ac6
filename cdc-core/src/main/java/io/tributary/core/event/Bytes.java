package io.tributary.core.event;

/** Little-endian reads and writes on byte arrays; callers check bounds first. */
final class Bytes {

    private Bytes() {
    }

    static int u16(byte[] b, int o) {
        return (b[o] & 0xFF) | (b[o + 1] & 0xFF) << 8;
    }

    static long u32(byte[] b, int o) {
        return ((b[o] & 0xFFL) | (b[o + 1] & 0xFFL) << 8 | (b[o + 2] & 0xFFL) << 16 | (b[o + 3] & 0xFFL) << 24);
    }

    static long uN(byte[] b, int o, int n) {
        long v = 0;
        for (int i = n - 1; i >= 0; i--) {
            v = v << 8 | (b[o + i] & 0xFF);
        }
        return v;
    }

    static void putU32(byte[] b, int o, long v) {
        b[o] = (byte) v;
        b[o + 1] = (byte) (v >>> 8);
        b[o + 2] = (byte) (v >>> 16);
        b[o + 3] = (byte) (v >>> 24);
    }

    static long u64(byte[] b, int o) {
        return u32(b, o) | u32(b, o + 4) << 32;
    }

    static void putU64(byte[] b, int o, long v) {
        putU32(b, o, v);
        putU32(b, o + 4, v >>> 32);
    }
}
