package io.tributary.core.packet;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Assembles a {@link TextResultSet} from the payloads of the packets that follow a COM_QUERY, one
 * payload at a time. The first payload must be the column count (the caller handles an OK or ERR
 * answer before that).
 *
 * <p>State machine: {@link State#COLUMN_COUNT} then {@link State#COLUMNS} (n definitions),
 * {@link State#COLUMNS_EOF} (skipped under {@code CLIENT_DEPRECATE_EOF}), {@link State#ROWS} until
 * the terminating EOF/OK, then {@link State#DONE}. An ERR packet in place of a row ends the result
 * with a {@link MySqlServerException}. Not thread-safe.
 */
public final class TextResultSetDecoder {
    enum State { COLUMN_COUNT, COLUMNS, COLUMNS_EOF, ROWS, DONE }

    private final boolean deprecateEof;
    private State state = State.COLUMN_COUNT;
    private int columnCount;
    private final List<ColumnDefinition> columns = new ArrayList<>();
    private final List<List<String>> rows = new ArrayList<>();

    public TextResultSetDecoder(boolean deprecateEof) {
        this.deprecateEof = deprecateEof;
    }

    /**
     * Reads one payload (without releasing it).
     *
     * @return the result set once its last packet was read, else {@code null}
     */
    public TextResultSet accept(ByteBuf payload) {
        switch (state) {
            case COLUMN_COUNT -> {
                long n = WireBuffers.readLenEncInt(payload, "column count");
                if (n < 1 || n > 4096) {
                    throw new MySqlProtocolException(MySqlError.ER_MALFORMED_PACKET,
                            "malformed result set: column count " + n + ", expected 1..4096");
                }
                columnCount = (int) n;
                state = State.COLUMNS;
            }
            case COLUMNS -> {
                columns.add(ColumnDefinition.decode(payload));
                if (columns.size() == columnCount) {
                    state = deprecateEof ? State.ROWS : State.COLUMNS_EOF;
                }
            }
            case COLUMNS_EOF -> {
                if (!EofPacket.isEof(payload)) {
                    throw new MySqlProtocolException(MySqlError.ER_MALFORMED_PACKET,
                            "malformed result set: expected EOF after " + columnCount + " column definitions, found "
                                    + describe(payload));
                }
                EofPacket.decode(payload);
                state = State.ROWS;
            }
            case ROWS -> {
                int first = payload.isReadable() ? payload.getUnsignedByte(payload.readerIndex()) : -1;
                if (first == MySqlProtocol.ERR_HEADER) {
                    state = State.DONE;
                    throw new MySqlServerException("result set after " + rows.size() + " rows", ErrPacket.decode(payload));
                }
                if (first == MySqlProtocol.EOF_HEADER && payload.readableBytes() < 0xFF_FFFF) {
                    boolean end = deprecateEof ? payload.readableBytes() >= 7 || EofPacket.isEof(payload) : EofPacket.isEof(payload);
                    if (end) {
                        payload.skipBytes(payload.readableBytes());
                        state = State.DONE;
                        return new TextResultSet(columns, rows);
                    }
                }
                List<String> row = new ArrayList<>(columnCount);
                for (int i = 0; i < columnCount; i++) {
                    WireBuffers.require(payload, 1, "value of column " + (i + 1) + " in row " + (rows.size() + 1));
                    if (payload.getUnsignedByte(payload.readerIndex()) == WireBuffers.LENENC_NULL) {
                        payload.skipBytes(1);
                        row.add(null);
                    } else {
                        row.add(new String(WireBuffers.readLenEncBytes(payload, "value of column " + (i + 1)),
                                StandardCharsets.UTF_8));
                    }
                }
                rows.add(row);
            }
            case DONE -> throw new IllegalStateException("result set already complete");
            default -> throw new IllegalStateException("unknown state " + state);
        }
        return null;
    }

    private static String describe(ByteBuf payload) {
        return payload.isReadable() ? "a packet starting 0x" + Integer.toHexString(payload.getUnsignedByte(payload.readerIndex()))
                + " of " + payload.readableBytes() + " bytes" : "an empty packet";
    }
}
