package io.tributary.daemon.dump;

import io.tributary.core.packet.ColumnDefinition;
import io.tributary.core.packet.ErrPacket;
import io.tributary.core.packet.MySqlError;
import io.tributary.core.packet.TextResultSet;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** What the dump server answers to one statement. */
sealed interface Answer {

    /** A result set. */
    record Rows(TextResultSet resultSet) implements Answer {
    }

    /** An OK packet. */
    record Ok() implements Answer {
    }

    /** An ERR packet. */
    record Error(ErrPacket packet) implements Answer {
    }

    /**
     * {@code KILL [CONNECTION | QUERY] id}: the connection handler ends connection {@code id} (or the dump it is
     * running) when it exists and the user may, else error 1094 / 1095.
     */
    record Kill(long connectionId, boolean queryOnly) implements Answer {
    }

    /**
     * A result set produced off the event loop and streamed as it is produced ({@code SELECT} over a logical table,
     * read from the shards): {@code work} writes to the sink, which respects the channel's writability.
     */
    record Streamed(java.util.function.Consumer<ResultSink> work) implements Answer {
    }

    /** Work that reads files: run off the event loop, then answered. */
    record Deferred(Callable<Answer> work) implements Answer {
    }

    static Answer rows(List<String> columns, List<List<String>> rows) {
        List<ColumnDefinition> defs = new ArrayList<>(columns.size());
        for (String c : columns) {
            defs.add(ColumnDefinition.ofText(c));
        }
        return new Rows(new TextResultSet(defs, rows));
    }

    static Answer error(MySqlError error, String message) {
        return new Error(error.toPacket(message));
    }
}
