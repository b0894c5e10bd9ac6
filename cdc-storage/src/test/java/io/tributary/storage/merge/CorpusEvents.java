package io.tributary.storage.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.DecoderOptions;
import io.tributary.core.event.EventType;
import io.tributary.core.event.FormatDescription;
import io.tributary.core.event.QueryEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Real events for the merge tests, from a MariaDB 10.0 binlog of the shared corpus: its first CREATE TABLE, and its
 * first TABLE_MAP with the rows event after it. Where the corpus is absent the calling test is skipped, saying so.
 *
 * @param fde            the file's format description
 * @param createTable    the first CREATE TABLE query event
 * @param tableMapAndRows the first TABLE_MAP and the rows event that follows it
 */
record CorpusEvents(FormatDescription fde, BinlogEvent createTable, List<BinlogEvent> tableMapAndRows) {

    static final String FILE = "tiflow__mariadb-mysql-bin.000001";

    /** The events, or the test is skipped when {@code tributary.shared.dir} holds no corpus ({@code what}: the test). */
    static CorpusEvents load(String what) throws IOException {
        String shared = System.getProperty("tributary.shared.dir");
        Path p = shared == null ? null : Path.of(shared, "testdata", "binlog", "mariadb-10.x", FILE);
        assumeTrue(p != null && Files.isRegularFile(p), "binlog corpus not found (tributary.shared.dir=" + shared
                + "); " + what + " skipped");
        BinlogEventDecoder d = new BinlogEventDecoder(FILE, Files.readAllBytes(p), DecoderOptions.FULL);
        BinlogEvent ddl = null;
        List<BinlogEvent> dml = new ArrayList<>();
        while (d.hasNext()) {
            BinlogEvent e = d.next();
            if (ddl == null && e.body() instanceof QueryEvent q && q.sql().toUpperCase(Locale.ROOT).startsWith("CREATE TABLE")) {
                ddl = e;
            } else if (dml.isEmpty() && e.type() == EventType.TABLE_MAP) {
                dml.add(e);
            } else if (dml.size() == 1 && e.type().isRows()) {
                dml.add(e);
            }
        }
        assertThat(ddl).as("a CREATE TABLE in " + FILE).isNotNull();
        assertThat(dml).as("a TABLE_MAP and its rows event in " + FILE).hasSize(2);
        return new CorpusEvents(d.formatDescription(), ddl, List.copyOf(dml));
    }
}
