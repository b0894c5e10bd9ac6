package io.tributary.core.event;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.BitSet;

/**
 * Row events of every generation: PRE_GA (20-22), v1 (23-25), v2 (30-32), PARTIAL_UPDATE_ROWS (39) and
 * MariaDB's compressed variants after expansion. Post-header: {@code table_id(6)} (4 bytes when the FDE's
 * post-header length is 6) {@code flags(2)}, and in v2 {@code extra_length(2)} followed by
 * {@code extra_length - 2} bytes of extra data; body: {@code column_count(packed) columns_present} and,
 * for updates, {@code columns_present_after}, then the row images.
 *
 * <p>The row images are NOT decoded here ({@code io.tributary.core.event.rows} does that with the
 * matching {@link TableMapEvent}); {@link #rows()} gives a read-only view of their bytes.
 *
 * @param tableId              the table map this event refers to
 * @param flags                1 = STMT_END_F, 2 = no foreign key checks, 4 = relaxed unique checks, 8 = complete rows
 * @param extraData            v2 extra data as written (empty for v1)
 * @param columnCount          columns in the table
 * @param columnsPresent       columns in the (before) image
 * @param columnsPresentAfter  columns in the after image of updates, null otherwise
 */
public record RowsEvent(long tableId, int flags, byte[] extraData, int columnCount, BitSet columnsPresent,
        BitSet columnsPresentAfter, byte[] buffer, int rowsOffset, int rowsLength) implements EventBody {

    public static final int STMT_END_F = 0x1;

    public RowsEvent {
        extraData = extraData.clone();
        columnsPresent = (BitSet) columnsPresent.clone();
        columnsPresentAfter = columnsPresentAfter == null ? null : (BitSet) columnsPresentAfter.clone();
    }

    @Override
    public byte[] extraData() {
        return extraData.clone();
    }

    @Override
    public BitSet columnsPresent() {
        return (BitSet) columnsPresent.clone();
    }

    @Override
    public BitSet columnsPresentAfter() {
        return columnsPresentAfter == null ? null : (BitSet) columnsPresentAfter.clone();
    }

    /** A read-only view of the row images (checksum trailer excluded). */
    /**
     * The table id of a rows event: from its body when it was decoded, else read from its post-header, where
     * it is 6 bytes (every format whose rows post-header is 8 or 10 bytes long; see {@link #hasSixByteTableId}).
     * The merge path reads no more than this of a rows event.
     */
    public static long tableIdOf(BinlogEvent event) {
        if (event.body() instanceof RowsEvent r) {
            return r.tableId();
        }
        if (event.type() == null || !event.type().isRows() || event.length() < EventHeader.LENGTH + 6) {
            throw new IllegalArgumentException("not a rows event with a table id: " + event);
        }
        return Bytes.uN(event.buffer(), event.bufferOffset() + EventHeader.LENGTH, 6);
    }

    /**
     * Whether rows events of type {@code typeCode} carry a 6-byte table id under {@code fde} (post-header 8 or
     * 10 bytes); the oldest formats (post-header 6) have a 4-byte one.
     */
    public static boolean hasSixByteTableId(FormatDescription fde, int typeCode) {
        return fde.headerLength() == EventHeader.LENGTH && fde.postHeaderLength(typeCode) >= 8;
    }

    public ByteBuffer rows() {
        return ByteBuffer.wrap(buffer, rowsOffset, rowsLength).slice().asReadOnlyBuffer();
    }

    /** Whether this is the last row event of its statement. */
    public boolean isStatementEnd() {
        return (flags & STMT_END_F) != 0;
    }

    static RowsEvent read(EventReader r, EventType type, int postHeaderLength) {
        long tableId = postHeaderLength == 6 ? r.u32("table_id") : r.uN(6, "table_id");
        int flags = r.u16("rows flags");
        byte[] extra = new byte[0];
        if (type.isRowsV2()) {
            int extraLength = r.u16("extra data length");
            if (extraLength < 2) {
                throw new MalformedEventException("extra data length: expected at least 2, found " + extraLength);
            }
            extra = r.bytes(extraLength - 2, "extra data");
        }
        int columns = r.columnCount("column count");
        BitSet present = r.bitmapLsbFirst(columns, "columns present bitmap");
        BitSet after = type.isUpdateRows() ? r.bitmapLsbFirst(columns, "columns present after bitmap") : null;
        return new RowsEvent(tableId, flags, extra, columns, present, after, r.buffer(), r.absolutePosition(), r.remaining());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RowsEvent e && tableId == e.tableId && flags == e.flags && columnCount == e.columnCount
                && Arrays.equals(extraData, e.extraData) && columnsPresent.equals(e.columnsPresent)
                && java.util.Objects.equals(columnsPresentAfter, e.columnsPresentAfter) && rows().equals(e.rows());
    }

    @Override
    public int hashCode() {
        return Long.hashCode(tableId) * 31 + rowsLength;
    }

    @Override
    public String toString() {
        return "RowsEvent[tableId=" + tableId + ", flags=" + flags + ", columns=" + columnCount + ", present="
                + columnsPresent + (columnsPresentAfter == null ? "" : ", presentAfter=" + columnsPresentAfter)
                + (extraData.length == 0 ? "" : ", extra=" + extraData.length + " bytes") + ", rows=" + rowsLength
                + " bytes]";
    }
}
