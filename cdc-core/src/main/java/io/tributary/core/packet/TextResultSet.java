package io.tributary.core.packet;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A text protocol result set (Protocol::Text Resultset): the answer to a COM_QUERY that returns
 * rows. On the wire: column count (length-encoded), one {@link ColumnDefinition} per column, an
 * EOF packet (unless {@code CLIENT_DEPRECATE_EOF}), one packet per row with each value a
 * length-encoded string or {@code 0xFB} for NULL, then an EOF packet (or an OK packet with header
 * {@code 0xFE} under {@code CLIENT_DEPRECATE_EOF}). Read it with {@link TextResultSetDecoder}.
 *
 * @param rows values as UTF-8 text, {@code null} for SQL NULL
 */
public record TextResultSet(List<ColumnDefinition> columns, List<List<String>> rows) {

    public TextResultSet {
        columns = List.copyOf(columns);
        List<List<String>> copy = new ArrayList<>(rows.size());
        for (List<String> row : rows) {
            if (row.size() != columns.size()) {
                throw new IllegalArgumentException("row has " + row.size() + " values for " + columns.size() + " columns");
            }
            copy.add(Collections.unmodifiableList(new ArrayList<>(row)));
        }
        rows = Collections.unmodifiableList(copy);
    }

    /** The index of the column with this name (case-insensitive), or -1. */
    public int columnIndex(String name) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).name().equalsIgnoreCase(name)) {
                return i;
            }
        }
        return -1;
    }

    /** The payloads, in order, that carry this result set. */
    public List<MySqlMessage> messages(boolean deprecateEof, int statusFlags) {
        List<MySqlMessage> out = new ArrayList<>(columns.size() + rows.size() + 3);
        out.add(buf -> WireBuffers.writeLenEncInt(buf, columns.size()));
        out.addAll(columns);
        if (!deprecateEof) {
            out.add(new EofPacket(0, statusFlags));
        }
        for (List<String> row : rows) {
            out.add(buf -> {
                for (String v : row) {
                    if (v == null) {
                        buf.writeByte(WireBuffers.LENENC_NULL);
                    } else {
                        WireBuffers.writeLenEncBytes(buf, v.getBytes(StandardCharsets.UTF_8));
                    }
                }
            });
        }
        if (deprecateEof) {
            out.add(buf -> {
                buf.writeByte(MySqlProtocol.EOF_HEADER).writeByte(0).writeByte(0).writeShortLE(statusFlags).writeShortLE(0);
            });
        } else {
            out.add(new EofPacket(0, statusFlags));
        }
        return out;
    }
}
