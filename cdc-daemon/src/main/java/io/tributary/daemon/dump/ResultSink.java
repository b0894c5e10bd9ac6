package io.tributary.daemon.dump;

import io.tributary.core.packet.ColumnDefinition;
import io.tributary.core.packet.ErrPacket;
import java.util.List;

/**
 * Where a streamed result set goes ({@link Answer.Streamed}): the column definitions once, then rows, then the end or
 * an error. An error before {@link #columns} is the statement's answer; an error after rows ends the result set (the
 * client reports it instead of a next row). {@link #row} blocks while the client is not reading (the channel is not
 * writable), so a result is never held whole in memory. Called from one thread.
 */
interface ResultSink {

    void columns(List<ColumnDefinition> columns);

    /** One row: the first {@code count} values ({@code null} for SQL NULL). */
    void row(byte[][] values, int count);

    void end();

    void error(ErrPacket error);

    /** Whether the client went away (or the server stops): the producer stops reading the shards. */
    boolean cancelled();
}
