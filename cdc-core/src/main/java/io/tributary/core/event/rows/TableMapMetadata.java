package io.tributary.core.event.rows;

import io.tributary.core.event.ColumnType;

/**
 * Folds the per-column metadata block of a TABLE_MAP event into the ints {@link ColumnDefinition} uses.
 *
 * <p>The block holds, for each column in order, {@link ColumnType#metadataBytes()} bytes; MySQL's
 * {@code table_def} constructor combines them: 2-byte VARCHAR lengths little-endian, NEWDECIMAL and
 * STRING/ENUM/SET big-endian ({@code byte0 << 8 | byte1}), BIT as {@code byte1 << 8 | byte0}, single bytes
 * as they are. Stateless and thread-safe.
 */
public final class TableMapMetadata {
    private TableMapMetadata() {
    }

    /**
     * @param types  the column types
     * @param block  the metadata block (without its length prefix)
     * @param offset where the block starts in {@code block}
     * @param length the block length
     * @return one metadata int per column
     * @throws RowDecodeException when the block is shorter than the types need
     */
    public static int[] parse(ColumnType[] types, byte[] block, int offset, int length) {
        int[] meta = new int[types.length];
        int pos = offset;
        int end = offset + length;
        for (int i = 0; i < types.length; i++) {
            ColumnType t = types[i];
            int need = t == ColumnType.TYPED_ARRAY ? 1 : t.metadataBytes();
            if (pos + need > end) {
                throw new RowDecodeException("TABLE_MAP metadata block too short at column " + (i + 1) + " (" + t
                        + "): needs " + need + " bytes at block offset " + (pos - offset) + ", block has " + length);
            }
            switch (t) {
                case VARCHAR, VAR_STRING -> meta[i] = u8(block, pos) | u8(block, pos + 1) << 8;
                case BIT -> meta[i] = u8(block, pos) | u8(block, pos + 1) << 8;
                case NEWDECIMAL, STRING, ENUM, SET, DECIMAL -> meta[i] = u8(block, pos) << 8 | u8(block, pos + 1);
                case TYPED_ARRAY -> {
                    ColumnType element = ColumnType.ofCode(u8(block, pos));
                    if (element == null || element == ColumnType.TYPED_ARRAY) {
                        throw new RowDecodeException("TABLE_MAP column " + (i + 1) + ": TYPED_ARRAY of unknown element type "
                                + u8(block, pos));
                    }
                    int[] inner = parse(new ColumnType[] {element}, block, pos + 1, end - pos - 1);
                    meta[i] = inner[0];
                    need = 1 + element.metadataBytes();
                }
                default -> meta[i] = need == 1 ? u8(block, pos) : 0;
            }
            pos += need;
        }
        return meta;
    }

    private static int u8(byte[] b, int i) {
        return b[i] & 0xFF;
    }
}
